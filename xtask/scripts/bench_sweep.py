"""Generates the class sweep of `cargo xtask bench run --sweep`: one or two ops at a time, over
the shapes the model classes users bring spend their time in, each timed against ONNX Runtime
by the same harness as the zoo (fixed seed, opset 17 unless an op needs more). Where the zoo
is a few whole models, the sweep looks for cliffs between them: session 54's found a border
split 3.4x slower than ONNX Runtime (`c3_512_7`), a 77-row product 2.4x (`mm_77_512_2048`), a
TopK 211x (`topk_8400`) and a softmax over long rows 1.8x (`softmax_1500`).

- Convolutions (Relu, then Conv + bias + Relu twice; stride 2 once): 3x3 at 32-1024 channels
  from 112 down to 6 pixels, 1x1 (pointwise, expansions and projections), 5x5, 3x3 stride 2,
  1x1 stride 2 (ResNet shortcuts), depthwise 3x3 and 5x5, a 7x7 stem, a 1-D stride-2 one of
  512 channels (wav2vec-style) and a k10 s5 one over raw audio.
- Products: MatMul + bias + Relu over [1, S, K] x [K, N] with odd row counts (77, 197, 1500),
  a classifier Gemm.
- Attention: Q/K/V projections, heads split by Reshape/Transpose, scores times a scale,
  Softmax, context, output projection, at 77 to 1500 tokens.
- Normalisations and pools: LayerNormalization, InstanceNormalization, GroupNormalization,
  MaxPool 3x3 s2, AveragePool, GlobalAveragePool, Softmax over 1500-wide rows.
- Others: Resize (nearest and linear x2), a channel shuffle, LSTM and GRU, ConvTranspose
  (k4 s2, k3 s2 with output padding), TopK of 100 over 8400 scores, Erf GELU.

Usage: python3 bench_sweep.py OUT_DIR (writes OUT_DIR/<case>.onnx and OUT_DIR/<case>.inputs/x.npy).
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

N = helper.make_node


def model(out, rng, name, nodes, x_shape, inits, opset=17):
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.asarray(value), key) for key, value in inits.items()],
    )
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], producer_name="strata-sweep")
    save(proto, os.path.join(out, f"{name}.onnx"))
    os.makedirs(os.path.join(out, f"{name}.inputs"), exist_ok=True)
    np.save(os.path.join(out, f"{name}.inputs", "x.npy"), rng.standard_normal(x_shape).astype(np.float32))


def weights(rng, *shape):
    fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
    return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)


def conv(out, rng, name, c, f, h, k, stride=1, group=1, pad=None, chain=2):
    """Relu, then `chain` convolutions (one when strided), each with a bias and a Relu."""
    pad = k // 2 if pad is None else pad
    chain = 1 if stride > 1 else chain
    nodes, inits, channels = [N("Relu", ["x"], ["r0"])], {}, c
    for i in range(chain):
        inits[f"w{i}"] = weights(rng, f, channels // group, k, k)
        inits[f"b{i}"] = (rng.standard_normal(f) * 0.1).astype(np.float32)
        nodes += [N("Conv", [f"r{i}", f"w{i}", f"b{i}"], [f"c{i}"], pads=[pad] * 4, strides=[stride] * 2, group=group),
                  N("Relu", [f"c{i}"], ["y" if i == chain - 1 else f"r{i + 1}"])]
        channels = f
    model(out, rng, name, nodes, [1, c, h, h], inits)


def attention(out, rng, name, tokens, dim, heads):
    head = dim // heads
    split = [N("MatMul", ["x", f"w{i}"], [f"p{i}"]) for i in range(3)]
    for i in range(3):
        perm = [0, 2, 3, 1] if i == 1 else [0, 2, 1, 3]
        split += [N("Reshape", [f"p{i}", "heads"], [f"s{i}"]), N("Transpose", [f"s{i}"], [f"t{i}"], perm=perm)]
    nodes = split + [
        N("MatMul", ["t0", "t1"], ["scores"]), N("Mul", ["scores", "scale"], ["scaled"]),
        N("Softmax", ["scaled"], ["probs"], axis=-1), N("MatMul", ["probs", "t2"], ["context"]),
        N("Transpose", ["context"], ["merged"], perm=[0, 2, 1, 3]), N("Reshape", ["merged", "flat"], ["joined"]),
        N("MatMul", ["joined", "wo"], ["y"]),
    ]
    inits = {f"w{i}": weights(rng, dim, dim) for i in range(3)}
    inits.update({"wo": weights(rng, dim, dim), "heads": np.array([1, tokens, heads, head], np.int64),
                  "flat": np.array([1, tokens, dim], np.int64), "scale": np.float32(1 / np.sqrt(head))})
    model(out, rng, name, nodes, [1, tokens, dim], inits)


def cases(out, rng):
    for c, h in [(32, 112), (64, 56), (128, 28), (256, 14), (512, 7), (1024, 7), (96, 20), (384, 6)]:
        conv(out, rng, f"c3_{c}_{h}", c, c, h, 3)
        conv(out, rng, f"c1_{c}_{h}", c, c, h, 1)
    for c, h in [(64, 56), (128, 28), (256, 14), (512, 7)]:
        conv(out, rng, f"c5_{c}_{h}", c, c, h, 5)
        conv(out, rng, f"dw3_{c}_{h}", c, c, h, 3, group=c)
        conv(out, rng, f"dw5_{c}_{h}", c, c, h, 5, group=c)
        conv(out, rng, f"c3s2_{c}_{h * 2}", c, 2 * c, h * 2, 3, stride=2)
    for c, f, h in [(16, 96, 112), (144, 24, 56), (256, 128, 56), (512, 256, 28), (960, 160, 7), (2048, 512, 7)]:
        conv(out, rng, f"pw_{c}_{f}_{h}", c, f, h, 1, chain=1)
    for c, h in [(256, 56), (512, 28), (1024, 14)]:
        conv(out, rng, f"pws2_{c}_{h}", c, 2 * c, h, 1, stride=2, pad=0)
    conv(out, rng, "c7s2_3_224", 3, 64, 224, 7, stride=2)
    model(out, rng, "c1d_512_k3s2", [N("Conv", ["x", "w"], ["c"], strides=[2]), N("Relu", ["c"], ["y"])],
          [1, 512, 3199], {"w": weights(rng, 512, 512, 3)})
    model(out, rng, "c1d_k10s5", [N("Conv", ["x", "w"], ["c"], strides=[5]), N("Relu", ["c"], ["y"])],
          [1, 1, 16000], {"w": weights(rng, 512, 1, 10)})
    for s, k, n in [(77, 512, 2048), (197, 192, 768), (50, 768, 3072), (300, 256, 256), (1500, 384, 1536)]:
        model(out, rng, f"mm_{s}_{k}_{n}", [N("MatMul", ["x", "w"], ["m"]), N("Add", ["m", "b"], ["a"]),
                                            N("Relu", ["a"], ["y"])], [1, s, k], {"w": weights(rng, k, n), "b": weights(rng, n)})
    model(out, rng, "gemm_1_1280_1000", [N("Gemm", ["x", "w", "b"], ["y"], transB=1)], [1, 1280],
          {"w": weights(rng, 1000, 1280), "b": weights(rng, 1000)})
    for tokens, dim, heads in [(77, 512, 8), (197, 192, 3), (1500, 384, 6)]:
        attention(out, rng, f"attn_{tokens}_{dim}", tokens, dim, heads)
    for tokens, dim in [(197, 192), (1500, 384)]:
        model(out, rng, f"ln_{tokens}_{dim}", [N("LayerNormalization", ["x", "g", "b"], ["y"], axis=-1)],
              [1, tokens, dim], {"g": weights(rng, dim), "b": weights(rng, dim)})
    model(out, rng, "softmax_1500", [N("Softmax", ["x"], ["y"], axis=-1)], [1, 6, 1500, 1500], {})
    for c, h in [(64, 56), (32, 160)]:
        scale_bias = {"g": weights(rng, c), "b": weights(rng, c)}
        model(out, rng, f"inorm_{c}_{h}", [N("InstanceNormalization", ["x", "g", "b"], ["y"])], [1, c, h, h], scale_bias)
        model(out, rng, f"gnorm_{c}_{h}", [N("GroupNormalization", ["x", "g", "b"], ["y"], num_groups=8)], [1, c, h, h],
              scale_bias, opset=21)
        model(out, rng, f"maxpool_{c}_{h}", [N("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], strides=[2, 2], pads=[1] * 4)],
              [1, c, h, h], {})
        model(out, rng, f"avgpool_{c}_{h}", [N("AveragePool", ["x"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
              [1, c, h, h], {})
        model(out, rng, f"gap_{c}_{h}", [N("GlobalAveragePool", ["x"], ["y"])], [1, c, h, h], {})
        for mode in ["nearest", "linear"]:
            model(out, rng, f"resize_{mode}_{c}_{h}", [N("Resize", ["x", "", "scales"], ["y"], mode=mode)], [1, c, h, h],
                  {"scales": np.array([1, 1, 2, 2], np.float32)})
    model(out, rng, "shuffle_232_28", [N("Reshape", ["x", "s1"], ["a"]), N("Transpose", ["a"], ["b"], perm=[0, 2, 1, 3, 4]),
                                       N("Reshape", ["b", "s2"], ["y"])], [1, 232, 28, 28],
          {"s1": np.array([1, 2, 116, 28, 28], np.int64), "s2": np.array([1, 232, 28, 28], np.int64)})
    hidden = 128
    model(out, rng, "lstm_80_128", [N("LSTM", ["x", "w", "r", "b"], ["h"], hidden_size=hidden),
                                    N("Squeeze", ["h", "axis"], ["y"])], [100, 1, 80],
          {"w": weights(rng, 1, 4 * hidden, 80), "r": weights(rng, 1, 4 * hidden, hidden),
           "b": weights(rng, 1, 8 * hidden), "axis": np.array([1], np.int64)})
    model(out, rng, "gru_80_128", [N("GRU", ["x", "w", "r", "b"], ["h"], hidden_size=hidden),
                                   N("Squeeze", ["h", "axis"], ["y"])], [100, 1, 80],
          {"w": weights(rng, 1, 3 * hidden, 80), "r": weights(rng, 1, 3 * hidden, hidden),
           "b": weights(rng, 1, 6 * hidden), "axis": np.array([1], np.int64)})
    model(out, rng, "convt_k4s2_128_16", [N("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2], pads=[1] * 4)],
          [1, 128, 16, 16], {"w": weights(rng, 128, 64, 4, 4)})
    model(out, rng, "convt_k3s2_64_32", [N("ConvTranspose", ["x", "w"], ["y"], strides=[2, 2], pads=[1] * 4,
                                           output_padding=[1, 1])], [1, 64, 32, 32], {"w": weights(rng, 64, 32, 3, 3)})
    model(out, rng, "topk_8400", [N("TopK", ["x", "k"], ["values", "positions"], axis=-1),
                                  N("Cast", ["positions"], ["where"], to=TensorProto.FLOAT), N("Add", ["values", "where"], ["y"])],
          [1, 8400], {"k": np.array([100], np.int64)})
    model(out, rng, "gelu_erf", [N("Mul", ["x", "r2"], ["a"]), N("Erf", ["a"], ["e"]), N("Add", ["e", "one"], ["f"]),
                                 N("Mul", ["x", "f"], ["g"]), N("Mul", ["g", "half"], ["y"])], [1, 197, 768],
          {"r2": np.float32(0.7071), "one": np.float32(1.0), "half": np.float32(0.5)})


def main(out):
    os.makedirs(out, exist_ok=True)
    cases(out, np.random.default_rng(54))


if __name__ == "__main__":
    main(sys.argv[1])
