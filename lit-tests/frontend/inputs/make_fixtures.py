"""Generates the tiny ONNX fixtures of lit-tests/frontend (checked in beside this script).

Run from this directory with the onnx package `cargo xtask onnx-tests` pins (1.23.2, in
target/python-onnx: `PYTHONPATH=../../../target/python-onnx python3 make_fixtures.py`; the
fixtures before MaxPool's Indices were written with 1.17.0, and newer versions write other
header bytes for them). Weights are random with a fixed seed, so the files are reproducible.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(0)


def tensor(name, shape):
    return numpy_helper.from_array(rng.standard_normal(shape).astype(np.float32), name)


def ints(name, values):
    return numpy_helper.from_array(np.array(values, dtype=np.int64), name)


def save(graph, path, opset=17, extra_opsets=(), check=True):
    opsets = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in extra_opsets]
    model = helper.make_model(graph, opset_imports=opsets, producer_name="strata-fixtures")
    if check:
        onnx.checker.check_model(model)
    onnx.save(model, path)


# Conv (bias, pads, stride 2) -> Relu -> Add (broadcast per-channel) -> Exp; a depthwise conv
# with auto_pad SAME_UPPER.
save(
    helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv0", pads=[1, 1, 1, 1], strides=[2, 2]),
            helper.make_node("Relu", ["c"], ["r"], name="relu0"),
            helper.make_node("Conv", ["r", "dw"], ["d"], name="dwconv", group=4, auto_pad="SAME_UPPER"),
            helper.make_node("Add", ["d", "shift"], ["a"], name="add0"),
            helper.make_node("Exp", ["a"], ["y"], name="exp0"),
        ],
        "conv_relu",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 4, 4])],
        [tensor("w", [4, 3, 3, 3]), tensor("b", [4]), tensor("dw", [4, 1, 3, 3]), tensor("shift", [1, 4, 1, 1])],
    ),
    "conv_relu.onnx",
)

# Slice -> Transpose -> Reshape (constant shape, -1) -> MatMul with a weight; Flatten,
# Identity, Dropout and a Constant node.
save(
    helper.make_graph(
        [
            helper.make_node("Slice", ["x", "starts", "ends", "axes"], ["s"], name="slice0"),
            helper.make_node("Transpose", ["s"], ["t"], name="transpose0", perm=[0, 2, 1]),
            helper.make_node("Constant", [], ["shape"], name="shape0", value=ints("shape_value", [0, -1])),
            helper.make_node("Reshape", ["t", "shape"], ["r"], name="reshape0"),
            helper.make_node("MatMul", ["r", "w"], ["m"], name="matmul0"),
            helper.make_node("Identity", ["m"], ["i"], name="identity0"),
            helper.make_node("Dropout", ["i"], ["o"], name="dropout0"),
            helper.make_node("Flatten", ["o"], ["y"], name="flatten0", axis=1),
        ],
        "layout",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 16, 32])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5])],
        [ints("starts", [1, 2]), ints("ends", [10, -2]), ints("axes", [1, 2]), tensor("w", [252, 5])],
    ),
    "layout.onnx",
)

# Unsupported operators, several nodes each, one in a custom domain.
save(
    helper.make_graph(
        [
            helper.make_node("Bernoulli", ["x"], ["a"], name="bernoulli0"),
            helper.make_node("Relu", ["a"], ["b"], name="relu0"),
            helper.make_node("Bernoulli", ["b"], ["c"], name="bernoulli1"),
            helper.make_node("Gelu", ["c"], ["d"], name="gelu0", domain="com.example"),
            helper.make_node("RandomUniformLike", ["d"], ["y"]),
        ],
        "unsupported",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])],
    ),
    "unsupported.onnx",
    extra_opsets=["com.example"],
)

# A symbolic batch dimension.
save(
    helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu0")],
        "symbolic",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 4])],
    ),
    "symbolic.onnx",
)

# An opset-9 model using operators first defined later (invalid ONNX, so not checked; unnamed
# nodes are named by op type and index in the error).
save(
    helper.make_graph(
        [
            helper.make_node("Mod", ["x", "x"], ["a"]),
            helper.make_node("Celu", ["a"], ["b"], name="celu0"),
            helper.make_node("Mod", ["b", "x"], ["y"]),
        ],
        "old",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])],
    ),
    "too_old.onnx",
    opset=9,
    check=False,
)

# Older operator definitions imported natively (opset 6): Slice's and Pad's attributes, the
# broadcast/axis attributes of arithmetic, Softmax over every dimension from its axis on, and
# Upsample (opset 7 form) in a second model.
save(
    helper.make_graph(
        [
            helper.make_node("Slice", ["x"], ["s"], name="slice0", starts=[0, 1], ends=[2, 3], axes=[0, 2]),
            helper.make_node("Pad", ["s"], ["p"], name="pad0", pads=[0, 0, 1, 0, 0, 1], value=2.0),
            helper.make_node("Add", ["p", "bias"], ["a"], name="add0", broadcast=1, axis=1),
            helper.make_node("Softmax", ["a"], ["y"], name="softmax0", axis=1),
        ],
        "legacy",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])],
        [numpy_helper.from_array(np.array([1.0, 2.0, 3.0], np.float32), "bias")],
    ),
    "legacy.onnx",
    opset=6,
)
save(
    helper.make_graph(
        [helper.make_node("Upsample", ["x"], ["y"], name="up0", scales=[1.0, 1.0, 2.0, 2.0], mode="nearest")],
        "upsample",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 2, 2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 4, 4])],
    ),
    "upsample7.onnx",
    opset=7,
)

# Inconsistent shapes: MatMul contraction mismatch.
save(
    helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm_bad")],
        "bad_shapes",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5])],
        [tensor("w", [4, 5])],
    ),
    "bad_shapes.onnx",
)

# Weights in an external data file.
graph = helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["y"], name="mm_external")],
    "external",
    [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64])],
    [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 32])],
    [tensor("w", [64, 32])],
)
model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="strata-fixtures")
onnx.save(model, "external.onnx", save_as_external_data=True, all_tensors_to_one_file=True, location="external.weights", size_threshold=0)

# Elementwise unary and broadcasting binary ops, and N-ary Sum/Max (decomposed into chains).
save(
    helper.make_graph(
        [
            helper.make_node("Sub", ["x", "bias"], ["a"], name="sub0"),
            helper.make_node("Mul", ["a", "a"], ["b"], name="mul0"),
            helper.make_node("Div", ["b", "scale"], ["c"], name="div0"),
            helper.make_node("Sqrt", ["c"], ["d"], name="sqrt0"),
            helper.make_node("Tanh", ["d"], ["e"], name="tanh0"),
            helper.make_node("Sum", ["e", "x", "bias"], ["f"], name="sum0"),
            helper.make_node("Max", ["f", "e"], ["g"], name="max0"),
            helper.make_node("Sigmoid", ["g"], ["y"], name="sigmoid0"),
        ],
        "elementwise",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])],
        [tensor("bias", [4]), tensor("scale", [3, 1])],
    ),
    "elementwise.onnx",
)

# Gemm (transB, alpha, beta) as transpose + matmul + scaling + add; Unsqueeze of a constant
# (folded) and Squeeze of a value (a reshape).
save(
    helper.make_graph(
        [
            helper.make_node("Gemm", ["x", "w", "c"], ["g"], name="gemm0", transB=1, alpha=0.5, beta=2.0),
            helper.make_node("Unsqueeze", ["g", "axes"], ["u"], name="unsqueeze0"),
            helper.make_node("Squeeze", ["u", "axes"], ["y"], name="squeeze0"),
        ],
        "gemm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 5])],
        [tensor("w", [5, 8]), tensor("c", [5]), ints("axes", [0])],
    ),
    "gemm.onnx",
)

# A PyTorch-style shape subgraph folded at import: Shape -> Gather -> Unsqueeze -> Concat ->
# Reshape; Slice of a shape -> ConstantOfShape; Range -> Cast; Size.
save(
    helper.make_graph(
        [
            helper.make_node("Shape", ["x"], ["s"], name="shape0"),
            helper.make_node("Gather", ["s", "zero"], ["batch"], name="gather0", axis=0),
            helper.make_node("Unsqueeze", ["batch", "axes0"], ["batch1"], name="unsqueeze0"),
            helper.make_node("Concat", ["batch1", "minus_one"], ["target"], name="concat0", axis=0),
            helper.make_node("Reshape", ["x", "target"], ["y"], name="reshape0"),
            helper.make_node("Slice", ["s", "two", "four"], ["tail"], name="slice0"),
            helper.make_node("ConstantOfShape", ["tail"], ["ones"], name="ones0",
                             value=numpy_helper.from_array(np.array([1.0], dtype=np.float32), "one")),
            helper.make_node("Add", ["x", "ones"], ["w"], name="add0"),
            helper.make_node("Size", ["x"], ["n"], name="size0"),
            helper.make_node("Range", ["zero", "eight", "one_i"], ["r"], name="range0"),
            helper.make_node("Cast", ["r"], ["rf"], name="cast0", to=TensorProto.FLOAT),
            helper.make_node("Mul", ["w", "rf"], ["z"], name="mul0"),
        ],
        "shape_subgraph",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 192]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3, 8, 8]),
         helper.make_tensor_value_info("n", TensorProto.INT64, [])],
        [numpy_helper.from_array(np.array(0, dtype=np.int64), "zero"), ints("axes0", [0]), ints("minus_one", [-1]),
         ints("two", [2]), ints("four", [4]), numpy_helper.from_array(np.array(8, dtype=np.int64), "eight"),
         numpy_helper.from_array(np.array(1, dtype=np.int64), "one_i")],
    ),
    "shape_subgraph.onnx",
)

# A MobileNet-style block: Conv -> BatchNormalization (folded into a multiply-add) -> Clip
# (ReLU6) -> MaxPool -> HardSwish -> AveragePool -> GlobalAveragePool -> Flatten -> Gemm ->
# Softmax; and LeakyRelu, HardSigmoid, Gelu, LayerNormalization, LogSoftmax on a side input.
save(
    helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w"], ["c"], name="conv0", pads=[1, 1, 1, 1]),
            helper.make_node("BatchNormalization", ["c", "gamma", "beta", "mean", "var"], ["bn"], name="bn0", epsilon=1e-3),
            helper.make_node("Clip", ["bn", "zero_f", "six"], ["r6"], name="relu6"),
            helper.make_node("MaxPool", ["r6"], ["mp"], name="maxpool0", kernel_shape=[2, 2], strides=[2, 2]),
            helper.make_node("HardSwish", ["mp"], ["hs"], name="hswish0"),
            helper.make_node("AveragePool", ["hs"], ["ap"], name="avgpool0", kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1),
            helper.make_node("GlobalAveragePool", ["ap"], ["gap"], name="gap0"),
            helper.make_node("Flatten", ["gap"], ["flat"], name="flatten0"),
            helper.make_node("Gemm", ["flat", "fc", "fc_bias"], ["logits"], name="fc0", transB=1),
            helper.make_node("Softmax", ["logits"], ["y"], name="softmax0", axis=-1),
            helper.make_node("LeakyRelu", ["t"], ["t1"], name="leaky0", alpha=0.1),
            helper.make_node("HardSigmoid", ["t1"], ["t2"], name="hsig0"),
            helper.make_node("Gelu", ["t2"], ["t3"], name="gelu0", approximate="tanh"),
            helper.make_node("LayerNormalization", ["t3", "ln_scale", "ln_bias"], ["t4"], name="ln0", axis=-1, epsilon=1e-6),
            helper.make_node("LogSoftmax", ["t4"], ["z"], name="logsoftmax0", axis=1),
        ],
        "nn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8]),
         helper.make_tensor_value_info("t", TensorProto.FLOAT, [2, 5, 16])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 5, 16])],
        [tensor("w", [4, 3, 3, 3]),
         numpy_helper.from_array(np.array([1.0, 2.0, 0.5, 1.0], dtype=np.float32), "gamma"),
         numpy_helper.from_array(np.array([0.0, 1.0, 0.0, -1.0], dtype=np.float32), "beta"),
         numpy_helper.from_array(np.array([0.0, 0.5, 1.0, 0.0], dtype=np.float32), "mean"),
         numpy_helper.from_array(np.array([0.999, 3.999, 0.249, 1.0 - 1e-3], dtype=np.float32), "var"),
         numpy_helper.from_array(np.array(0.0, dtype=np.float32), "zero_f"),
         numpy_helper.from_array(np.array(6.0, dtype=np.float32), "six"),
         tensor("fc", [10, 4]), tensor("fc_bias", [10]), tensor("ln_scale", [16]), tensor("ln_bias", [16])],
    ),
    "nn.onnx",
    opset=20,
)

# Concat of a value and a constant (a chain of sg.concat), Split into uneven parts (slices),
# ReduceMean over constant-input axes without keepdims, ReduceMax over constant-input axes.
save(
    helper.make_graph(
        [
            helper.make_node("Concat", ["x", "pad", "x"], ["c"], name="concat0", axis=1),
            helper.make_node("Split", ["c", "sizes"], ["p0", "p1", "p2"], name="split0", axis=1),
            helper.make_node("ReduceMean", ["p1", "mean_axes"], ["m"], name="mean0", keepdims=0),
            helper.make_node("ReduceMax", ["p2", "max_axes"], ["y"], name="max0", keepdims=1),
        ],
        "layout2",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])],
        [helper.make_tensor_value_info("p0", TensorProto.FLOAT, [2, 2, 4]),
         helper.make_tensor_value_info("m", TensorProto.FLOAT, [2]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 4])],
        [tensor("pad", [2, 1, 4]), ints("sizes", [2, 2, 3]), ints("max_axes", [0, 1]), ints("mean_axes", [1, -1])],
    ),
    "layout2.onnx",
    opset=18,
)

# Comparisons, Not and Where; Expand, Tile and Pad (reflect) with constant operands;
# InstanceNormalization.
save(
    helper.make_graph(
        [
            helper.make_node("Greater", ["x", "zero"], ["pos"], name="greater0"),
            helper.make_node("Less", ["x", "zero"], ["neg"], name="less0"),
            helper.make_node("Equal", ["pos", "neg"], ["same"], name="equal0"),
            helper.make_node("Not", ["same"], ["differ"], name="not0"),
            helper.make_node("Where", ["differ", "x", "zero"], ["w"], name="where0"),
            helper.make_node("Expand", ["w", "shape"], ["e"], name="expand0"),
            helper.make_node("Tile", ["e", "repeats"], ["t"], name="tile0"),
            helper.make_node("Pad", ["t", "pads"], ["p"], name="pad0", mode="reflect"),
            helper.make_node("InstanceNormalization", ["p", "scale", "bias"], ["y"], name="inorm0", epsilon=1e-3),
        ],
        "logic",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 10])],
        [numpy_helper.from_array(np.array(0.0, dtype=np.float32), "zero"), ints("shape", [2, 1, 1]),
         ints("repeats", [1, 1, 2]), ints("pads", [0, 0, 1, 0, 0, 1]), tensor("scale", [3]), tensor("bias", [3])],
    ),
    "logic.onnx",
)

# Reshape whose target shape is a graph input (as ONNX node tests write it): importable only
# with --freeze-input shape=reshape_shape.pb.
save(
    helper.make_graph(
        [helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape0")],
        "reshape_input",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6]),
         helper.make_tensor_value_info("shape", TensorProto.INT64, [2])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])],
    ),
    "reshape_input.onnx",
)
with open("reshape_shape.pb", "wb") as f:
    f.write(ints("shape", [3, 4]).SerializeToString())

with open("malformed.onnx", "wb") as f:
    f.write(b"\x0a\xff\xff\xff\xff\x0f this is not protobuf")

# The e-graph issue's seed example and its variants (own generator, so this part reproduces
# alone): x2 = conv(x1); x3 = x2[..., 1:10, 2:14]; x4 = x3 transposed (last two axes);
# x5 = relu(x4); x6 = exp(x5).
seed_rng = np.random.default_rng(1)
seed_w = numpy_helper.from_array(seed_rng.standard_normal([8, 4, 3, 3]).astype(np.float32), "w")
seed_slice = [ints("starts", [1, 2]), ints("ends", [10, 14]), ints("axes", [2, 3])]


def seed_graph(name, tail, outputs):
    nodes = [
        helper.make_node("Conv", ["x1", "w"], ["x2"], name="conv", pads=[1, 1, 1, 1]),
        helper.make_node("Slice", ["x2", "starts", "ends", "axes"], ["x3"], name="slice"),
        helper.make_node("Transpose", ["x3"], ["x4"], name="transpose", perm=[0, 1, 3, 2]),
    ] + tail
    return helper.make_graph(nodes, name, [helper.make_tensor_value_info("x1", TensorProto.FLOAT, [1, 4, 16, 16])],
                             [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outputs], [seed_w] + seed_slice)


relu_exp = [helper.make_node("Relu", ["x4"], ["x5"], name="relu"), helper.make_node("Exp", ["x5"], ["x6"], name="exp")]
save(seed_graph("seed_views", relu_exp, [("x6", [1, 8, 12, 9])]), "seed_views.onnx")
save(seed_graph("seed_views_reader", relu_exp + [helper.make_node("Neg", ["x3"], ["x7"], name="neg")],
                [("x6", [1, 8, 12, 9]), ("x7", [1, 8, 9, 12])]), "seed_views_reader.onnx")
save(seed_graph("seed_views_output", relu_exp, [("x6", [1, 8, 12, 9]), ("x2", [1, 8, 16, 16])]), "seed_views_output.onnx")
seed_w2 = numpy_helper.from_array(seed_rng.standard_normal([8, 8, 1, 1]).astype(np.float32), "w2")
g = seed_graph("seed_views_conv", [helper.make_node("Conv", ["x4", "w2"], ["x5"], name="conv2")], [("x5", [1, 8, 12, 9])])
g.initializer.append(seed_w2)
save(g, "seed_views_conv.onnx")

# Resize (linear, half_pixel, x2; nearest to a size), ConvTranspose (stride 2, pads 1,
# output_padding 1) and a 3-D MaxPool (two 2-D pools), with their own generator.
resize_rng = np.random.default_rng(2)
save(
    helper.make_graph(
        [
            helper.make_node("Resize", ["x", "", "scales"], ["up"], name="resize_linear", mode="linear"),
            helper.make_node("Resize", ["x", "", "", "sizes"], ["near"], name="resize_nearest", mode="nearest",
                             coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
            helper.make_node("ConvTranspose", ["x", "wt", "bt"], ["deconv"], name="deconv", strides=[2, 2],
                             pads=[1, 1, 1, 1], output_padding=[1, 1]),
            helper.make_node("Reshape", ["x", "shape5"], ["x5"], name="to_3d"),
            helper.make_node("MaxPool", ["x5"], ["pool3d"], name="pool3d", kernel_shape=[2, 2, 2], strides=[1, 2, 2]),
        ],
        "resize_deconv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])],
        [helper.make_tensor_value_info("up", TensorProto.FLOAT, [1, 2, 8, 8]),
         helper.make_tensor_value_info("near", TensorProto.FLOAT, [1, 2, 6, 6]),
         helper.make_tensor_value_info("deconv", TensorProto.FLOAT, [1, 3, 8, 8]),
         helper.make_tensor_value_info("pool3d", TensorProto.FLOAT, [1, 1, 1, 2, 2])],
        [numpy_helper.from_array(np.array([1, 1, 2, 2], dtype=np.float32), "scales"), ints("sizes", [1, 2, 6, 6]),
         numpy_helper.from_array(resize_rng.standard_normal([2, 3, 3, 3]).astype(np.float32), "wt"),
         numpy_helper.from_array(resize_rng.standard_normal([3]).astype(np.float32), "bt"), ints("shape5", [1, 1, 2, 4, 4])],
    ),
    "resize_deconv.onnx",
)

# Register-blocked host convolutions (crates/lower/src/conv_lanes.rs): a run-time filter with
# stride 2, dilation 2 and pads; a constant 1x1 filter with bias; a strided 1x1 without pads
# on an odd size (rounded up to whole strides). The expected outputs are computed here in
# float64 (numpy), beside the inputs, for lit-tests/driver/conv-blocked.mlir.
blocked_rng = np.random.default_rng(3)


def conv_reference(x, w, b=None, stride=1, dilation=1, pad=0):
    x = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    f, _, kh, kw = w.shape
    oh = (x.shape[2] - dilation * (kh - 1) - 1) // stride + 1
    ow = (x.shape[3] - dilation * (kw - 1) - 1) // stride + 1
    y = np.zeros((x.shape[0], f, oh, ow))
    for i in range(kh):
        for j in range(kw):
            patch = x[:, :, i * dilation:i * dilation + stride * (oh - 1) + 1:stride, j * dilation:j * dilation + stride * (ow - 1) + 1:stride]
            y += np.einsum("nchw,fc->nfhw", patch, w[:, :, i, j].astype(np.float64))
    return y if b is None else y + b.astype(np.float64)[None, :, None, None]


blocked_x = blocked_rng.standard_normal([1, 8, 11, 11]).astype(np.float32)
blocked_w = blocked_rng.standard_normal([16, 8, 3, 3]).astype(np.float32)
blocked_w1 = blocked_rng.standard_normal([32, 16, 1, 1]).astype(np.float32)
blocked_b1 = blocked_rng.standard_normal([32]).astype(np.float32)
blocked_w2 = blocked_rng.standard_normal([8, 8, 1, 1]).astype(np.float32)
save(
    helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w"], ["y1"], name="dilated", strides=[2, 2], dilations=[2, 2], pads=[2, 2, 2, 2]),
            helper.make_node("Conv", ["y1", "w1", "b1"], ["y2"], name="pointwise"),
            helper.make_node("Conv", ["x", "w2"], ["y3"], name="strided_1x1", strides=[2, 2]),
        ],
        "conv_blocked",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 11, 11]),
         helper.make_tensor_value_info("w", TensorProto.FLOAT, [16, 8, 3, 3])],
        [helper.make_tensor_value_info("y1", TensorProto.FLOAT, [1, 16, 6, 6]),
         helper.make_tensor_value_info("y2", TensorProto.FLOAT, [1, 32, 6, 6]),
         helper.make_tensor_value_info("y3", TensorProto.FLOAT, [1, 8, 6, 6])],
        [numpy_helper.from_array(blocked_w1, "w1"), numpy_helper.from_array(blocked_b1, "b1"), numpy_helper.from_array(blocked_w2, "w2")],
    ),
    "conv_blocked.onnx",
)
blocked_y1 = conv_reference(blocked_x, blocked_w, stride=2, dilation=2, pad=2)
for name, value in [("x", blocked_x), ("w", blocked_w), ("y1", blocked_y1), ("y2", conv_reference(blocked_y1, blocked_w1, blocked_b1)),
                    ("y3", conv_reference(blocked_x, blocked_w2, stride=2))]:
    np.save(f"../../driver/inputs/conv_blocked_{name}.npy", value.astype(np.float32))

# 3x3 stride-1 convolutions the host runs as Winograd (strata-winograd): batch 2, 32 channels
# into 32 filters at 12 x 40 with bias and ReLU (F(4x4, 3x3)), then 32 into 40 filters at 14 x 14
# added to a residual (F(2x2, 3x3), 7 tile rows in bands that do not divide them); a 1x1
# convolution into 1024 channels averaged over the image (a head whose 3.9 MB result is the
# model's peak, which leaves the Winograd scratch room under it). Expected outputs in float64,
# for lit-tests/driver/conv-winograd.mlir.
winograd_rng = np.random.default_rng(11)
winograd_x = winograd_rng.standard_normal([2, 32, 12, 40]).astype(np.float32)
winograd_w1 = (winograd_rng.standard_normal([32, 32, 3, 3]) / 10).astype(np.float32)
winograd_b1 = winograd_rng.standard_normal([32]).astype(np.float32)
winograd_z = winograd_rng.standard_normal([1, 32, 14, 14]).astype(np.float32)
winograd_r = winograd_rng.standard_normal([1, 40, 14, 14]).astype(np.float32)
winograd_w2 = (winograd_rng.standard_normal([40, 32, 3, 3]) / 10).astype(np.float32)
winograd_w3 = (winograd_rng.standard_normal([1024, 32, 1, 1]) / 10).astype(np.float32)
save(
    helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="banded", pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c1"], ["y1"], name="relu"),
            helper.make_node("Conv", ["z", "w2"], ["c2"], name="uneven_bands", pads=[1, 1, 1, 1]),
            helper.make_node("Add", ["c2", "r"], ["y2"], name="residual"),
            helper.make_node("Conv", ["x", "w3"], ["head"], name="head"),
            helper.make_node("ReduceMean", ["head"], ["y3"], name="pool", axes=[2, 3], keepdims=0),
        ],
        "conv_winograd",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 32, 12, 40]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 32, 14, 14]),
         helper.make_tensor_value_info("r", TensorProto.FLOAT, [1, 40, 14, 14])],
        [helper.make_tensor_value_info("y1", TensorProto.FLOAT, [2, 32, 12, 40]),
         helper.make_tensor_value_info("y2", TensorProto.FLOAT, [1, 40, 14, 14]),
         helper.make_tensor_value_info("y3", TensorProto.FLOAT, [2, 1024])],
        [numpy_helper.from_array(winograd_w1, "w1"), numpy_helper.from_array(winograd_b1, "b1"),
         numpy_helper.from_array(winograd_w2, "w2"), numpy_helper.from_array(winograd_w3, "w3")],
    ),
    "conv_winograd.onnx",
)
winograd_y1 = np.maximum(conv_reference(winograd_x, winograd_w1, winograd_b1, pad=1), 0)
winograd_y2 = conv_reference(winograd_z, winograd_w2, pad=1) + winograd_r
winograd_y3 = conv_reference(winograd_x, winograd_w3).mean(axis=(2, 3))
for name, value in [("x", winograd_x), ("z", winograd_z), ("r", winograd_r), ("y1", winograd_y1), ("y2", winograd_y2),
                    ("y3", winograd_y3)]:
    np.save(f"../../driver/inputs/conv_winograd_{name}.npy", value.astype(np.float32))

# Host convolutions with too few filters for the lanes, which take output columns in the lanes
# instead (strata_machine::spatial_tiles): 12 filters 3x3 with bias and a ReLU epilogue, 36
# filters 1x1 accumulating into a residual, and 4 filters read from a run-time input; and
# grouped convolutions (strata_machine::grouped_tiles; 2 channels and 2 filters per group):
# 32 columns, 28 columns (14-lane vectors), and row stride 2. Expected outputs in float64, for
# lit-tests/driver/conv-spatial.mlir.
spatial_rng = np.random.default_rng(5)
spatial_x = spatial_rng.standard_normal([1, 8, 16, 32]).astype(np.float32)
spatial_r = spatial_rng.standard_normal([1, 36, 16, 32]).astype(np.float32)
spatial_w = spatial_rng.standard_normal([4, 8, 3, 3]).astype(np.float32)
spatial_w1 = spatial_rng.standard_normal([12, 8, 3, 3]).astype(np.float32)
spatial_b1 = spatial_rng.standard_normal([12]).astype(np.float32)
spatial_w2 = spatial_rng.standard_normal([36, 12, 1, 1]).astype(np.float32)
spatial_b2 = spatial_rng.standard_normal([36]).astype(np.float32)
spatial_z = spatial_rng.standard_normal([1, 8, 28, 28]).astype(np.float32)
spatial_w4 = spatial_rng.standard_normal([8, 2, 3, 3]).astype(np.float32)
spatial_b4 = spatial_rng.standard_normal([8]).astype(np.float32)
spatial_w5 = spatial_rng.standard_normal([8, 2, 3, 3]).astype(np.float32)


def grouped_reference(x, w, groups, b=None, stride=(1, 1), pad=1):
    """A grouped convolution in float64: each group's channels against its filters."""
    cg, fg = x.shape[1] // groups, w.shape[0] // groups
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    kh, kw = w.shape[2:]
    oh = (xp.shape[2] - kh) // stride[0] + 1
    ow = (xp.shape[3] - kw) // stride[1] + 1
    y = np.zeros((x.shape[0], w.shape[0], oh, ow))
    for g in range(groups):
        for i in range(kh):
            for j in range(kw):
                patch = xp[:, g * cg:(g + 1) * cg, i:i + stride[0] * (oh - 1) + 1:stride[0], j:j + stride[1] * (ow - 1) + 1:stride[1]]
                y[:, g * fg:(g + 1) * fg] += np.einsum("nchw,fc->nfhw", patch, w[g * fg:(g + 1) * fg, :, i, j].astype(np.float64))
    return y if b is None else y + b.astype(np.float64)[None, :, None, None]


save(
    helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="growth", pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c1"], ["y1"], name="relu"),
            helper.make_node("Conv", ["y1", "w2", "b2"], ["c2"], name="transition"),
            helper.make_node("Add", ["c2", "r"], ["y2"], name="residual"),
            helper.make_node("Conv", ["x", "w"], ["y3"], name="runtime_filter", pads=[1, 1, 1, 1]),
            helper.make_node("Conv", ["x", "w4", "b4"], ["y4"], name="grouped", pads=[1, 1, 1, 1], group=4),
            helper.make_node("Conv", ["z", "w5"], ["y5"], name="grouped_28", pads=[1, 1, 1, 1], group=4),
            helper.make_node("Conv", ["z", "w5"], ["y6"], name="grouped_rows", pads=[1, 1, 1, 1], group=4, strides=[2, 1]),
        ],
        "conv_spatial",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 16, 32]),
         helper.make_tensor_value_info("r", TensorProto.FLOAT, [1, 36, 16, 32]),
         helper.make_tensor_value_info("w", TensorProto.FLOAT, [4, 8, 3, 3]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 8, 28, 28])],
        [helper.make_tensor_value_info("y1", TensorProto.FLOAT, [1, 12, 16, 32]),
         helper.make_tensor_value_info("y2", TensorProto.FLOAT, [1, 36, 16, 32]),
         helper.make_tensor_value_info("y3", TensorProto.FLOAT, [1, 4, 16, 32]),
         helper.make_tensor_value_info("y4", TensorProto.FLOAT, [1, 8, 16, 32]),
         helper.make_tensor_value_info("y5", TensorProto.FLOAT, [1, 8, 28, 28]),
         helper.make_tensor_value_info("y6", TensorProto.FLOAT, [1, 8, 14, 28])],
        [numpy_helper.from_array(spatial_w1, "w1"), numpy_helper.from_array(spatial_b1, "b1"),
         numpy_helper.from_array(spatial_w2, "w2"), numpy_helper.from_array(spatial_b2, "b2"),
         numpy_helper.from_array(spatial_w4, "w4"), numpy_helper.from_array(spatial_b4, "b4"),
         numpy_helper.from_array(spatial_w5, "w5")],
    ),
    "conv_spatial.onnx",
)
spatial_y1 = np.maximum(conv_reference(spatial_x, spatial_w1, spatial_b1, pad=1), 0.0)
for name, value in [("x", spatial_x), ("r", spatial_r), ("w", spatial_w), ("y1", spatial_y1),
                    ("y2", conv_reference(spatial_y1, spatial_w2, spatial_b2) + spatial_r),
                    ("y3", conv_reference(spatial_x, spatial_w, pad=1)), ("z", spatial_z),
                    ("y4", grouped_reference(spatial_x, spatial_w4, 4, spatial_b4)),
                    ("y5", grouped_reference(spatial_z, spatial_w5, 4)),
                    ("y6", grouped_reference(spatial_z, spatial_w5, 4, stride=(2, 1)))]:
    np.save(f"../../driver/inputs/conv_spatial_{name}.npy", value.astype(np.float32))

# MaxPool with its Indices output: 2-D column major (storage_order 1) with pads, 2-D row major
# with overlapping windows, and 1-D. Values rounded to halves, so windows hold ties (the first
# maximum in window order wins). Expected outputs computed here, for
# lit-tests/driver/maxpool-indices.mlir.
pool_rng = np.random.default_rng(4)
pool_x = (np.round(pool_rng.standard_normal([1, 2, 5, 5]) * 2) / 2).astype(np.float32)
pool_s = (np.round(pool_rng.standard_normal([1, 2, 7]) * 2) / 2).astype(np.float32)


def maxpool_reference(x, kernel, stride, pads, column_major=False):
    """Max pooling with ONNX's Indices: the flat input index of each window's first maximum."""
    n_, c_, h_, w_ = x.shape
    oh = (h_ + pads[0] + pads[2] - kernel[0]) // stride[0] + 1
    ow = (w_ + pads[1] + pads[3] - kernel[1]) // stride[1] + 1
    y = np.zeros((n_, c_, oh, ow), dtype=np.float32)
    indices = np.zeros((n_, c_, oh, ow), dtype=np.int64)
    for n in range(n_):
        for c in range(c_):
            for i in range(oh):
                for j in range(ow):
                    best, at = -np.inf, -1
                    for a in range(kernel[0]):
                        for b in range(kernel[1]):
                            h, w = i * stride[0] - pads[0] + a, j * stride[1] - pads[1] + b
                            if 0 <= h < h_ and 0 <= w < w_ and x[n, c, h, w] > best:
                                best = x[n, c, h, w]
                                at = (n * c_ + c) * h_ * w_ + (w * h_ + h if column_major else h * w_ + w)
                    y[n, c, i, j], indices[n, c, i, j] = best, at
    return y, indices


save(
    helper.make_graph(
        [
            helper.make_node("MaxPool", ["x"], ["y_cm", "i_cm"], name="pool_column_major", kernel_shape=[3, 3], strides=[2, 2],
                             pads=[1, 1, 1, 1], storage_order=1),
            helper.make_node("MaxPool", ["x"], ["y_rm", "i_rm"], name="pool_row_major", kernel_shape=[2, 2]),
            helper.make_node("MaxPool", ["s"], ["y_1d", "i_1d"], name="pool_1d", kernel_shape=[3], strides=[2], pads=[1, 1]),
        ],
        "maxpool_indices",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 5, 5]),
         helper.make_tensor_value_info("s", TensorProto.FLOAT, [1, 2, 7])],
        [helper.make_tensor_value_info("y_cm", TensorProto.FLOAT, [1, 2, 3, 3]),
         helper.make_tensor_value_info("i_cm", TensorProto.INT64, [1, 2, 3, 3]),
         helper.make_tensor_value_info("y_rm", TensorProto.FLOAT, [1, 2, 4, 4]),
         helper.make_tensor_value_info("i_rm", TensorProto.INT64, [1, 2, 4, 4]),
         helper.make_tensor_value_info("y_1d", TensorProto.FLOAT, [1, 2, 4]),
         helper.make_tensor_value_info("i_1d", TensorProto.INT64, [1, 2, 4])],
    ),
    "maxpool_indices.onnx",
)
pool_y_cm, pool_i_cm = maxpool_reference(pool_x, [3, 3], [2, 2], [1, 1, 1, 1], column_major=True)
pool_y_rm, pool_i_rm = maxpool_reference(pool_x, [2, 2], [1, 1], [0, 0, 0, 0])
pool_y_1d, pool_i_1d = maxpool_reference(pool_s[..., None], [3, 1], [2, 1], [1, 0, 1, 0])
for name, value in [("x", pool_x), ("s", pool_s), ("y_cm", pool_y_cm), ("i_cm", pool_i_cm), ("y_rm", pool_y_rm), ("i_rm", pool_i_rm),
                    ("y_1d", pool_y_1d[..., 0]), ("i_1d", pool_i_1d[..., 0])]:
    np.save(f"../../driver/inputs/maxpool_{name}.npy", value)

# Training-mode BatchNormalization (batch statistics, running mean and variance as outputs)
# and a training-mode Dropout with ratio 0 (the identity, its mask all true).
training_rng = np.random.default_rng(5)
save(
    helper.make_graph(
        [
            helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["y", "running_mean", "running_var"],
                             name="bn_train", training_mode=1, momentum=0.8),
            helper.make_node("Dropout", ["y", "ratio", "training"], ["z", "mask"], name="dropout_train"),
        ],
        "training",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4, 4])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3, 4, 4]),
         helper.make_tensor_value_info("mask", TensorProto.BOOL, [2, 3, 4, 4]),
         helper.make_tensor_value_info("running_mean", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("running_var", TensorProto.FLOAT, [3])],
        [numpy_helper.from_array(training_rng.standard_normal([3]).astype(np.float32), name) for name in ["scale", "bias", "mean"]]
        + [numpy_helper.from_array(training_rng.uniform(0.5, 2.0, [3]).astype(np.float32), "var"),
           numpy_helper.from_array(np.array(0.0, dtype=np.float32), "ratio"), numpy_helper.from_array(np.array(True), "training")],
    ),
    "training.onnx",
)

# float8 E8M0 casts with each round_mode (up, down, nearest), read back as float32: values
# between powers of two (guard, round and sticky bits), a subnormal, the top exponent (which
# saturates instead of rounding into NaN) and a negative value (the sign is dropped). The
# reference follows ONNX's Cast definition (opset 24), for lit-tests/driver/cast-e8m0.mlir.
e8m0_x = np.array([0.0, 0.124, 0.25, 0.3, 0.375, 0.376, 1.0, 1.5, 1.75, 3.0, 1e-40, 3e38, -2.5, 6.0], dtype=np.float32)


def e8m0_reference(x, mode):
    bits = x.view(np.uint32)
    exponent = ((bits >> 23) & 0xFF).astype(np.int64)
    if mode == "up":
        up = (bits & 0x7FFFFF) != 0
    elif mode == "down":
        up = np.zeros(x.shape, dtype=bool)
    else:
        up = ((bits & 0x400000) != 0) & (((bits & 0x3FFFFF) != 0) | (exponent > 0))
    code = exponent + (up & (exponent != 0xFE))
    return np.where(code == 0, np.float32(2.0 ** -127), np.ldexp(1.0, code - 127)).astype(np.float32)


save(
    helper.make_graph(
        [node for mode in ["up", "down", "nearest"] for node in [
            helper.make_node("Cast", ["x"], [f"e_{mode}"], name=f"to_e8m0_{mode}", to=TensorProto.FLOAT8E8M0, round_mode=mode),
            helper.make_node("Cast", [f"e_{mode}"], [f"y_{mode}"], name=f"from_e8m0_{mode}", to=TensorProto.FLOAT),
        ]],
        "cast_e8m0",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [14])],
        [helper.make_tensor_value_info(f"y_{mode}", TensorProto.FLOAT, [14]) for mode in ["up", "down", "nearest"]],
    ),
    "cast_e8m0.onnx",
    opset=24,
)
np.save("../../driver/inputs/e8m0_x.npy", e8m0_x)
for mode in ["up", "down", "nearest"]:
    np.save(f"../../driver/inputs/e8m0_y_{mode}.npy", e8m0_reference(e8m0_x, mode))

# Convolutions beyond 2-D: a 1-D Conv (stride 2, dilation 2, SAME_UPPER), a grouped 3-D Conv
# (stride 2 in depth, pads, bias) and a 3-D ConvTranspose (strides 2x1x2, pads, output_padding)
# with its kernel a run-time input. References computed directly here in float64, for
# lit-tests/driver/conv-nd.mlir.
nd_rng = np.random.default_rng(6)


def conv_nd_reference(x, w, b, strides, pads, dilations, group):
    spatial = x.ndim - 2
    out_size = [(x.shape[2 + i] + pads[i] + pads[spatial + i] - dilations[i] * (w.shape[2 + i] - 1) - 1) // strides[i] + 1 for i in range(spatial)]
    y = np.zeros([x.shape[0], w.shape[0]] + out_size)
    cg, fg = x.shape[1] // group, w.shape[0] // group
    for o in np.ndindex(*out_size):
        for k in np.ndindex(*w.shape[2:]):
            at = [o[i] * strides[i] + k[i] * dilations[i] - pads[i] for i in range(spatial)]
            if all(0 <= at[i] < x.shape[2 + i] for i in range(spatial)):
                for g in range(group):
                    patch = x[(slice(None), slice(g * cg, (g + 1) * cg)) + tuple(at)].astype(np.float64)
                    kernel = w[(slice(g * fg, (g + 1) * fg), slice(None)) + tuple(k)].astype(np.float64)
                    y[(slice(None), slice(g * fg, (g + 1) * fg)) + tuple(o)] += patch @ kernel.T
    if b is not None:
        y += b.reshape([1, -1] + [1] * spatial)
    return y


def conv_transpose_reference(x, w, strides, pads, output_padding, dilations):
    spatial = x.ndim - 2
    full = [strides[i] * (x.shape[2 + i] - 1) + output_padding[i] + (w.shape[2 + i] - 1) * dilations[i] + 1 for i in range(spatial)]
    y = np.zeros([x.shape[0], w.shape[1]] + full)
    for i in np.ndindex(*x.shape[2:]):
        for k in np.ndindex(*w.shape[2:]):
            o = tuple(i[a] * strides[a] + k[a] * dilations[a] for a in range(spatial))
            y[(slice(None), slice(None)) + o] += x[(slice(None), slice(None)) + i].astype(np.float64) @ w[(slice(None), slice(None)) + k].astype(np.float64)
    crop = tuple(slice(pads[a], full[a] - pads[spatial + a]) for a in range(spatial))
    return y[(slice(None), slice(None)) + crop]


nd_x1 = nd_rng.standard_normal([2, 3, 9]).astype(np.float32)
nd_w1 = nd_rng.standard_normal([4, 3, 3]).astype(np.float32)
nd_x3 = nd_rng.standard_normal([1, 4, 5, 6, 5]).astype(np.float32)
nd_w3 = nd_rng.standard_normal([6, 2, 3, 2, 3]).astype(np.float32)
nd_b3 = nd_rng.standard_normal([6]).astype(np.float32)
nd_xt = nd_rng.standard_normal([1, 2, 3, 4, 3]).astype(np.float32)
nd_wt = nd_rng.standard_normal([2, 3, 2, 3, 3]).astype(np.float32)
save(
    helper.make_graph(
        [
            helper.make_node("Conv", ["x1", "w1"], ["y1"], name="conv1d", strides=[2], dilations=[2], auto_pad="SAME_UPPER"),
            helper.make_node("Conv", ["x3", "w3", "b3"], ["y3"], name="conv3d", strides=[2, 1, 2], pads=[1, 0, 1, 1, 1, 0], group=2),
            helper.make_node("ConvTranspose", ["xt", "wt"], ["yt"], name="deconv3d", strides=[2, 1, 2], pads=[1, 0, 1, 0, 1, 0],
                             output_padding=[1, 0, 1]),
        ],
        "conv_nd",
        [helper.make_tensor_value_info("x1", TensorProto.FLOAT, [2, 3, 9]),
         helper.make_tensor_value_info("x3", TensorProto.FLOAT, [1, 4, 5, 6, 5]),
         helper.make_tensor_value_info("xt", TensorProto.FLOAT, [1, 2, 3, 4, 3]),
         helper.make_tensor_value_info("wt", TensorProto.FLOAT, [2, 3, 2, 3, 3])],
        [helper.make_tensor_value_info("y1", TensorProto.FLOAT, [2, 4, 5]),
         helper.make_tensor_value_info("y3", TensorProto.FLOAT, [1, 6, 3, 6, 2]),
         helper.make_tensor_value_info("yt", TensorProto.FLOAT, [1, 3, 6, 5, 7])],
        [numpy_helper.from_array(nd_w1, "w1"), numpy_helper.from_array(nd_w3, "w3"), numpy_helper.from_array(nd_b3, "b3")],
    ),
    "conv_nd.onnx",
)
nd_y1 = conv_nd_reference(nd_x1, nd_w1, None, [2], [2, 2], [2], 1)
nd_y3 = conv_nd_reference(nd_x3, nd_w3, nd_b3, [2, 1, 2], [1, 0, 1, 1, 1, 0], [1, 1, 1], 2)
nd_yt = conv_transpose_reference(nd_xt, nd_wt, [2, 1, 2], [1, 0, 1, 0, 1, 0], [1, 0, 1], [1, 1, 1])
for name, value in [("x1", nd_x1), ("x3", nd_x3), ("xt", nd_xt), ("wt", nd_wt), ("y1", nd_y1), ("y3", nd_y3), ("yt", nd_yt)]:
    np.save(f"../../driver/inputs/conv_nd_{name}.npy", value.astype(np.float32))

# A Loop unrolled at import: trip count 3 (a constant), the condition true; the body adds the
# outer-scope input to the carried value and scans carried * iteration number; Ceil and Floor
# of the input at run time. Expected outputs for lit-tests/driver/loop.mlir.
loop_x = np.array([0.5, -1.25], dtype=np.float32)
loop_body = helper.make_graph(
    [
        helper.make_node("Identity", ["cond"], ["cond_out"], name="keep_going"),
        helper.make_node("Add", ["acc", "x"], ["acc_out"], name="accumulate"),
        helper.make_node("Cast", ["i"], ["i_f"], name="number", to=TensorProto.FLOAT),
        helper.make_node("Mul", ["acc", "i_f"], ["scan"], name="scaled"),
    ],
    "loop_body",
    [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
     helper.make_tensor_value_info("acc", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [2]),
     helper.make_tensor_value_info("scan", TensorProto.FLOAT, [2])],
)
save(
    helper.make_graph(
        [
            helper.make_node("Loop", ["trips", "true", "x"], ["acc_final", "scans"], name="unrolled", body=loop_body),
            helper.make_node("Ceil", ["x"], ["up"], name="ceil"),
            helper.make_node("Floor", ["x"], ["down"], name="floor"),
        ],
        "loop",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("acc_final", TensorProto.FLOAT, [2]), helper.make_tensor_value_info("scans", TensorProto.FLOAT, [3, 2]),
         helper.make_tensor_value_info("up", TensorProto.FLOAT, [2]), helper.make_tensor_value_info("down", TensorProto.FLOAT, [2])],
        [ints("trips", 3), numpy_helper.from_array(np.array(True), "true")],
    ),
    "loop.onnx",
)
loop_acc, loop_scans = loop_x.copy(), []
for i in range(3):
    loop_scans.append(loop_acc * np.float32(i))
    loop_acc = loop_acc + loop_x
for name, value in [("x", loop_x), ("acc_final", loop_acc), ("scans", np.stack(loop_scans)), ("up", np.ceil(loop_x)), ("down", np.floor(loop_x))]:
    np.save(f"../../driver/inputs/loop_{name}.npy", value.astype(np.float32))
# The same Loop with its trip count a run-time input: an error naming it.
save(
    helper.make_graph(
        [helper.make_node("Loop", ["trips", "true", "x"], ["acc_final", "scans"], name="unrolled", body=loop_body)],
        "loop_runtime",
        [helper.make_tensor_value_info("trips", TensorProto.INT64, []), helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("acc_final", TensorProto.FLOAT, [2]), helper.make_tensor_value_info("scans", TensorProto.FLOAT, [3, 2])],
        [numpy_helper.from_array(np.array(True), "true")],
    ),
    "loop_runtime.onnx",
)

# One error each, for lit-tests/frontend/invalid.mlir: a training-mode Dropout with a random
# mask, the Indices of a 3-D MaxPool, an unknown E8M0 round_mode, BatchNormalization's running
# statistics outside training mode.
for name, nodes, inputs, outputs, inits in [
    ("invalid_dropout", [helper.make_node("Dropout", ["x", "ratio", "training"], ["y"], name="dropout_random")],
     [("x", [2, 3])], [("y", TensorProto.FLOAT, [2, 3])],
     [numpy_helper.from_array(np.array(0.5, dtype=np.float32), "ratio"), numpy_helper.from_array(np.array(True), "training")]),
    ("invalid_pool_indices", [helper.make_node("MaxPool", ["x"], ["y", "i"], name="pool3d", kernel_shape=[2, 2, 2])],
     [("x", [1, 1, 4, 4, 4])], [("y", TensorProto.FLOAT, [1, 1, 3, 3, 3]), ("i", TensorProto.INT64, [1, 1, 3, 3, 3])], []),
    ("invalid_round_mode", [helper.make_node("Cast", ["x"], ["y"], name="cast_e8m0", to=TensorProto.FLOAT8E8M0, round_mode="sideways")],
     [("x", [4])], [("y", TensorProto.FLOAT8E8M0, [4])], []),
    ("invalid_bn_running", [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm", "rv"], name="bn_inference")],
     [("x", [1, 2, 3])], [("y", TensorProto.FLOAT, [1, 2, 3]), ("rm", TensorProto.FLOAT, [2]), ("rv", TensorProto.FLOAT, [2])],
     [numpy_helper.from_array(np.ones(2, dtype=np.float32), n) for n in ["s", "b", "m", "v"]]),
]:
    save(
        helper.make_graph(nodes, name, [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in inputs],
                          [helper.make_tensor_value_info(n, t, s) for n, t, s in outputs], inits),
        f"{name}.onnx",
        opset=24,
    )

# A DenseNet-style block (issue #20): ten layers of `t = Relu(cat); c = Conv1x1(t);
# cat = Concat(cat, c)` on a [1, 2, 2, 2] input. The storage validator refuses one in-place
# write per layer; with fewer repairs allowed than that the optimiser drops them all and still
# optimises (lit-tests/passes/sg-egraph-fallback.mlir).
dense_rng = np.random.default_rng(20)
dense_nodes, dense_inits, cat, channels = [], [], "x", 2
for i in range(10):
    dense_inits.append(numpy_helper.from_array(dense_rng.standard_normal((2, channels, 1, 1)).astype(np.float32), f"w{i}"))
    dense_nodes += [
        helper.make_node("Relu", [cat], [f"t{i}"], name=f"relu{i}"),
        helper.make_node("Conv", [f"t{i}", f"w{i}"], [f"c{i}"], name=f"conv{i}"),
        helper.make_node("Concat", [cat, f"c{i}"], [f"cat{i}"], name=f"concat{i}", axis=1),
    ]
    cat, channels = f"cat{i}", channels + 2
save(
    helper.make_graph(dense_nodes, "dense_block", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 2, 2])],
                      [helper.make_tensor_value_info(cat, TensorProto.FLOAT, [1, channels, 2, 2])], dense_inits),
    "dense_block.onnx",
)
dense_x = dense_rng.standard_normal((1, 2, 2, 2)).astype(np.float32)
np.save("../../driver/inputs/dense_block_x.npy", dense_x)
dense_y = dense_x.astype(np.float64)
for w in dense_inits:
    conv = np.einsum("fc,nchw->nfhw", numpy_helper.to_array(w)[:, :, 0, 0].astype(np.float64), np.maximum(dense_y, 0))
    dense_y = np.concatenate([dense_y, conv], axis=1)
np.save("../../driver/inputs/dense_block_y.npy", dense_y.astype(np.float32))

# If: a condition on a frozen input folds to the taken branch (nested Ifs too); a condition
# computed at run time becomes scf.if (both branches yield [2, 3]).
def branch(name, nodes, outputs, initializers=()):
    return helper.make_graph(nodes, name, [], outputs, list(initializers))


inner = helper.make_node(
    "If", ["big"], ["inner"], name="inner_if",
    then_branch=branch("inner_then", [helper.make_node("Relu", ["x"], ["r"], name="relu_then")],
                       [helper.make_tensor_value_info("r", TensorProto.FLOAT, [2, 3])]),
    else_branch=branch("inner_else", [helper.make_node("Neg", ["x"], ["n"], name="neg_else")],
                       [helper.make_tensor_value_info("n", TensorProto.FLOAT, [2, 3])]),
)
save(
    helper.make_graph(
        [
            helper.make_node("Equal", ["rate", "sixteen"], ["is16"], name="is16"),
            helper.make_node("Greater", ["rate", "ten"], ["big"], name="big"),
            helper.make_node(
                "If", ["is16"], ["y"], name="outer_if",
                then_branch=branch("outer_then", [inner], [helper.make_tensor_value_info("inner", TensorProto.FLOAT, [2, 3])]),
                else_branch=branch("outer_else", [helper.make_node("Exp", ["x"], ["e"], name="exp_else")],
                                   [helper.make_tensor_value_info("e", TensorProto.FLOAT, [2, 3])]),
            ),
            helper.make_node(
                "If", ["flag"], ["z"], name="runtime_if",
                then_branch=branch("rt_then", [helper.make_node("Add", ["x", "y"], ["s"], name="add_then")],
                                   [helper.make_tensor_value_info("s", TensorProto.FLOAT, [2, 3])]),
                else_branch=branch("rt_else", [helper.make_node("Mul", ["x", "two"], ["m"], name="mul_else")],
                                   [helper.make_tensor_value_info("m", TensorProto.FLOAT, [2, 3])],
                                   [numpy_helper.from_array(np.float32(2.0), "two")]),
            ),
        ],
        "if",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("rate", TensorProto.INT64, []),
         helper.make_tensor_value_info("flag", TensorProto.BOOL, [])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3])],
        [numpy_helper.from_array(np.int64(16000), "sixteen"), numpy_helper.from_array(np.int64(10000), "ten")],
    ),
    "if.onnx",
)
with open("if_rate.pb", "wb") as f:
    f.write(numpy_helper.from_array(np.int64(16000), "rate").SerializeToString())
# Pow by a constant 1, 2 or 3 (every value; a scalar or a broadcast vector) is imported as
# products; another exponent stays a pow.
pow_x = (np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5) * 0.75
save(
    helper.make_graph(
        [
            helper.make_node("Pow", ["x", "two"], ["squared"], name="square"),
            helper.make_node("Pow", ["x", "threes"], ["cubed"], name="cube"),
            helper.make_node("Pow", ["x", "one"], ["same"], name="identity"),
            helper.make_node("Abs", ["x"], ["magnitude"], name="abs"),
            helper.make_node("Pow", ["magnitude", "half"], ["root"], name="root"),
        ],
        "pow",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2, 3]) for n in ("squared", "cubed", "same", "root")],
        [numpy_helper.from_array(np.float32(2.0), "two"), numpy_helper.from_array(np.full(3, 3.0, np.float32), "threes"),
         numpy_helper.from_array(np.array([1], np.int64), "one"), numpy_helper.from_array(np.float32(0.5), "half")],
    ),
    "pow.onnx",
)
np.save("../../driver/inputs/pow_x.npy", pow_x)
np.save("../../driver/inputs/pow_squared.npy", pow_x ** 2)
np.save("../../driver/inputs/pow_cubed.npy", pow_x ** 3)
np.save("../../driver/inputs/pow_root.npy", np.abs(pow_x) ** np.float32(0.5))

# A taken branch with activations of its own (x @ w1 -> Relu -> @ w2): `strata plan` counts
# them in its in-order reference, as the branch's nodes run one by one.
plan_rng = np.random.default_rng(808)
save(
    helper.make_graph(
        [
            helper.make_node("Equal", ["rate", "sixteen"], ["is16"], name="is16"),
            helper.make_node(
                "If", ["is16"], ["y"], name="taken_if",
                then_branch=branch("wide", [helper.make_node("MatMul", ["x", "w1"], ["a"], name="up"),
                                            helper.make_node("Relu", ["a"], ["b"], name="act"),
                                            helper.make_node("MatMul", ["b", "w2"], ["c"], name="down")],
                                   [helper.make_tensor_value_info("c", TensorProto.FLOAT, [1, 4])]),
                else_branch=branch("narrow", [helper.make_node("Neg", ["x"], ["n"], name="neg")],
                                   [helper.make_tensor_value_info("n", TensorProto.FLOAT, [1, 4])]),
            ),
            helper.make_node("Add", ["y", "x"], ["z"], name="residual"),
        ],
        "if_plan",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4]),
         helper.make_tensor_value_info("rate", TensorProto.INT64, [])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 4])],
        [numpy_helper.from_array(np.int64(16000), "sixteen"),
         numpy_helper.from_array(plan_rng.standard_normal((4, 8)).astype(np.float32), "w1"),
         numpy_helper.from_array(plan_rng.standard_normal((8, 4)).astype(np.float32), "w2")],
    ),
    "if_plan.onnx",
)
if_x = (np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5)
np.save("../../driver/inputs/if_x.npy", if_x)
np.save("../../driver/inputs/if_flag_true.npy", np.array(True))
np.save("../../driver/inputs/if_flag_false.npy", np.array(False))
np.save("../../driver/inputs/if_z_true.npy", if_x + np.maximum(if_x, 0))
np.save("../../driver/inputs/if_z_false.npy", if_x * 2)

# Quantization: QuantizeLinear (per-axis scale, uint8 zero point) then DequantizeLinear, and
# an int8 QLinearMatMul, with NumPy's reference results.
q_x = (np.arange(8, dtype=np.float32).reshape(2, 4) - 3.3) * 0.37
q_scale = np.array([0.05, 0.1], np.float32)
q_zero = np.array([3, 128], np.uint8)
q_q = np.clip(np.rint(q_x / q_scale[:, None]).astype(np.int32) + q_zero[:, None], 0, 255).astype(np.uint8)
q_y = (q_q.astype(np.float32) - q_zero[:, None].astype(np.float32)) * q_scale[:, None]
mm_b = np.array([[1, -2, 3], [4, 5, -6], [-7, 8, 9], [10, -11, 12]], np.int8)
mm_acc = np.matmul(q_q.astype(np.int32) - q_zero[0], mm_b.astype(np.int32))
mm_y = np.clip(np.rint(mm_acc * (np.float32(0.05) * np.float32(0.02) / np.float32(0.01)) + 7), -128, 127).astype(np.int8)
save(
    helper.make_graph(
        [
            helper.make_node("QuantizeLinear", ["x", "scale", "zero"], ["q"], name="quantize", axis=0),
            helper.make_node("DequantizeLinear", ["q", "scale", "zero"], ["y"], name="dequantize", axis=0),
            helper.make_node("QLinearMatMul", ["q", "a_scale", "a_zero", "b", "b_scale", "b_zero", "y_scale", "y_zero"],
                             ["m"], name="qmatmul"),
        ],
        "quant",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4]),
         helper.make_tensor_value_info("m", TensorProto.INT8, [2, 3])],
        [numpy_helper.from_array(q_scale, "scale"), numpy_helper.from_array(q_zero, "zero"),
         numpy_helper.from_array(np.float32(0.05), "a_scale"), numpy_helper.from_array(np.uint8(3), "a_zero"),
         numpy_helper.from_array(mm_b, "b"), numpy_helper.from_array(np.float32(0.02), "b_scale"),
         numpy_helper.from_array(np.int8(0), "b_zero"), numpy_helper.from_array(np.float32(0.01), "y_scale"),
         numpy_helper.from_array(np.int8(7), "y_zero")],
    ),
    "quant.onnx",
)
np.save("../../driver/inputs/quant_x.npy", q_x)
np.save("../../driver/inputs/quant_y.npy", q_y)
np.save("../../driver/inputs/quant_m.npy", mm_y)

# Composite operators (imported as subgraphs of others) and constant-valued ones, with NumPy's
# results: ReduceLogSumExp, RMSNormalization, DepthToSpace, Trilu, OneHot and a Hann window.
c_x = (np.arange(24, dtype=np.float32).reshape(2, 3, 4) - 11.5) / 4
c_scale = np.array([1.0, 0.5, 2.0, -1.0], np.float32)
c_idx = np.array([0, 3, -1], np.int64)
c_lse = np.log(np.sum(np.exp(c_x), axis=2))
c_rms = c_x / np.sqrt(np.mean(c_x * c_x, axis=2, keepdims=True) + 1e-5) * c_scale
c_d2s = c_x.reshape(1, 4, 3, 2).reshape(1, 2, 2, 1, 3, 2).transpose(0, 3, 4, 1, 5, 2).reshape(1, 1, 6, 4)
c_tri = np.triu(c_x, 1)
c_hot = np.where(np.arange(4)[None, :] == np.where(c_idx < 0, c_idx + 4, c_idx)[:, None], 5.0, -1.0).astype(np.float32)
c_hann = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(5) / 5)).astype(np.float32)
save(
    helper.make_graph(
        [
            helper.make_node("ReduceLogSumExp", ["x", "last"], ["lse"], name="lse", keepdims=0),
            helper.make_node("RMSNormalization", ["x", "scale"], ["rms"], name="rms", axis=-1),
            helper.make_node("Reshape", ["x", "nchw"], ["x4"], name="as_nchw"),
            helper.make_node("DepthToSpace", ["x4"], ["d2s"], name="d2s", blocksize=2, mode="DCR"),
            helper.make_node("Trilu", ["x", "one"], ["tri"], name="triu", upper=1),
            helper.make_node("OneHot", ["idx", "depth", "on_off"], ["hot"], name="onehot"),
            helper.make_node("HannWindow", ["size"], ["hann"], name="hann"),
        ],
        "composite",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4]),
         helper.make_tensor_value_info("idx", TensorProto.INT64, [3])],
        [helper.make_tensor_value_info("lse", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("rms", TensorProto.FLOAT, [2, 3, 4]),
         helper.make_tensor_value_info("d2s", TensorProto.FLOAT, [1, 1, 6, 4]),
         helper.make_tensor_value_info("tri", TensorProto.FLOAT, [2, 3, 4]),
         helper.make_tensor_value_info("hot", TensorProto.FLOAT, [3, 4]),
         helper.make_tensor_value_info("hann", TensorProto.FLOAT, [5])],
        [numpy_helper.from_array(np.array([2], np.int64), "last"), numpy_helper.from_array(c_scale, "scale"),
         numpy_helper.from_array(np.array([1, 4, 3, 2], np.int64), "nchw"), numpy_helper.from_array(np.int64(1), "one"),
         numpy_helper.from_array(np.int64(4), "depth"), numpy_helper.from_array(np.array([-1.0, 5.0], np.float32), "on_off"),
         numpy_helper.from_array(np.int64(5), "size")],
    ),
    "composite.onnx",
    opset=23,
)
for name, value in [("x", c_x), ("idx", c_idx), ("lse", c_lse), ("rms", c_rms), ("d2s", c_d2s), ("tri", c_tri),
                    ("hot", c_hot), ("hann", c_hann)]:
    np.save(f"../../driver/inputs/composite_{name}.npy", value.astype(np.float32) if value.dtype == np.float64 else value)

# Attention (opset 23): grouped-query (2 query heads share 1 key/value head), causal, with
# NumPy's reference result.
a_q = (np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4) % 7 - 3) / 4
a_k = (np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4) % 5 - 2) / 3
a_v = (np.arange(12, dtype=np.float32).reshape(1, 1, 3, 4) % 3 - 1) / 2
a_scores = np.matmul(a_q, np.repeat(a_k, 2, axis=1).transpose(0, 1, 3, 2)) / np.sqrt(4)
a_scores = a_scores + np.where(np.arange(3)[None, :] <= np.arange(3)[:, None], 0, -np.inf)
a_p = np.exp(a_scores - a_scores.max(-1, keepdims=True))
a_p = a_p / a_p.sum(-1, keepdims=True)
a_y = np.matmul(a_p, np.repeat(a_v, 2, axis=1)).astype(np.float32)
save(
    helper.make_graph(
        [helper.make_node("Attention", ["q", "k", "v"], ["y"], name="attention", is_causal=1)],
        "attention",
        [helper.make_tensor_value_info("q", TensorProto.FLOAT, [1, 2, 3, 4]),
         helper.make_tensor_value_info("k", TensorProto.FLOAT, [1, 1, 3, 4]),
         helper.make_tensor_value_info("v", TensorProto.FLOAT, [1, 1, 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 3, 4])],
    ),
    "attention.onnx",
    opset=23,
)
for name, value in [("q", a_q), ("k", a_k), ("v", a_v), ("y", a_y)]:
    np.save(f"../../driver/inputs/attention_{name}.npy", value)

# Index and axis operators with NumPy's results: GatherElements, ScatterElements (add, a
# repeated index), ArgMax (last of ties), CumSum (reverse, exclusive), Einsum with an ellipsis,
# TopK.
i_x = np.array([[3.0, 1.0, 3.0, 2.0], [0.5, 4.0, 4.0, -1.0], [2.0, 2.0, 0.0, 5.0]], np.float32)
i_idx = np.array([[3, 0], [1, 1], [-1, 2]], np.int64)
i_ge = np.take_along_axis(i_x, np.where(i_idx < 0, i_idx + 4, i_idx), axis=1)
i_sc = i_x.copy()
for r in range(3):
    for c in range(2):
        i_sc[r, np.where(i_idx < 0, i_idx + 4, i_idx)[r, c]] += i_ge[r, c]
i_am = (3 - np.argmax(i_x[:, ::-1], axis=1)).astype(np.int64)
i_cs = np.flip(np.cumsum(np.flip(i_x, 1), 1), 1) - i_x
i_es = np.einsum("...ij,jk->...ik", i_x.reshape(1, 3, 4), i_x.T).astype(np.float32)
i_order = np.argsort(-i_x, axis=1, kind="stable")[:, :2]
i_tv, i_ti = np.take_along_axis(i_x, i_order, 1), i_order.astype(np.int64)
save(
    helper.make_graph(
        [
            helper.make_node("GatherElements", ["x", "idx"], ["ge"], name="gather", axis=1),
            helper.make_node("ScatterElements", ["x", "idx", "ge"], ["sc"], name="scatter", axis=1, reduction="add"),
            helper.make_node("ArgMax", ["x"], ["am"], name="argmax", axis=1, keepdims=0, select_last_index=1),
            helper.make_node("CumSum", ["x", "one"], ["cs"], name="cumsum", reverse=1, exclusive=1),
            helper.make_node("Reshape", ["x", "batched"], ["xb"], name="batch"),
            helper.make_node("Transpose", ["x"], ["xt"], name="transpose"),
            helper.make_node("Einsum", ["xb", "xt"], ["es"], name="einsum", equation="...ij,jk->...ik"),
            helper.make_node("TopK", ["x", "two"], ["tv", "ti"], name="topk", axis=1),
        ],
        "indexing",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
        [helper.make_tensor_value_info("ge", TensorProto.FLOAT, [3, 2]),
         helper.make_tensor_value_info("sc", TensorProto.FLOAT, [3, 4]),
         helper.make_tensor_value_info("am", TensorProto.INT64, [3]),
         helper.make_tensor_value_info("cs", TensorProto.FLOAT, [3, 4]),
         helper.make_tensor_value_info("es", TensorProto.FLOAT, [1, 3, 3]),
         helper.make_tensor_value_info("tv", TensorProto.FLOAT, [3, 2]),
         helper.make_tensor_value_info("ti", TensorProto.INT64, [3, 2])],
        [numpy_helper.from_array(i_idx, "idx"), numpy_helper.from_array(np.int64(1), "one"),
         numpy_helper.from_array(np.array([1, 3, 4], np.int64), "batched"), numpy_helper.from_array(np.array([2], np.int64), "two")],
    ),
    "indexing.onnx",
)
for name, value in [("x", i_x), ("ge", i_ge), ("sc", i_sc), ("am", i_am), ("cs", i_cs), ("es", i_es), ("tv", i_tv),
                    ("ti", i_ti)]:
    np.save(f"../../driver/inputs/indexing_{name}.npy", value)

# SoftmaxCrossEntropyLoss with class weights and an ignored index (mean over the weights of
# the counted positions), and its log-probabilities output, with NumPy's results.
l_x = (np.arange(24, dtype=np.float32).reshape(2, 4, 3) % 5 - 2) / 2
l_t = np.array([[1, 3, -100], [0, -100, 2]], np.int64)
l_w = np.array([1.0, 0.5, 2.0, 1.5], np.float32)
l_lp = l_x - l_x.max(1, keepdims=True)
l_lp = l_lp - np.log(np.exp(l_lp).sum(1, keepdims=True))
l_safe = np.where(l_t == -100, 0, l_t)
l_pick = -np.take_along_axis(l_lp, l_safe[:, None, :], 1)[:, 0, :]
l_wt = np.where(l_t == -100, 0, l_w[l_safe])
l_loss = np.array((l_pick * l_wt).sum() / l_wt.sum(), np.float32)
save(
    helper.make_graph(
        [helper.make_node("SoftmaxCrossEntropyLoss", ["x", "t", "w"], ["loss", "lp"], name="sce", ignore_index=-100)],
        "loss",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4, 3]),
         helper.make_tensor_value_info("t", TensorProto.INT64, [2, 3])],
        [helper.make_tensor_value_info("loss", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("lp", TensorProto.FLOAT, [2, 4, 3])],
        [numpy_helper.from_array(l_w, "w")],
    ),
    "loss.onnx",
)
for name, value in [("x", l_x), ("t", l_t), ("loss", l_loss), ("lp", l_lp.astype(np.float32))]:
    np.save(f"../../driver/inputs/loss_{name}.npy", value)

# Loops as one loop body: a run-time trip count and no condition (scf.for to the count), a
# condition computed by the body (scf.while: double until the sum reaches a limit), and a
# carried value that grows every iteration (unrolled at import). Scan over a sequence in
# reverse with a scan output in reverse too. Expected outputs for lit-tests/driver/loop.mlir.
lf_body = helper.make_graph(
    [
        helper.make_node("Identity", ["cond"], ["cond_out"], name="keep"),
        helper.make_node("Mul", ["acc", "two"], ["doubled"], name="double"),
        helper.make_node("Add", ["doubled", "x"], ["acc_out"], name="plus_x"),
    ],
    "lf_body",
    [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
     helper.make_tensor_value_info("acc", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [2])],
    [numpy_helper.from_array(np.array(2.0, np.float32), "two")],
)
save(
    helper.make_graph(
        [helper.make_node("Loop", ["trips", "", "x"], ["acc_final"], name="counted", body=lf_body)],
        "loop_for",
        [helper.make_tensor_value_info("trips", TensorProto.INT64, []), helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("acc_final", TensorProto.FLOAT, [2])],
    ),
    "loop_for.onnx",
)
lf_acc = loop_x.copy()
for _ in range(5):
    lf_acc = lf_acc * np.float32(2) + loop_x
np.save("../../driver/inputs/loop_trips.npy", np.array(5, np.int64))
np.save("../../driver/inputs/loop_for_acc.npy", lf_acc)
lw_body = helper.make_graph(
    [
        helper.make_node("Mul", ["acc", "two"], ["acc_out"], name="double"),
        helper.make_node("ReduceSum", ["acc_out"], ["total"], name="total", keepdims=0),
        helper.make_node("Less", ["total", "limit"], ["cond_out"], name="below"),
    ],
    "lw_body",
    [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
     helper.make_tensor_value_info("acc", TensorProto.FLOAT, [2])],
    [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, [2])],
    [numpy_helper.from_array(np.array(2.0, np.float32), "two")],
)
save(
    helper.make_graph(
        [helper.make_node("Loop", ["", "true", "x"], ["acc_final"], name="doubling", body=lw_body)],
        "loop_while",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]), helper.make_tensor_value_info("limit", TensorProto.FLOAT, [])],
        [helper.make_tensor_value_info("acc_final", TensorProto.FLOAT, [2])],
        [numpy_helper.from_array(np.array(True), "true")],
    ),
    "loop_while.onnx",
)
lw_acc = np.array([0.5, 0.25], np.float32)
np.save("../../driver/inputs/loop_while_x.npy", lw_acc)
np.save("../../driver/inputs/loop_limit.npy", np.array(20.0, np.float32))
while True:
    lw_acc = lw_acc * np.float32(2)
    if not lw_acc.sum() < 20.0:
        break
np.save("../../driver/inputs/loop_while_acc.npy", lw_acc)
lg_body = helper.make_graph(
    [
        helper.make_node("Identity", ["cond"], ["cond_out"], name="keep"),
        helper.make_node("Concat", ["acc", "acc"], ["acc_out"], name="grow", axis=0),
    ],
    "lg_body",
    [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
     helper.make_tensor_value_info("acc", TensorProto.FLOAT, None)],
    [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, None)],
)
save(
    helper.make_graph(
        [helper.make_node("Loop", ["trips", "true", "x"], ["acc_final"], name="growing", body=lg_body)],
        "loop_grow",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
        [helper.make_tensor_value_info("acc_final", TensorProto.FLOAT, [16])],
        [ints("trips", 3), numpy_helper.from_array(np.array(True), "true")],
    ),
    "loop_grow.onnx",
)
np.save("../../driver/inputs/loop_grow_acc.npy", np.tile(loop_x, 8))
sc_body = helper.make_graph(
    [
        helper.make_node("Add", ["sum_in", "next"], ["sum_out"], name="accumulate"),
        helper.make_node("Mul", ["sum_out", "next"], ["scan_out"], name="weigh"),
    ],
    "sc_body",
    [helper.make_tensor_value_info("sum_in", TensorProto.FLOAT, [3]), helper.make_tensor_value_info("next", TensorProto.FLOAT, [3])],
    [helper.make_tensor_value_info("sum_out", TensorProto.FLOAT, [3]), helper.make_tensor_value_info("scan_out", TensorProto.FLOAT, [3])],
)
save(
    helper.make_graph(
        [helper.make_node("Scan", ["init", "seq"], ["total", "weighed"], name="scan", body=sc_body, num_scan_inputs=1,
                          scan_input_axes=[1], scan_input_directions=[1], scan_output_axes=[1], scan_output_directions=[1])],
        "scan",
        [helper.make_tensor_value_info("init", TensorProto.FLOAT, [3]), helper.make_tensor_value_info("seq", TensorProto.FLOAT, [3, 4])],
        [helper.make_tensor_value_info("total", TensorProto.FLOAT, [3]), helper.make_tensor_value_info("weighed", TensorProto.FLOAT, [3, 4])],
    ),
    "scan.onnx",
)
sc_init = np.array([1.0, -2.0, 0.5], np.float32)
sc_seq = (np.arange(12, dtype=np.float32).reshape(3, 4) - 5) / 4
sc_sum, sc_out = sc_init.copy(), np.zeros((3, 4), np.float32)
for t in reversed(range(4)):
    sc_sum = sc_sum + sc_seq[:, t]
    sc_out[:, 3 - (3 - t)] = sc_sum * sc_seq[:, t]
for name, value in [("init", sc_init), ("seq", sc_seq), ("total", sc_sum), ("weighed", sc_out)]:
    np.save(f"../../driver/inputs/scan_{name}.npy", value)

# GridSample (bilinear, reflection padding, and bicubic with zeros padding) and RotaryEmbedding
# (interleaved, partial rotation, position ids), with ONNX's reference results, for
# lit-tests/frontend/grid-rotary.mlir.
from onnx.reference import ReferenceEvaluator

gs_x = (np.arange(24, dtype=np.float32).reshape(1, 2, 3, 4) - 10) / 3
gs_grid = np.linspace(-1.4, 1.3, 1 * 2 * 3 * 2, dtype=np.float32).reshape(1, 2, 3, 2)
re_x = np.linspace(-1, 1, 2 * 3 * 8, dtype=np.float32).reshape(1, 2, 3, 8)
re_pos = np.array([[2, 0, 1]], np.int64)
re_cos = np.cos(np.arange(8, dtype=np.float32).reshape(4, 2) / 3).astype(np.float32)
re_sin = np.sin(np.arange(8, dtype=np.float32).reshape(4, 2) / 3).astype(np.float32)
gr_model = helper.make_model(
    helper.make_graph(
        [
            helper.make_node("GridSample", ["x", "grid"], ["linear"], name="linear_reflect", mode="linear",
                             padding_mode="reflection"),
            helper.make_node("GridSample", ["x", "grid"], ["cubic"], name="cubic_zeros", mode="cubic",
                             align_corners=1),
            helper.make_node("RotaryEmbedding", ["q", "cos", "sin", "pos"], ["rotated"], name="rope", interleaved=1,
                             rotary_embedding_dim=4),
        ],
        "grid_rotary",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 4]),
         helper.make_tensor_value_info("grid", TensorProto.FLOAT, [1, 2, 3, 2]),
         helper.make_tensor_value_info("q", TensorProto.FLOAT, [1, 2, 3, 8]),
         helper.make_tensor_value_info("pos", TensorProto.INT64, [1, 3])],
        [helper.make_tensor_value_info("linear", TensorProto.FLOAT, [1, 2, 2, 3]),
         helper.make_tensor_value_info("cubic", TensorProto.FLOAT, [1, 2, 2, 3]),
         helper.make_tensor_value_info("rotated", TensorProto.FLOAT, [1, 2, 3, 8])],
        [numpy_helper.from_array(re_cos, "cos"), numpy_helper.from_array(re_sin, "sin")],
    ),
    opset_imports=[helper.make_opsetid("", 23)],
    producer_name="strata-fixtures",
)
onnx.checker.check_model(gr_model)
onnx.save(gr_model, "grid_rotary.onnx")
gr_out = ReferenceEvaluator(gr_model).run(None, {"x": gs_x, "grid": gs_grid, "q": re_x, "pos": re_pos})
for name, value in [("x", gs_x), ("grid", gs_grid), ("q", re_x), ("pos", re_pos), ("linear", gr_out[0]),
                    ("cubic", gr_out[1]), ("rotated", gr_out[2])]:
    np.save(f"../../driver/inputs/grid_rotary_{name}.npy", value)

# Positions computed at import: Compress with a constant condition, ReverseSequence with
# constant lengths, MaxUnpool into a larger output_shape, AffineGrid for a constant size, and
# SwiGLU; ONNX's reference results, for lit-tests/frontend/select.mlir.
se_x = np.arange(12, dtype=np.float32).reshape(3, 4) / 4 - 1
se_pool = np.array([[[[5.0, 6.0], [7.0, 8.0]]]], np.float32)
se_theta = np.array([[[1.0, 0.2, 0.1], [-0.3, 0.9, 0.0]]], np.float32)
se_model = helper.make_model(
    helper.make_graph(
        [
            helper.make_node("Compress", ["x", "keep"], ["kept"], name="compress", axis=1),
            helper.make_node("ReverseSequence", ["x", "lens"], ["reversed"], name="reverse", time_axis=1, batch_axis=0),
            helper.make_node("MaxUnpool", ["pool", "where", "unpooled_shape"], ["unpooled"], name="unpool",
                             kernel_shape=[2, 2], strides=[2, 2]),
            helper.make_node("AffineGrid", ["theta", "size"], ["grid"], name="affine", align_corners=0),
            helper.make_node("SwiGLU", ["x", "x"], ["gated"], name="swiglu", alpha=1.5),
        ],
        "select",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4]),
         helper.make_tensor_value_info("pool", TensorProto.FLOAT, [1, 1, 2, 2]),
         helper.make_tensor_value_info("theta", TensorProto.FLOAT, [1, 2, 3])],
        [helper.make_tensor_value_info("kept", TensorProto.FLOAT, [3, 2]),
         helper.make_tensor_value_info("reversed", TensorProto.FLOAT, [3, 4]),
         helper.make_tensor_value_info("unpooled", TensorProto.FLOAT, [1, 1, 5, 5]),
         helper.make_tensor_value_info("grid", TensorProto.FLOAT, [1, 2, 3, 2]),
         helper.make_tensor_value_info("gated", TensorProto.FLOAT, [3, 4])],
        [numpy_helper.from_array(np.array([False, True, False, True]), "keep"),
         ints("lens", [4, 2, 1]), ints("where", [[[[5, 7], [13, 15]]]]), ints("unpooled_shape", [1, 1, 5, 5]),
         ints("size", [1, 1, 2, 3])],
    ),
    opset_imports=[helper.make_opsetid("", 28)],
    producer_name="strata-fixtures",
)
onnx.checker.check_model(se_model)
onnx.save(se_model, "select.onnx")
se_out = ReferenceEvaluator(se_model).run(None, {"x": se_x, "pool": se_pool, "theta": se_theta})
for name, value in [("x", se_x), ("pool", se_pool), ("theta", se_theta), ("kept", se_out[0]), ("reversed", se_out[1]),
                    ("unpooled", se_out[2]), ("grid", se_out[3]), ("gated", se_out[4])]:
    np.save(f"../../driver/inputs/select_{name}.npy", value)

# Sequences resolved at import: split into a sequence, erase the last element, a Loop that
# appends a scaled column per iteration (a carried sequence: unrolled), then stack; and the
# length. ONNX's reference results, for lit-tests/frontend/sequence.mlir.
sq_x = np.arange(12, dtype=np.float32).reshape(3, 4) / 2 - 1
sq_body = helper.make_graph(
    [
        helper.make_node("Identity", ["cond"], ["cond_out"], name="keep"),
        helper.make_node("Cast", ["i"], ["i_f"], name="number", to=TensorProto.FLOAT),
        helper.make_node("SequenceAt", ["s", "zero"], ["head"], name="head"),
        helper.make_node("Mul", ["head", "i_f"], ["scaled"], name="scale"),
        helper.make_node("SequenceInsert", ["s", "scaled"], ["s_out"], name="append"),
    ],
    "sq_body",
    [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
     helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, [3])],
    [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
     helper.make_tensor_sequence_value_info("s_out", TensorProto.FLOAT, [3])],
    [ints("zero", 0)],
)
sq_model = helper.make_model(
    helper.make_graph(
        [
            helper.make_node("SplitToSequence", ["x"], ["columns"], name="split", axis=1, keepdims=0),
            helper.make_node("SequenceErase", ["columns", "last"], ["three"], name="erase"),
            helper.make_node("Loop", ["trips", "true", "three"], ["grown"], name="grow", body=sq_body),
            helper.make_node("ConcatFromSequence", ["grown"], ["stacked"], name="stack", axis=0, new_axis=1),
            helper.make_node("SequenceLength", ["grown"], ["count"], name="count"),
        ],
        "sequence",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 4])],
        [helper.make_tensor_value_info("stacked", TensorProto.FLOAT, [5, 3]),
         helper.make_tensor_value_info("count", TensorProto.INT64, [])],
        [ints("last", -1), ints("trips", 2), numpy_helper.from_array(np.array(True), "true")],
    ),
    opset_imports=[helper.make_opsetid("", 17)],
    producer_name="strata-fixtures",
)
onnx.checker.check_model(sq_model)
onnx.save(sq_model, "sequence.onnx")
sq_out = ReferenceEvaluator(sq_model).run(None, {"x": sq_x})
for name, value in [("x", sq_x), ("stacked", sq_out[0]), ("count", np.array(sq_out[1], np.int64))]:
    np.save(f"../../driver/inputs/sequence_{name}.npy", value)

# A log-mel front-end (STFT with a Hann window, power, MelWeightMatrix, Log) and a DFT round
# trip (a one-sided forward DFT then its one-sided inverse along axis 1); ONNX's reference
# results, for lit-tests/frontend/spectral.mlir.
sp_signal = np.sin(np.arange(64, dtype=np.float32) / 3).reshape(1, 64, 1) + np.float32(0.1)
sp_window = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(32) / 32)).astype(np.float32)
sp_model = helper.make_model(
    helper.make_graph(
        [
            helper.make_node("STFT", ["signal", "step", "window"], ["spectrum"], name="stft", onesided=1),
            helper.make_node("Mul", ["spectrum", "spectrum"], ["squares"], name="square"),
            helper.make_node("ReduceSum", ["squares", "last"], ["power"], name="power", keepdims=0),
            helper.make_node("MelWeightMatrix", ["bins", "length", "rate", "low", "high"], ["filters"], name="mel"),
            helper.make_node("MatMul", ["power", "filters"], ["mel_power"], name="apply"),
            helper.make_node("Add", ["mel_power", "floor"], ["floored"], name="floor"),
            helper.make_node("Log", ["floored"], ["log_mel"], name="log"),
            helper.make_node("DFT", ["signal", "", "axis"], ["rfft"], name="rfft", onesided=1),
            helper.make_node("DFT", ["rfft", "", "axis"], ["round_trip"], name="irfft", onesided=1, inverse=1),
        ],
        "spectral",
        [helper.make_tensor_value_info("signal", TensorProto.FLOAT, [1, 64, 1])],
        [helper.make_tensor_value_info("log_mel", TensorProto.FLOAT, [1, 3, 8]),
         helper.make_tensor_value_info("rfft", TensorProto.FLOAT, [1, 33, 2]),
         helper.make_tensor_value_info("round_trip", TensorProto.FLOAT, [1, 64, 1])],
        [ints("step", 16), numpy_helper.from_array(sp_window, "window"), ints("last", [-1]), ints("bins", 8),
         ints("length", 32), ints("rate", 16000), numpy_helper.from_array(np.array(0.0, np.float32), "low"),
         numpy_helper.from_array(np.array(8000.0, np.float32), "high"),
         numpy_helper.from_array(np.array(1e-6, np.float32), "floor"), ints("axis", 1)],
    ),
    opset_imports=[helper.make_opsetid("", 20)],
    producer_name="strata-fixtures",
)
onnx.checker.check_model(sp_model)
onnx.save(sp_model, "spectral.onnx")
sp_out = ReferenceEvaluator(sp_model).run(None, {"signal": sp_signal})
for name, value in [("signal", sp_signal), ("log_mel", sp_out[0]), ("rfft", sp_out[1]), ("round_trip", sp_out[2])]:
    np.save(f"../../driver/inputs/spectral_{name}.npy", value.astype(np.float32))

# Errors of the operators added for real models, for lit-tests/frontend/invalid.mlir: Compress
# on a condition computed at run time, a sequence as a graph output, and a Loop with a run-time
# trip count whose carried value grows (neither one loop body nor unrollable).
ie_grow_body = helper.make_graph(
    [
        helper.make_node("Identity", ["cond"], ["cond_out"], name="keep"),
        helper.make_node("Concat", ["acc", "acc"], ["acc_out"], name="grow", axis=0),
    ],
    "ie_grow_body",
    [helper.make_tensor_value_info("i", TensorProto.INT64, []), helper.make_tensor_value_info("cond", TensorProto.BOOL, []),
     helper.make_tensor_value_info("acc", TensorProto.FLOAT, None)],
    [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []), helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, None)],
)
for name, nodes, inputs, outputs in [
    ("invalid_compress", [helper.make_node("Compress", ["x", "keep"], ["y"], name="compress_runtime", axis=0)],
     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4]), helper.make_tensor_value_info("keep", TensorProto.BOOL, [4])],
     [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]),
    ("invalid_sequence_output", [helper.make_node("SplitToSequence", ["x"], ["pieces"], name="split_out")],
     [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])],
     [helper.make_tensor_sequence_value_info("pieces", TensorProto.FLOAT, None)]),
    ("invalid_loop_growing", [helper.make_node("Loop", ["trips", "", "x"], ["y"], name="grow_runtime", body=ie_grow_body)],
     [helper.make_tensor_value_info("trips", TensorProto.INT64, []), helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])],
     [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)]),
]:
    save(helper.make_graph(nodes, name, inputs, outputs), f"{name}.onnx", opset=17, check=False)

# External data a model file must not reach (lit-tests/frontend/invalid.mlir): a location
# climbing out of the model's directory, an absolute one, and one past the end of the file.
for name, location, offset in [("external_escape", "../../../../../../etc/passwd", None),
                               ("external_absolute", "/etc/passwd", None),
                               ("external_short", "external.weights", "81910")]:
    w = TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[4], data_location=TensorProto.EXTERNAL)
    entries = [("location", location)] + ([("offset", offset)] if offset else [])
    for key, value in entries:
        entry = w.external_data.add()
        entry.key, entry.value = key, value
    save(
        helper.make_graph([helper.make_node("Relu", ["w"], ["y"], name="relu_external")], name, [],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])], [w]),
        f"{name}.onnx",
        check=False,
    )

# Graphs ONNX's checker refuses, for lit-tests/frontend/invalid.mlir (the model is checked
# before anything is imported): a name defined by two nodes, one redefined inside an If
# branch, a graph input and an output listed twice, an attribute of the wrong type, an unknown
# one, a missing required one, a constant Gather index out of range, and inputs of two element
# types bound to one type parameter.
x23 = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
y23 = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
flag = helper.make_tensor_value_info("flag", TensorProto.BOOL, [])
redefine = helper.make_graph([helper.make_node("Relu", ["x"], ["x"], name="relu_again")], "then", [], [x23])
keep = helper.make_graph([helper.make_node("Neg", ["x"], ["n"], name="neg")], "else", [],
                         [helper.make_tensor_value_info("n", TensorProto.FLOAT, [2, 3])])
for name, nodes, inputs, outputs, inits in [
    ("invalid_ssa", [helper.make_node("Relu", ["x"], ["y"], name="first"), helper.make_node("Neg", ["x"], ["y"], name="second")],
     [x23], [y23], []),
    ("invalid_ssa_branch", [helper.make_node("If", ["flag"], ["y"], name="branch", then_branch=redefine, else_branch=keep)],
     [x23, flag], [y23], []),
    ("invalid_input_twice", [helper.make_node("Relu", ["x"], ["y"], name="relu")], [x23, x23], [y23], []),
    ("invalid_output_twice", [helper.make_node("Relu", ["x"], ["y"], name="relu")], [x23], [y23, y23], []),
    ("invalid_attribute_type", [helper.make_node("LeakyRelu", ["x"], ["y"], name="leaky", alpha=2)], [x23], [y23], []),
    ("invalid_attribute_unknown", [helper.make_node("Relu", ["x"], ["y"], name="relu", slope=0.5)], [x23], [y23], []),
    ("invalid_attribute_missing", [helper.make_node("Concat", ["x", "x"], ["y"], name="concat")], [x23],
     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 3])], []),
    ("invalid_gather_constant", [helper.make_node("Gather", ["x", "picks"], ["y"], name="pick", axis=1)], [x23],
     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])], [ints("picks", [0, 3])]),
    # A float64 weight for a float32 input (a generator that forgot a cast): ONNX Runtime
    # refuses it at load; the importer names both inputs and MatMul's type parameter.
    ("invalid_input_types", [helper.make_node("MatMul", ["x", "w64"], ["y"], name="project")], [x23],
     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 2])],
     [helper.make_tensor("w64", TensorProto.DOUBLE, [3, 2], [0.5, 1.0, -1.0, 2.0, 0.0, 1.5])]),
]:
    save(helper.make_graph(nodes, name, inputs, outputs, inits), f"{name}.onnx", opset=17, check=False)

# One value as two graph outputs (an Identity of an output): valid, and each output gets its
# own buffer (lit-tests/driver/two-outputs.mlir).
save(
    helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu"), helper.make_node("Identity", ["y"], ["z"], name="same")],
        "two_outputs",
        [x23],
        [y23, helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 3])],
    ),
    "two_outputs.onnx",
)

# Run-time checks (lit-tests/driver/run-time-checks.mlir): a Gather of a token id computed at
# run time, an integer division and a GatherND; the entry point returns the failed check.
save(
    helper.make_graph(
        [
            helper.make_node("Gather", ["table", "ids"], ["rows"], name="embed"),
            helper.make_node("Div", ["a", "b"], ["q"], name="divide"),
            helper.make_node("GatherND", ["table", "at"], ["picked"], name="pick"),
        ],
        "checked",
        [helper.make_tensor_value_info("table", TensorProto.FLOAT, [4, 3]),
         helper.make_tensor_value_info("ids", TensorProto.INT64, [2]),
         helper.make_tensor_value_info("a", TensorProto.INT32, [3]),
         helper.make_tensor_value_info("b", TensorProto.INT32, [3]),
         helper.make_tensor_value_info("at", TensorProto.INT64, [2, 2])],
        [helper.make_tensor_value_info("rows", TensorProto.FLOAT, [2, 3]),
         helper.make_tensor_value_info("q", TensorProto.INT32, [3]),
         helper.make_tensor_value_info("picked", TensorProto.FLOAT, [2])],
    ),
    "checked.onnx",
)

# ConvTranspose with constant kernels as sub-pixel phase convolutions
# (lit-tests/driver/conv-transpose.mlir): k2s2 with bias, k4s2p1, grouped k3s2 with
# output_padding, asymmetric strides (3, 1), SAME_UPPER, pads large enough to crop the input,
# a 1-D and a 3-D one, and a k1s2 whose odd phases have no taps (zero insertion kept).
# References in float64 here.
ct_rng = np.random.default_rng(7)


def conv_transpose_grouped(x, w, b, strides, pads, output_padding, group):
    spatial = x.ndim - 2
    cg, fg = x.shape[1] // group, w.shape[1]
    full = [strides[i] * (x.shape[2 + i] - 1) + output_padding[i] + w.shape[2 + i] for i in range(spatial)]
    y = np.zeros([x.shape[0], fg * group] + full)
    for i in np.ndindex(*x.shape[2:]):
        for k in np.ndindex(*w.shape[2:]):
            o = tuple(i[a] * strides[a] + k[a] for a in range(spatial))
            for g in range(group):
                xs = x[(slice(None), slice(g * cg, (g + 1) * cg)) + i].astype(np.float64)
                ws = w[(slice(g * cg, (g + 1) * cg), slice(None)) + k].astype(np.float64)
                y[(slice(None), slice(g * fg, (g + 1) * fg)) + o] += xs @ ws
    if b is not None:
        y += b.reshape([1, -1] + [1] * spatial)
    crop = tuple(slice(pads[a], full[a] - pads[spatial + a]) for a in range(spatial))
    return y[(slice(None), slice(None)) + crop]


ct_x = ct_rng.standard_normal([1, 3, 5, 6]).astype(np.float32)
ct_x1 = ct_rng.standard_normal([1, 2, 7]).astype(np.float32)
ct_x3 = ct_rng.standard_normal([1, 2, 3, 4, 3]).astype(np.float32)
ct_cases = [
    # name, input, weight shape, bias, attributes (strides, pads, output_padding, group, auto_pad)
    ("k2s2", "x", [3, 4, 2, 2], True, dict(strides=[2, 2])),
    ("k4s2p1", "x", [3, 4, 4, 4], False, dict(strides=[2, 2], pads=[1, 1, 1, 1])),
    ("grouped", "x", [3, 2, 3, 3], True, dict(strides=[2, 2], pads=[1, 0, 1, 1], output_padding=[1, 0], group=3)),
    ("asym", "x", [3, 2, 3, 2], False, dict(strides=[3, 1], pads=[0, 1, 2, 0])),
    ("same", "x", [3, 2, 3, 3], True, dict(strides=[2, 2], auto_pad="SAME_UPPER")),
    ("cropped", "x", [3, 2, 3, 3], False, dict(strides=[2, 2], pads=[3, 3, 3, 3])),
    ("k1s2", "x", [3, 2, 1, 1], True, dict(strides=[2, 2])),
    ("oned", "x1", [2, 3, 5], True, dict(strides=[3], pads=[2, 1])),
    ("threed", "x3", [2, 3, 2, 3, 3], False, dict(strides=[2, 1, 2], pads=[1, 0, 1, 0, 1, 0], output_padding=[1, 0, 1])),
]
ct_nodes, ct_inits, ct_outputs, ct_refs = [], [], [], {}
ct_inputs = {"x": ct_x, "x1": ct_x1, "x3": ct_x3}
for name, source, wshape, bias, attrs in ct_cases:
    w = ct_rng.standard_normal(wshape).astype(np.float32)
    ct_inits.append(numpy_helper.from_array(w, f"w_{name}"))
    inputs = [source, f"w_{name}"]
    b = None
    if bias:
        b = ct_rng.standard_normal([wshape[1] * attrs.get("group", 1)]).astype(np.float32)
        ct_inits.append(numpy_helper.from_array(b, f"b_{name}"))
        inputs.append(f"b_{name}")
    ct_nodes.append(helper.make_node("ConvTranspose", inputs, [f"y_{name}"], name=name, **attrs))
    x = ct_inputs[source]
    spatial = x.ndim - 2
    strides = attrs["strides"]
    output_padding = attrs.get("output_padding", [0] * spatial)
    if attrs.get("auto_pad") == "SAME_UPPER":
        total = [strides[a] * (x.shape[2 + a] - 1) + output_padding[a] + wshape[2 + a] - x.shape[2 + a] * strides[a] for a in range(spatial)]
        pads = [t // 2 for t in total] + [t - t // 2 for t in total]
    else:
        pads = attrs.get("pads", [0] * 2 * spatial)
    y = conv_transpose_grouped(x, w, b, strides, pads, output_padding, attrs.get("group", 1))
    ct_refs[name] = y
    ct_outputs.append(helper.make_tensor_value_info(f"y_{name}", TensorProto.FLOAT, list(y.shape)))
save(
    helper.make_graph(
        ct_nodes,
        "conv_transpose",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, list(v.shape)) for n, v in ct_inputs.items()],
        ct_outputs,
        ct_inits,
    ),
    "conv_transpose.onnx",
)
for n, v in ct_inputs.items():
    np.save(f"../../driver/inputs/conv_transpose_{n}.npy", v)
for name, y in ct_refs.items():
    np.save(f"../../driver/inputs/conv_transpose_y_{name}.npy", y.astype(np.float32))

# Nearest x2 (asymmetric, floor): an integer upsampling, imported as a broadcast of each
# resized axis (reshape, expand, reshape), not a gather.
save(
    helper.make_graph(
        [helper.make_node("Resize", ["x", "", "scales"], ["up"], name="upsample", mode="nearest",
                          coordinate_transformation_mode="asymmetric", nearest_mode="floor")],
        "resize_nearest2x",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 4, 4])],
        [helper.make_tensor_value_info("up", TensorProto.FLOAT, [1, 2, 8, 8])],
        [numpy_helper.from_array(np.array([1, 1, 2, 2], dtype=np.float32), "scales")],
    ),
    "resize_nearest2x.onnx",
)

# Bilinear from a 1 x 1 map (DeepLab's pooled branch, align_corners): every tap reads the one
# element with weights summing to one, imported as a broadcast, not gather-multiply-sum.
save(
    helper.make_graph(
        [helper.make_node("Resize", ["x", "", "", "sizes"], ["up"], name="pooled_upsample", mode="linear",
                          coordinate_transformation_mode="align_corners")],
        "resize_from_one",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 1, 1])],
        [helper.make_tensor_value_info("up", TensorProto.FLOAT, [1, 3, 5, 7])],
        [numpy_helper.from_array(np.array([1, 3, 5, 7], dtype=np.int64), "sizes")],
    ),
    "resize_from_one.onnx",
)

# Col2Im (torch's Fold, an inverse STFT's overlap-add): 2 channels of 2 x 3 blocks, strides
# (2, 1), dilations (1, 2), pads (1, 0, 0, 1), summed into a 6 x 6 image (its last row past
# the last block's), with NumPy's result; and, for lit-tests/frontend/invalid.mlir, columns
# whose count the geometry does not give.
f_x = ((np.arange(12 * 9, dtype=np.float32).reshape(1, 12, 9) % 11) - 5) / 4
f_image, f_block, f_strides, f_dilations, f_pads = (6, 6), (2, 3), (2, 1), (1, 2), (1, 0, 0, 1)
f_y = np.zeros((1, 2, 6 + 1 + 0, 6 + 0 + 1), np.float32)
for c in range(2):
    for k in range(6):
        ky, kx = divmod(k, 3)
        for l in range(9):
            i, j = divmod(l, 3)
            f_y[0, c, i * 2 + ky, j + kx * 2] += f_x[0, c * 6 + k, l]
f_y = f_y[:, :, 1:7, 0:6]
save(
    helper.make_graph(
        [helper.make_node("Col2Im", ["x", "image", "block"], ["y"], name="fold", strides=list(f_strides),
                          dilations=list(f_dilations), pads=list(f_pads))],
        "col2im",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 12, 9])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 2, 6, 6])],
        [numpy_helper.from_array(np.array(f_image, np.int64), "image"),
         numpy_helper.from_array(np.array(f_block, np.int64), "block")],
    ),
    "col2im.onnx",
    opset=18,
)
np.save("../../driver/inputs/col2im_x.npy", f_x)
np.save("../../driver/inputs/col2im_y.npy", f_y)
save(
    helper.make_graph(
        [helper.make_node("Col2Im", ["x", "image", "block"], ["y"], name="fold_short", strides=[2, 1])],
        "invalid_col2im",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 12, 10])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.array(f_image, np.int64), "image"),
         numpy_helper.from_array(np.array(f_block, np.int64), "block")],
    ),
    "invalid_col2im.onnx",
    opset=18,
    check=False,
)

# A QDQ model's 1x1 convolutions (what `--integer-products` imports as sg.quantized_conv): y
# of a uint8 activation (zero point 128) and an int8 filter with per-channel scales and a
# bias, over 5 x 7 pixels (two 16-pixel registers and 3 pixels); z of an int8 activation (zero
# point -3) and a uint8 filter with per-channel zero points, over 4 x 8; f a stride-2 one that
# keeps the float convolution. References: the exact integer sums, scaled in f32 as the kernel
# scales them (then the bias).
q_rng = np.random.default_rng(48)


def qdq_conv_reference(xq, x_zero, w, w_zero, scale, bias):
    sums = np.einsum("oc,nchw->nohw", (w.astype(np.int64) - w_zero[:, None]), xq.astype(np.int64) - x_zero)
    out = sums.astype(np.float32) * scale.astype(np.float32)[None, :, None, None]
    return out + bias.astype(np.float32)[None, :, None, None] if bias is not None else out


qc_x = q_rng.standard_normal((1, 8, 5, 7)).astype(np.float32)
qc_v = q_rng.standard_normal((1, 8, 4, 8)).astype(np.float32)
qc_w = q_rng.integers(-127, 128, (12, 8, 1, 1)).astype(np.int8)
qc_ws = (q_rng.random(12) * 0.02 + 0.005).astype(np.float32)
qc_b = q_rng.standard_normal(12).astype(np.float32)
qc_u = q_rng.integers(100, 156, (16, 8, 1, 1)).astype(np.uint8)
qc_uz = q_rng.integers(120, 136, 16).astype(np.uint8)
qc_us = (q_rng.random(16) * 0.02 + 0.005).astype(np.float32)
qc_xs, qc_vs = np.float32(0.05), np.float32(0.04)
save(
    helper.make_graph(
        [
            helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="qx"),
            helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"], name="dqx"),
            helper.make_node("DequantizeLinear", ["w", "ws"], ["wd"], name="dqw", axis=0),
            helper.make_node("Conv", ["xd", "wd", "b"], ["y"], name="pointwise"),
            helper.make_node("QuantizeLinear", ["v", "vs", "vz"], ["vq"], name="qv"),
            helper.make_node("DequantizeLinear", ["vq", "vs", "vz"], ["vd"], name="dqv"),
            helper.make_node("DequantizeLinear", ["u", "us", "uz"], ["ud"], name="dqu", axis=0),
            helper.make_node("Conv", ["vd", "ud"], ["z"], name="pointwise_int8"),
            helper.make_node("Conv", ["xd", "wd"], ["f"], name="strided", strides=[2, 2]),
        ],
        "quant_conv",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 5, 7]),
            helper.make_tensor_value_info("v", TensorProto.FLOAT, [1, 8, 4, 8]),
        ],
        [
            helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 12, 5, 7]),
            helper.make_tensor_value_info("z", TensorProto.FLOAT, [1, 16, 4, 8]),
            helper.make_tensor_value_info("f", TensorProto.FLOAT, [1, 12, 3, 4]),
        ],
        [
            numpy_helper.from_array(np.array(qc_xs), "xs"),
            numpy_helper.from_array(np.array(128, np.uint8), "xz"),
            numpy_helper.from_array(qc_w, "w"),
            numpy_helper.from_array(qc_ws, "ws"),
            numpy_helper.from_array(qc_b, "b"),
            numpy_helper.from_array(np.array(qc_vs), "vs"),
            numpy_helper.from_array(np.array(-3, np.int8), "vz"),
            numpy_helper.from_array(qc_u, "u"),
            numpy_helper.from_array(qc_us, "us"),
            numpy_helper.from_array(qc_uz, "uz"),
        ],
    ),
    "quant_conv.onnx",
    opset=13,
)
qc_xq = np.clip(np.round(qc_x / qc_xs) + 128, 0, 255)
qc_vq = np.clip(np.round(qc_v / qc_vs) - 3, -128, 127)
np.save("../../driver/inputs/quant_conv_x.npy", qc_x)
np.save("../../driver/inputs/quant_conv_v.npy", qc_v)
np.save("../../driver/inputs/quant_conv_y.npy",
        qdq_conv_reference(qc_xq, 128, qc_w[:, :, 0, 0], np.zeros(12, np.int64), qc_xs * qc_ws, qc_b))
np.save("../../driver/inputs/quant_conv_z.npy",
        qdq_conv_reference(qc_vq, -3, qc_u[:, :, 0, 0], qc_uz.astype(np.int64), qc_vs * qc_us, None))

# half.onnx: a half-precision model (f16 input, weights, Constant, BatchNormalization; a Cast
# to f16 of an f32 input), which the host computes in f32 between casts.
hf = np.random.default_rng(49)
hf_x = hf.standard_normal((1, 2, 4, 4)).astype(np.float16)
hf_s = hf.standard_normal(4).astype(np.float32)
hf_w = (hf.standard_normal((3, 2, 3, 3)) * 0.5).astype(np.float16)
hf_b = hf.standard_normal(3).astype(np.float16)
hf_bn = [hf.standard_normal(3).astype(np.float16) for _ in range(3)] + [(hf.random(3) + 0.5).astype(np.float16)]
save(
    helper.make_graph(
        [
            helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
            helper.make_node("BatchNormalization", ["c", "g", "beta", "mean", "var"], ["n"], name="bn"),
            helper.make_node("Relu", ["n"], ["r"], name="relu"),
            helper.make_node("Constant", [], ["k"], name="k",
                             value=numpy_helper.from_array(np.array(1.5, np.float16))),
            helper.make_node("Mul", ["r", "k"], ["y"], name="scale"),
            helper.make_node("Cast", ["s"], ["sh"], name="to_half", to=TensorProto.FLOAT16),
            helper.make_node("Add", ["sh", "k"], ["z"], name="shift"),
        ],
        "half",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [1, 2, 4, 4]),
         helper.make_tensor_value_info("s", TensorProto.FLOAT, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [1, 3, 4, 4]),
         helper.make_tensor_value_info("z", TensorProto.FLOAT16, [4])],
        [numpy_helper.from_array(hf_w, "w"), numpy_helper.from_array(hf_b, "b")]
        + [numpy_helper.from_array(v, n) for v, n in zip(hf_bn, ["g", "beta", "mean", "var"])],
    ),
    "half.onnx",
    opset=17,
)
hf_c = np.zeros((1, 3, 4, 4))
hf_xp = np.pad(hf_x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
for o in range(3):
    for i in range(4):
        for j in range(4):
            hf_c[0, o, i, j] = (hf_xp[0, :, i:i + 3, j:j + 3] * hf_w[o].astype(np.float64)).sum() + hf_b[o]
g, beta, mean, var = (v.astype(np.float64).reshape(3, 1, 1) for v in hf_bn)
hf_y = np.maximum((hf_c - mean) / np.sqrt(var + 1e-5) * g + beta, 0) * 1.5
np.save("../../driver/inputs/half_x.npy", hf_x)
np.save("../../driver/inputs/half_s.npy", hf_s)
np.save("../../driver/inputs/half_y.npy", hf_y.astype(np.float16))
np.save("../../driver/inputs/half_z.npy", (hf_s.astype(np.float16).astype(np.float64) + 1.5).astype(np.float16))

# bf16_conv.onnx: an f32 input cast to bf16, a Conv of bf16 weights, Relu, cast back to f32 (a
# bf16 model fed from f32): the host runs the Conv in f32 between casts, with the same rounding.
import ml_dtypes  # noqa: E402  (onnx's own dependency)

bf = np.random.default_rng(4916)
bf_x = bf.standard_normal((1, 4, 5, 5)).astype(np.float32)
bf_w = (bf.standard_normal((8, 4, 3, 3)) * 0.3).astype(ml_dtypes.bfloat16)
bf_b = bf.standard_normal(8).astype(ml_dtypes.bfloat16)


def bf16_initializer(array, name):
    return helper.make_tensor(name, TensorProto.BFLOAT16, array.shape, array.view(np.uint16).tobytes(), raw=True)


save(
    helper.make_graph(
        [
            helper.make_node("Cast", ["x"], ["xb"], name="to_bf16", to=TensorProto.BFLOAT16),
            helper.make_node("Conv", ["xb", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c"], ["r"], name="relu"),
            helper.make_node("Cast", ["r"], ["y"], name="to_f32", to=TensorProto.FLOAT),
        ],
        "bf16_conv",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 5, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 5, 5])],
        [bf16_initializer(bf_w, "w"), bf16_initializer(bf_b, "b")],
    ),
    "bf16_conv.onnx",
    opset=17,
)
bf_xp = np.pad(bf_x.astype(ml_dtypes.bfloat16).astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
bf_c = np.zeros((1, 8, 5, 5))
for o in range(8):
    for i in range(5):
        for j in range(5):
            bf_c[0, o, i, j] = (bf_xp[0, :, i:i + 3, j:j + 3] * bf_w[o].astype(np.float64)).sum() + float(bf_b[o])
np.save("../../driver/inputs/bf16_conv_x.npy", bf_x)
np.save("../../driver/inputs/bf16_conv_y.npy",
        np.maximum(bf_c.astype(np.float32).astype(ml_dtypes.bfloat16).astype(np.float32), 0))

# half_passthrough.onnx: an f16 model one of whose outputs is its input, which the f32 rewrite
# does not model: imported in f16 as it is, with a warning.
save(
    helper.make_graph(
        [helper.make_node("Relu", ["x"], ["y"], name="relu")],
        "half_passthrough",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [4]),
         helper.make_tensor_value_info("x", TensorProto.FLOAT16, [4])],
    ),
    "half_passthrough.onnx",
    opset=17,
)

# flex_attention.onnx: ai.onnx.preview::FlexAttention with grouped key/value heads (4 query
# heads over 2), a score_mod that adds a relative-position bias (an initializer of the graph)
# and a prob_mod that scales the probabilities; the expected output from numpy in f64.
fx = np.random.default_rng(2611)
fx_q = fx.standard_normal((1, 4, 3, 8)).astype(np.float32)
fx_k = fx.standard_normal((1, 2, 5, 8)).astype(np.float32)
fx_v = fx.standard_normal((1, 2, 5, 4)).astype(np.float32)
fx_bias = (0.25 * (np.arange(5)[None, :] - np.arange(3)[:, None])).astype(np.float32)
score_mod = helper.make_graph(
    [helper.make_node("Add", ["scores", "rel"], ["biased"], name="add_bias")],
    "score_mod",
    [helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 4, 3, 5])],
    [helper.make_tensor_value_info("biased", TensorProto.FLOAT, [1, 4, 3, 5])],
    [numpy_helper.from_array(fx_bias, "rel")],
)
prob_mod = helper.make_graph(
    [helper.make_node("Mul", ["probs", "two"], ["scaled"], name="scale_probs")],
    "prob_mod",
    [helper.make_tensor_value_info("probs", TensorProto.FLOAT, [1, 4, 3, 5])],
    [helper.make_tensor_value_info("scaled", TensorProto.FLOAT, [1, 4, 3, 5])],
    [numpy_helper.from_array(np.array(2.0, dtype=np.float32), "two")],
)


def save_flex(graph_name, node_name, check=True, **modifiers):
    """A FlexAttention of Q [1, 4, 3, 8], K [1, 2, 5, 8], V [1, 2, 5, 4] with `modifiers`."""
    save(
        helper.make_graph(
            [helper.make_node("FlexAttention", ["Q", "K", "V"], ["Y"], name=node_name, domain="ai.onnx.preview",
                              **modifiers)],
            graph_name,
            [helper.make_tensor_value_info("Q", TensorProto.FLOAT, [1, 4, 3, 8]),
             helper.make_tensor_value_info("K", TensorProto.FLOAT, [1, 2, 5, 8]),
             helper.make_tensor_value_info("V", TensorProto.FLOAT, [1, 2, 5, 4])],
            [helper.make_tensor_value_info("Y", TensorProto.FLOAT, [1, 4, 3, 4])],
        ),
        f"{graph_name}.onnx",
        opset=23,
        extra_opsets=("ai.onnx.preview",),
        check=check,
    )


save_flex("flex_attention", "flex", score_mod=score_mod, prob_mod=prob_mod)
fx_kr = np.repeat(fx_k.astype(np.float64), 2, axis=1)
fx_vr = np.repeat(fx_v.astype(np.float64), 2, axis=1)
fx_s = fx_q.astype(np.float64) @ fx_kr.transpose(0, 1, 3, 2) / np.sqrt(8) + fx_bias
fx_p = np.exp(fx_s - fx_s.max(-1, keepdims=True))
fx_p = 2 * fx_p / fx_p.sum(-1, keepdims=True)
for name, array in [("q", fx_q), ("k", fx_k), ("v", fx_v), ("y", (fx_p @ fx_vr).astype(np.float32))]:
    np.save(f"../../driver/inputs/flex_attention_{name}.npy", array)

# invalid_flex_mod.onnx: a FlexAttention score_mod that does not keep its input's shape (it
# reduces over the keys): a clean error naming the node and the graph attribute.
bad_mod = helper.make_graph(
    [helper.make_node("ReduceMax", ["scores"], ["reduced"], name="reduce", keepdims=0)],
    "score_mod",
    [helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 4, 3, 5])],
    [helper.make_tensor_value_info("reduced", TensorProto.FLOAT, [1, 4, 3])],
)
save_flex("invalid_flex_mod", "flex_bad", check=False, score_mod=bad_mod)

# optional.onnx: optionals resolved at import: Optional(x) is x (its element got back and
# used), an Optional without input is empty, OptionalHasElement of each is a constant.
# invalid_optional.onnx: OptionalGetElement of an empty optional.
tensor_type = helper.make_tensor_type_proto(TensorProto.FLOAT, [3])
save(
    helper.make_graph(
        [
            helper.make_node("Optional", ["x"], ["some"], name="wrap"),
            helper.make_node("Optional", [], ["none"], name="empty", type=tensor_type),
            helper.make_node("OptionalHasElement", ["some"], ["has_some"], name="has_some"),
            helper.make_node("OptionalHasElement", ["none"], ["has_none"], name="has_none"),
            helper.make_node("OptionalGetElement", ["some"], ["got"], name="get"),
            helper.make_node("Relu", ["got"], ["y"], name="relu"),
        ],
        "optional",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3]),
         helper.make_tensor_value_info("has_some", TensorProto.BOOL, []),
         helper.make_tensor_value_info("has_none", TensorProto.BOOL, [])],
    ),
    "optional.onnx",
    opset=18,
)
save(
    helper.make_graph(
        [
            helper.make_node("Optional", [], ["none"], name="empty", type=tensor_type),
            helper.make_node("OptionalGetElement", ["none"], ["y"], name="get_none"),
        ],
        "invalid_optional",
        [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
    ),
    "invalid_optional.onnx",
    opset=18,
)

# adam.onnx: one ai.onnx.preview.training::Adam step of two tensors, the learning rate and the
# update count run-time inputs (the bias correction chosen at run time); the expected outputs
# from ONNX's reference formulas in numpy. invalid_momentum.onnx: a Momentum of an unknown mode.
ad = np.random.default_rng(806)
ad_in = {"R": np.array(0.1, dtype=np.float32), "T": np.array(3, dtype=np.int64)}
for name, shape in [("X1", [2]), ("X2", [3]), ("G1", [2]), ("G2", [3]), ("V1", [2]), ("V2", [3]),
                    ("H1", [2]), ("H2", [3])]:
    values = ad.standard_normal(shape).astype(np.float32)
    ad_in[name] = np.abs(values) if name.startswith("H") else values
save(
    helper.make_graph(
        [helper.make_node("Adam", list(ad_in), ["X1n", "X2n", "V1n", "V2n", "H1n", "H2n"], name="adam",
                          domain="ai.onnx.preview.training", alpha=0.9, beta=0.99, epsilon=1e-3,
                          norm_coefficient=0.01, norm_coefficient_post=0.001)],
        "adam",
        [helper.make_tensor_value_info(name, TensorProto.INT64 if name == "T" else TensorProto.FLOAT,
                                       list(value.shape)) for name, value in ad_in.items()],
        [helper.make_tensor_value_info(name, TensorProto.FLOAT, [2 if name[1] == "1" else 3])
         for name in ["X1n", "X2n", "V1n", "V2n", "H1n", "H2n"]],
    ),
    "adam.onnx",
    opset=18,
    extra_opsets=("ai.onnx.preview.training",),
)
for k in "12":
    x, g, v, h = (ad_in[p + k].astype(np.float64) for p in "XGVH")
    r, t = 0.1, 3
    gr = 0.01 * x + g
    vn = 0.9 * v + 0.1 * gr
    hn = 0.99 * h + 0.01 * gr * gr
    rate = r * np.sqrt(1 - 0.99 ** t) / (1 - 0.9 ** t)
    xn = (1 - 0.001) * (x - rate * vn / (np.sqrt(hn) + 1e-3))
    for name, value in [("X", xn), ("V", vn), ("H", hn)]:
        np.save(f"../../driver/inputs/adam_{name}{k}n.npy", value.astype(np.float32))
for name, value in ad_in.items():
    np.save(f"../../driver/inputs/adam_{name}.npy", value)
save(
    helper.make_graph(
        [helper.make_node("Momentum", ["R", "T", "X", "G", "V"], ["Xn", "Vn"], name="momentum",
                          domain="ai.onnx.preview.training", alpha=0.9, beta=1.0, mode="heavy-ball",
                          norm_coefficient=0.0)],
        "invalid_momentum",
        [helper.make_tensor_value_info("R", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("T", TensorProto.INT64, [])]
        + [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in "XGV"],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in ["Xn", "Vn"]],
    ),
    "invalid_momentum.onnx",
    opset=18,
    extra_opsets=("ai.onnx.preview.training",),
    check=False,
)

# The remaining import errors of the preview and optional operators, each a clean error naming
# its node: invalid_flex_rank.onnx (a 3-D query), invalid_flex_heads.onnx (3 query heads over 2
# key/value heads), invalid_adam_inputs.onnx (Adam given a Momentum's inputs: no second state),
# invalid_optional_tensor.onnx (an empty optional read as a tensor by a Relu) and
# invalid_preview_opset.onnx (FlexAttention at ai.onnx.preview opset 2, which onnx 1.23 does not
# define: its operators could mean something else there).
def flex_graph(graph_name, q_shape, k_shape, v_shape):
    return helper.make_graph(
        [helper.make_node("FlexAttention", ["Q", "K", "V"], ["Y"], name="flex", domain="ai.onnx.preview")],
        graph_name,
        [helper.make_tensor_value_info("Q", TensorProto.FLOAT, q_shape),
         helper.make_tensor_value_info("K", TensorProto.FLOAT, k_shape),
         helper.make_tensor_value_info("V", TensorProto.FLOAT, v_shape)],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT, None)],
    )


save(flex_graph("invalid_flex_rank", [4, 3, 8], [1, 2, 5, 8], [1, 2, 5, 4]), "invalid_flex_rank.onnx", opset=23,
     extra_opsets=("ai.onnx.preview",), check=False)
save(flex_graph("invalid_flex_heads", [1, 3, 3, 8], [1, 2, 5, 8], [1, 2, 5, 4]), "invalid_flex_heads.onnx",
     opset=23, extra_opsets=("ai.onnx.preview",), check=False)
save(
    helper.make_graph(
        [helper.make_node("Adam", ["R", "T", "X", "G", "V"], ["Xn", "Vn"], name="adam_short",
                          domain="ai.onnx.preview.training")],
        "invalid_adam_inputs",
        [helper.make_tensor_value_info("R", TensorProto.FLOAT, []),
         helper.make_tensor_value_info("T", TensorProto.INT64, [])]
        + [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in "XGV"],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [2]) for n in ["Xn", "Vn"]],
    ),
    "invalid_adam_inputs.onnx",
    opset=18,
    extra_opsets=("ai.onnx.preview.training",),
    check=False,
)
save(
    helper.make_graph(
        [
            helper.make_node("Optional", [], ["none"], name="empty", type=tensor_type),
            helper.make_node("Relu", ["none"], ["y"], name="relu_of_none"),
        ],
        "invalid_optional_tensor",
        [],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])],
    ),
    "invalid_optional_tensor.onnx",
    opset=18,
    check=False,
)
preview_2 = helper.make_model(
    flex_graph("invalid_preview_opset", [1, 4, 3, 8], [1, 2, 5, 8], [1, 2, 5, 4]),
    opset_imports=[helper.make_opsetid("", 23), helper.make_opsetid("ai.onnx.preview", 2)],
    producer_name="strata-fixtures",
)
onnx.save(preview_2, "invalid_preview_opset.onnx")

# bf16_shared.onnx: a bf16 Conv whose result two ops read (Relu, and the Add of it and the
# Relu), as a residual block's output is read by the next block and the next residual Add:
# each reader casts it back to f32 on its own, and one rounding serves both.
bs = np.random.default_rng(4917)
save(
    helper.make_graph(
        [
            helper.make_node("Cast", ["x"], ["xb"], name="to_bf16", to=TensorProto.BFLOAT16),
            helper.make_node("Conv", ["xb", "w", "b"], ["c"], name="conv", pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c"], ["r"], name="relu"),
            helper.make_node("Add", ["c", "r"], ["s"], name="add"),
            helper.make_node("Cast", ["s"], ["y"], name="to_f32", to=TensorProto.FLOAT),
        ],
        "bf16_shared",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 5, 5])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 5, 5])],
        [bf16_initializer((bs.standard_normal((8, 4, 3, 3)) * 0.3).astype(ml_dtypes.bfloat16), "w"),
         bf16_initializer(bs.standard_normal(8).astype(ml_dtypes.bfloat16), "b")],
    ),
    "bf16_shared.onnx",
    opset=17,
)

# quant_gemm.onnx: a QDQ classifier head as quantize_static writes one: a uint8 activation
# (zero point 128) times an int8 weight [10, 12] per output (transB, axis 0), plus a float
# bias. 10 columns: packed to 16, the product sliced back. Reference: the exact integer sums,
# scaled in f32 as the kernel scales them, then the bias.
g_rng = np.random.default_rng(4918)
qg_x = g_rng.standard_normal((2, 12)).astype(np.float32)
qg_w = g_rng.integers(-127, 128, (10, 12)).astype(np.int8)
qg_ws = (g_rng.random(10) * 0.02 + 0.005).astype(np.float32)
qg_b = g_rng.standard_normal(10).astype(np.float32)
qg_xs = np.float32(0.05)
save(
    helper.make_graph(
        [
            helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="qx"),
            helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"], name="dqx"),
            helper.make_node("DequantizeLinear", ["w", "ws"], ["wd"], name="dqw", axis=0),
            helper.make_node("Gemm", ["xd", "wd", "b"], ["y"], name="head", transB=1),
        ],
        "quant_gemm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 12])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 10])],
        [
            numpy_helper.from_array(np.array(qg_xs), "xs"),
            numpy_helper.from_array(np.array(128, np.uint8), "xz"),
            numpy_helper.from_array(qg_w, "w"),
            numpy_helper.from_array(qg_ws, "ws"),
            numpy_helper.from_array(qg_b, "b"),
        ],
    ),
    "quant_gemm.onnx",
    opset=13,
)
qg_sums = (np.clip(np.round(qg_x / qg_xs) + 128, 0, 255).astype(np.int64) - 128) @ qg_w.T.astype(np.int64)
np.save("../../driver/inputs/quant_gemm_x.npy", qg_x)
np.save("../../driver/inputs/quant_gemm_y.npy", qg_sums.astype(np.float32) * (qg_xs * qg_ws) + qg_b)

# matmul_integer_cols.onnx: a MatMulInteger as quantize_dynamic writes a classifier's (a uint8
# input, its zero point 3, an int8 weight [12, 10]): 10 columns, packed to 16 and sliced back.
# Reference: NumPy's exact integer product.
m_rng = np.random.default_rng(4919)
mi_x = m_rng.integers(0, 256, (2, 12)).astype(np.uint8)
mi_w = m_rng.integers(-127, 128, (12, 10)).astype(np.int8)
save(
    helper.make_graph(
        [helper.make_node("MatMulInteger", ["x", "w", "xz"], ["y"], name="head")],
        "matmul_integer_cols",
        [helper.make_tensor_value_info("x", TensorProto.UINT8, [2, 12])],
        [helper.make_tensor_value_info("y", TensorProto.INT32, [2, 10])],
        [numpy_helper.from_array(mi_w, "w"), numpy_helper.from_array(np.array(3, np.uint8), "xz")],
    ),
    "matmul_integer_cols.onnx",
    opset=13,
)
np.save("../../driver/inputs/matmul_integer_cols_x.npy", mi_x)
np.save("../../driver/inputs/matmul_integer_cols_y.npy",
        ((mi_x.astype(np.int64) - 3) @ mi_w.astype(np.int64)).astype(np.int32))

# group_norm.onnx: GroupNormalization (opset 21: per-channel scale and bias) over 2 images of
# 8 channels in 4 groups, 6 x 6, the values around 300 with a spread of 3 (E[x^2] - E[x]^2
# would lose the variance to cancellation in float32). Reference: NumPy's, in float64.
gn_rng = np.random.default_rng(2112)
gn_x = (gn_rng.standard_normal((2, 8, 6, 6)) * 3 + 300).astype(np.float32)
gn_scale = gn_rng.uniform(0.5, 1.5, 8).astype(np.float32)
gn_bias = gn_rng.standard_normal(8).astype(np.float32)
save(
    helper.make_graph(
        [helper.make_node("GroupNormalization", ["x", "scale", "bias"], ["y"], num_groups=4, epsilon=1e-5)],
        "group_norm",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 8, 6, 6])],
        [numpy_helper.from_array(gn_scale, "scale"), numpy_helper.from_array(gn_bias, "bias")],
    ),
    "group_norm.onnx",
    opset=21,
)
gn_groups = gn_x.astype(np.float64).reshape(2, 4, -1)
gn_y = (gn_groups - gn_groups.mean(-1, keepdims=True)) / np.sqrt(gn_groups.var(-1, keepdims=True) + 1e-5)
gn_y = gn_y.reshape(2, 8, 6, 6) * gn_scale.reshape(1, 8, 1, 1) + gn_bias.reshape(1, 8, 1, 1)
np.save("../../driver/inputs/group_norm_x.npy", gn_x)
np.save("../../driver/inputs/group_norm_y.npy", gn_y.astype(np.float32))
