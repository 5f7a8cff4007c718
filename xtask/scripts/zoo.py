"""Generates Strata's model zoo with onnx.helper (random He-initialised weights, fixed seed),
in the configurations `../shared/notes/peers.md` measured ONNX Runtime and IREE on, so later
benchmarks compare like with like:

- mobilenetv2.onnx: MobileNetV2 (width 1.0, 224x224, 1000 classes): inverted residuals,
  depthwise convolutions, Clip(0, 6) as ReLU6, BatchNorm folded into the Conv biases (as
  torch.onnx.export does), GlobalAveragePool -> Flatten -> Gemm head.
- resnet18.onnx: ResNet-18 (224x224): Conv -> BatchNormalization -> Relu, MaxPool, basic
  blocks with projection shortcuts, GlobalAveragePool -> Flatten -> Gemm.
- bert_tiny.onnx: a 2-layer transformer encoder (hidden 128, 2 heads, intermediate 512,
  sequence 128, vocabulary 30522): Gather embeddings, MatMul+Add, Reshape/Transpose,
  Softmax with an additive attention mask, LayerNormalization, GELU via Erf.

Called by `cargo xtask zoo` with the pinned onnx on PYTHONPATH: `python3 zoo.py OUT_DIR`.
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

rng = np.random.default_rng(2024)


class Graph:
    def __init__(self):
        self.nodes, self.inits, self.count = [], [], 0

    def name(self, prefix):
        self.count += 1
        return f"{prefix}_{self.count}"

    def weight(self, shape, fan_in=None, scale=None):
        name = self.name("w")
        std = scale if scale is not None else np.sqrt(2.0 / (fan_in or shape[-1]))
        self.inits.append(numpy_helper.from_array((rng.standard_normal(shape) * std).astype(np.float32), name))
        return name

    def const(self, array, prefix="c"):
        name = self.name(prefix)
        self.inits.append(numpy_helper.from_array(np.asarray(array), name))
        return name

    def op(self, op_type, inputs, prefix=None, **attrs):
        out = self.name(prefix or op_type.lower())
        self.nodes.append(helper.make_node(op_type, inputs, [out], name=out, **attrs))
        return out

    def conv(self, x, cin, cout, k, stride=1, group=1, bias=True):
        w = self.weight([cout, cin // group, k, k], fan_in=cin // group * k * k)
        inputs = [x, w] + ([self.const(np.zeros(cout, np.float32), "b")] if bias else [])
        return self.op("Conv", inputs, "conv", pads=[k // 2] * 4, strides=[stride, stride], group=group)

    def relu6(self, x):
        return self.op("Clip", [x, self.const(np.float32(0.0), "min"), self.const(np.float32(6.0), "max")], "relu6")

    def save(self, inputs, outputs, path, name):
        graph = helper.make_graph(self.nodes, name, inputs, outputs, self.inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="strata-zoo")
        onnx.checker.check_model(model, full_check=True)
        onnx.save(model, path)
        params = sum(int(np.prod(t.dims)) for t in self.inits)
        print(f"{os.path.basename(path)}: {len(self.nodes)} nodes, {params / 1e6:.2f}M parameters")


def head(g, x, channels, classes=1000):
    x = g.op("GlobalAveragePool", [x], "gap")
    x = g.op("Flatten", [x], "flatten", axis=1)
    fc = g.weight([classes, channels], fan_in=channels)
    return g.op("Gemm", [x, fc, g.const(np.zeros(classes, np.float32), "fc_b")], "fc", transB=1)


def mobilenetv2(path):
    g = Graph()
    x = g.relu6(g.conv("input", 3, 32, 3, stride=2))
    cin = 32
    for t, c, n, s in [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]:
        for i in range(n):
            stride = s if i == 0 else 1
            hidden = cin * t
            y = x if t == 1 else g.relu6(g.conv(x, cin, hidden, 1))
            y = g.relu6(g.conv(y, hidden, hidden, 3, stride=stride, group=hidden))
            y = g.conv(y, hidden, c, 1)
            x = g.op("Add", [x, y], "residual") if stride == 1 and cin == c else y
            cin = c
    x = g.relu6(g.conv(x, cin, 1280, 1))
    out = head(g, x, 1280)
    g.save([helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 1000])], path, "mobilenetv2")


def resnet18(path):
    g = Graph()

    def conv_bn(x, cin, cout, k, stride=1, relu=True):
        y = g.conv(x, cin, cout, k, stride=stride, bias=False)
        params = [g.const(np.ones(cout, np.float32), "gamma"), g.const(np.zeros(cout, np.float32), "beta"),
                  g.const(np.zeros(cout, np.float32), "mean"), g.const(np.ones(cout, np.float32), "var")]
        y = g.op("BatchNormalization", [y] + params, "bn", epsilon=1e-5)
        return g.op("Relu", [y], "relu") if relu else y

    x = conv_bn("input", 3, 64, 7, stride=2)
    x = g.op("MaxPool", [x], "maxpool", kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
    cin = 64
    for cout, stride in [(64, 1), (128, 2), (256, 2), (512, 2)]:
        for block in range(2):
            s = stride if block == 0 else 1
            y = conv_bn(x, cin, cout, 3, stride=s)
            y = conv_bn(y, cout, cout, 3, relu=False)
            shortcut = conv_bn(x, cin, cout, 1, stride=s, relu=False) if (s != 1 or cin != cout) else x
            x = g.op("Relu", [g.op("Add", [y, shortcut], "residual")], "relu")
            cin = cout
    out = head(g, x, 512)
    g.save([helper.make_tensor_value_info("input", TensorProto.FLOAT, [1, 3, 224, 224])],
           [helper.make_tensor_value_info(out, TensorProto.FLOAT, [1, 1000])], path, "resnet18")


def bert_tiny(path, layers=2, hidden=128, heads=2, intermediate=512, seq=128, vocab=30522):
    g = Graph()
    head_dim = hidden // heads

    def dense(x, cin, cout):
        return g.op("Add", [g.op("MatMul", [x, g.weight([cin, cout], scale=0.02)], "matmul"),
                            g.const(np.zeros(cout, np.float32), "bias")], "dense")

    def layer_norm(x):
        return g.op("LayerNormalization", [x, g.const(np.ones(hidden, np.float32), "ln_g"),
                                           g.const(np.zeros(hidden, np.float32), "ln_b")], "ln", axis=-1, epsilon=1e-12)

    def heads_first(x):  # [1, seq, hidden] -> [1, heads, seq, head_dim]
        x = g.op("Reshape", [x, g.const(np.array([1, seq, heads, head_dim], np.int64), "shape")], "split_heads")
        return g.op("Transpose", [x], "heads_first", perm=[0, 2, 1, 3])

    words = g.op("Gather", [g.weight([vocab, hidden], scale=0.02), "input_ids"], "word_emb", axis=0)
    positions = g.op("Gather", [g.weight([512, hidden], scale=0.02), g.const(np.arange(seq, dtype=np.int64).reshape(1, seq), "pos_ids")], "pos_emb", axis=0)
    types = g.op("Gather", [g.weight([2, hidden], scale=0.02), g.const(np.zeros((1, seq), np.int64), "type_ids")], "type_emb", axis=0)
    x = layer_norm(g.op("Add", [g.op("Add", [words, positions], "emb"), types], "emb"))
    mask = g.op("Unsqueeze", ["attention_mask", g.const(np.array([1, 2], np.int64), "axes")], "mask")
    mask = g.op("Cast", [mask], "mask_f", to=TensorProto.FLOAT)
    mask = g.op("Mul", [g.op("Sub", [g.const(np.float32(1.0), "one"), mask], "mask_inv"), g.const(np.float32(-10000.0), "big")], "mask_add")
    for _ in range(layers):
        q, k, v = (heads_first(dense(x, hidden, hidden)) for _ in range(3))
        scores = g.op("MatMul", [q, g.op("Transpose", [k], "k_t", perm=[0, 1, 3, 2])], "scores")
        scores = g.op("Add", [g.op("Div", [scores, g.const(np.float32(np.sqrt(head_dim)), "sqrt_d")], "scaled"), mask], "masked")
        context = g.op("MatMul", [g.op("Softmax", [scores], "probs", axis=-1), v], "context")
        context = g.op("Transpose", [context], "heads_last", perm=[0, 2, 1, 3])
        context = g.op("Reshape", [context, g.const(np.array([1, seq, hidden], np.int64), "shape")], "merge_heads")
        x = layer_norm(g.op("Add", [dense(context, hidden, hidden), x], "residual"))
        h = dense(x, hidden, intermediate)
        erf = g.op("Erf", [g.op("Div", [h, g.const(np.float32(np.sqrt(2.0)), "sqrt2")], "gelu_div")], "gelu_erf")
        h = g.op("Mul", [g.op("Mul", [h, g.op("Add", [erf, g.const(np.float32(1.0), "one")], "gelu_add")], "gelu_mul"),
                         g.const(np.float32(0.5), "half")], "gelu")
        x = layer_norm(g.op("Add", [dense(h, intermediate, hidden), x], "residual"))
    g.save([helper.make_tensor_value_info("input_ids", TensorProto.INT64, [1, seq]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, [1, seq])],
           [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, seq, hidden])], path, "bert_tiny")


def pattern(count):
    """A deterministic input pattern, exact in float32 (so any tool can regenerate it)."""
    return ((np.arange(count, dtype=np.int64) * 7919) % 255).astype(np.float32) / np.float32(127.5) - np.float32(1.0)


def write_inputs(out):
    """Fixed inputs for each model: <out>/<model>.inputs/<input>.npy (checked against the
    ONNX Runtime references in xtask/zoo-reference, made by zoo_reference.py)."""
    image = pattern(3 * 224 * 224).reshape(1, 3, 224, 224)
    ids = ((np.arange(128, dtype=np.int64) * 7919) % 30522).reshape(1, 128)
    mask = (np.arange(128, dtype=np.int64) < 100).astype(np.int64).reshape(1, 128)
    for model, inputs in (("mobilenetv2", {"input": image}), ("resnet18", {"input": image}),
                          ("bert_tiny", {"input_ids": ids, "attention_mask": mask})):
        directory = os.path.join(out, f"{model}.inputs")
        os.makedirs(directory, exist_ok=True)
        for name, value in inputs.items():
            np.save(os.path.join(directory, f"{name}.npy"), value)


if __name__ == "__main__":
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    mobilenetv2(os.path.join(out, "mobilenetv2.onnx"))
    resnet18(os.path.join(out, "resnet18.onnx"))
    bert_tiny(os.path.join(out, "bert_tiny.onnx"))
    write_inputs(out)
