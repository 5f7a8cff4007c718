"""Generates the focused kernels of `cargo xtask bench run`: one small ONNX model per operator
that the zoo's real-model classes spend their time in, at the shapes those models use, so
Strata's kernel for it can be compared with ONNX Runtime's on its own (fixed seed, opset 17):

- dw3x3_s1: depthwise Conv 3x3 stride 1 with bias, 144 channels at 56x56 (MobileNetV2).
- dw3x3_s2: depthwise Conv 3x3 stride 2, 96 channels 112x112 -> 56x56 (MobileNetV2).
- dw3x3_s21: depthwise Conv 3x3 stride (2, 1), 64 channels 32x128 -> 16x128 (OCR recognisers).
- grouped_conv: Conv 3x3, 128 -> 128 channels in 32 groups at 28x28 (ResNeXt).
- grouped_conv_s2: Conv 3x3 stride 2, 512 -> 512 channels in 32 groups of 16, 28x28 -> 14x14
  (ResNeXt-50's third stage, its first block).
- conv_transpose_k2s2: ConvTranspose 2x2 stride 2, 64 -> 32 channels, 32x32 -> 64x64 (U-Net).
- attention_matmul: batch MatMul of attention scores, [1, 4, 128, 32] x [1, 4, 32, 128].
- softmax: Softmax over the last axis of [1, 4, 128, 128] (attention probabilities).
- masked_softmax: the same after adding a causal mask (-1e4 above the diagonal, as decoder
  exporters write it): half of every row's exponentials underflow.
- layernorm: LayerNormalization over the last axis of [1, 128, 256] with scale and bias.
- hardswish_chain: x * Clip(x + 3, 0, 6) / 6 then y * Sigmoid(y) on [1, 64, 56, 56], as
  exporters write hard-swish and SiLU (elementwise chains, not single ops).
- dilated_conv: Relu then Conv 3x3 dilation 6 with bias, 64 -> 32 channels at 33x33 (DeepLab's
  atrous pyramid: the Relu's output padded by 6 on every side, read 12 rows past each row).
- qdq_matmul: a QDQ MatMul as ONNX Runtime's quantize_static writes a transformer's: the input
  [1, 400, 384] through QuantizeLinear -> DequantizeLinear (uint8, per tensor) times a
  per-column DequantizeLinear of an int8 [384, 1536] weight (a Whisper-tiny encoder's FFN,
  pipecat's smart-turn detector's).
- wide_projection: MatMul [1, 77, 512] x [512, 2048] plus bias (a CLIP-style text encoder's
  MLP: 77 rows, not a multiple of 8, and a 4 MB weight, twice a core's L2).
- detector_topk: TopK of 100 over [1, 8400] scores, values and positions (a detector's
  post-processing: RT-DETR and YOLO exports pick their candidates so).
- deep_conv_chain: Relu then three Conv 3x3 + Relu, 512 -> 512 channels at 7x7 (a ResNet's
  last stage as a small model holds it: every padded input at the arena's peak, 9.4 MB of
  filter a convolution).

Usage: python3 bench_kernels.py OUT_DIR (writes OUT_DIR/<kernel>.onnx and
OUT_DIR/<kernel>.inputs/x.npy).
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save


def model(name, nodes, x_shape, y_shape, inits, rng):
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)],
        [numpy_helper.from_array(value, key) for key, value in inits.items()],
    )
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], producer_name="strata-bench")
    x = rng.standard_normal(x_shape).astype(np.float32)
    return proto, {"x": x}


def weights(rng, *shape, fan_in):
    return (rng.standard_normal(shape) * np.sqrt(2.0 / fan_in)).astype(np.float32)


def depthwise(rng, name, channels, size, strides):
    h, w = size
    out = ((h + 2 - 3) // strides[0] + 1, (w + 2 - 3) // strides[1] + 1)
    inits = {"w": weights(rng, channels, 1, 3, 3, fan_in=9), "b": weights(rng, channels, fan_in=1)}
    conv = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="dw", group=channels, pads=[1, 1, 1, 1], strides=strides)
    return model(name, [conv], [1, channels, h, w], [1, channels, *out], inits, rng)


def kernels(rng):
    yield "dw3x3_s1", depthwise(rng, "dw3x3_s1", 144, (56, 56), [1, 1])
    yield "dw3x3_s2", depthwise(rng, "dw3x3_s2", 96, (112, 112), [2, 2])
    yield "dw3x3_s21", depthwise(rng, "dw3x3_s21", 64, (32, 128), [2, 1])

    inits = {"w": weights(rng, 128, 4, 3, 3, fan_in=36), "b": weights(rng, 128, fan_in=1)}
    conv = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="grouped", group=32, pads=[1, 1, 1, 1])
    yield "grouped_conv", model("grouped_conv", [conv], [1, 128, 28, 28], [1, 128, 28, 28], inits, rng)

    inits = {"w": weights(rng, 512, 16, 3, 3, fan_in=144), "b": weights(rng, 512, fan_in=1)}
    conv = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="grouped", group=32, pads=[1, 1, 1, 1], strides=[2, 2])
    yield "grouped_conv_s2", model("grouped_conv_s2", [conv], [1, 512, 28, 28], [1, 512, 14, 14], inits, rng)

    inits = {"w": weights(rng, 64, 32, 2, 2, fan_in=256), "b": weights(rng, 32, fan_in=1)}
    up = helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], name="up", kernel_shape=[2, 2], strides=[2, 2])
    yield "conv_transpose_k2s2", model("conv_transpose_k2s2", [up], [1, 64, 32, 32], [1, 32, 64, 64], inits, rng)

    inits = {"k": rng.standard_normal((1, 4, 32, 128)).astype(np.float32)}
    scores = helper.make_node("MatMul", ["x", "k"], ["y"], name="scores")
    yield "attention_matmul", model("attention_matmul", [scores], [1, 4, 128, 32], [1, 4, 128, 128], inits, rng)

    softmax = helper.make_node("Softmax", ["x"], ["y"], name="softmax", axis=-1)
    yield "softmax", model("softmax", [softmax], [1, 4, 128, 128], [1, 4, 128, 128], {}, rng)

    inits = {"mask": np.triu(np.full((1, 1, 128, 128), -1e4, np.float32), k=1)}
    masked = [
        helper.make_node("Add", ["x", "mask"], ["scores"], name="mask"),
        helper.make_node("Softmax", ["scores"], ["y"], name="softmax", axis=-1),
    ]
    yield "masked_softmax", model("masked_softmax", masked, [1, 4, 128, 128], [1, 4, 128, 128], inits, rng)

    inits = {"scale": rng.standard_normal(256).astype(np.float32), "bias": rng.standard_normal(256).astype(np.float32)}
    norm = helper.make_node("LayerNormalization", ["x", "scale", "bias"], ["y"], name="norm", axis=-1, epsilon=1e-5)
    yield "layernorm", model("layernorm", [norm], [1, 128, 256], [1, 128, 256], inits, rng)

    inits = {"three": np.array(3, np.float32), "zero": np.array(0, np.float32), "six": np.array(6, np.float32)}
    chain = [
        helper.make_node("Add", ["x", "three"], ["shifted"], name="add"),
        helper.make_node("Clip", ["shifted", "zero", "six"], ["clipped"], name="clip"),
        helper.make_node("Mul", ["x", "clipped"], ["scaled"], name="mul"),
        helper.make_node("Div", ["scaled", "six"], ["hswish"], name="div"),
        helper.make_node("Sigmoid", ["hswish"], ["gate"], name="sigmoid"),
        helper.make_node("Mul", ["hswish", "gate"], ["y"], name="silu"),
    ]
    yield "hardswish_chain", model("hardswish_chain", chain, [1, 64, 56, 56], [1, 64, 56, 56], inits, rng)

    inits = {"w": weights(rng, 32, 64, 3, 3, fan_in=576), "b": weights(rng, 32, fan_in=1)}
    atrous = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("Conv", ["r", "w", "b"], ["y"], name="atrous", dilations=[6, 6], pads=[6, 6, 6, 6]),
    ]
    yield "dilated_conv", model("dilated_conv", atrous, [1, 64, 33, 33], [1, 32, 33, 33], inits, rng)

    w = weights(rng, 384, 1536, fan_in=384)
    w_scale = (np.abs(w).max(axis=0) / 127.0).astype(np.float32)
    inits = {"w_q": np.clip(np.round(w / w_scale), -127, 127).astype(np.int8), "w_scale": w_scale,
             "w_zero": np.zeros(1536, np.int8), "x_scale": np.float32(8.0 / 255.0), "x_zero": np.uint8(128)}
    qdq = [
        helper.make_node("QuantizeLinear", ["x", "x_scale", "x_zero"], ["x_q"], name="quantize"),
        helper.make_node("DequantizeLinear", ["x_q", "x_scale", "x_zero"], ["x_dq"], name="dequantize"),
        helper.make_node("DequantizeLinear", ["w_q", "w_scale", "w_zero"], ["w_dq"], name="weight", axis=1),
        helper.make_node("MatMul", ["x_dq", "w_dq"], ["y"], name="matmul"),
    ]
    yield "qdq_matmul", model("qdq_matmul", qdq, [1, 400, 384], [1, 400, 1536], inits, rng)

    inits, chain, last = {}, [helper.make_node("Relu", ["x"], ["r0"], name="relu0")], "r0"
    for i in range(1, 4):
        inits[f"w{i}"] = weights(rng, 512, 512, 3, 3, fan_in=4608)
        inits[f"b{i}"] = weights(rng, 512, fan_in=1)
        out = "y" if i == 3 else f"r{i}"
        chain += [
            helper.make_node("Conv", [last, f"w{i}", f"b{i}"], [f"c{i}"], name=f"conv{i}", pads=[1, 1, 1, 1]),
            helper.make_node("Relu", [f"c{i}"], [out], name=f"relu{i}"),
        ]
        last = out
    yield "deep_conv_chain", model("deep_conv_chain", chain, [1, 512, 7, 7], [1, 512, 7, 7], inits, rng)

    inits = {"w": weights(rng, 512, 2048, fan_in=512), "b": weights(rng, 2048, fan_in=1)}
    projection = [
        helper.make_node("MatMul", ["x", "w"], ["m"], name="matmul"),
        helper.make_node("Add", ["m", "b"], ["y"], name="bias"),
    ]
    yield "wide_projection", model("wide_projection", projection, [1, 77, 512], [1, 77, 2048], inits, rng)

    inits = {"k": np.array([100], np.int64)}
    top = [
        helper.make_node("TopK", ["x", "k"], ["values", "positions"], name="topk", axis=-1),
        helper.make_node("Cast", ["positions"], ["where"], name="cast", to=TensorProto.FLOAT),
        helper.make_node("Add", ["values", "where"], ["y"], name="both"),
    ]
    yield "detector_topk", model("detector_topk", top, [1, 8400], [1, 100], inits, rng)


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(18)
    for name, (proto, inputs) in kernels(rng):
        save(proto, os.path.join(out, f"{name}.onnx"))
        directory = os.path.join(out, f"{name}.inputs")
        os.makedirs(directory, exist_ok=True)
        for key, value in inputs.items():
            np.save(os.path.join(directory, f"{key}.npy"), value)


if __name__ == "__main__":
    main(sys.argv[1])
