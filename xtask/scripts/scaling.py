"""Generates the compile-time scaling series of `cargo xtask bench compile`: graphs of 1000,
2000, 5000 and 10000 ONNX nodes in four shapes, to show that each compile stage grows linearly
with the graph (fixed seed, opset 17). PyTorch exports of transformers have thousands of nodes.

- chain<N>: Neg, Relu, Neg, ... on a [2, 3] tensor: one long elementwise region.
- fanout<N>: N/2 Negs of the input summed by a chain of Adds: one value read N/2 times.
- ladder<N>: y = y + Relu(Neg(y)), N/3 rungs: a residual ladder, every y read twice.
- matmuls<N>: y = y + MatMul(Relu(y), W_i) on [4, 8] with [8, 8] weights, N/3 rungs: a kernel
  per rung that fusion cannot remove (per-kernel costs, as in a transformer's stack).

Usage: python3 scaling.py OUT_DIR (writes OUT_DIR/<shape><N>.onnx and
OUT_DIR/<shape><N>.inputs/x.npy).
"""
import os
import sys

import numpy as np
from onnx import TensorProto, helper, numpy_helper, save

SIZES = [1000, 2000, 5000, 10000]


def model(name, nodes, shape, output, inits=()):
    graph = helper.make_graph(
        nodes,
        name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
        [helper.make_tensor_value_info(output, TensorProto.FLOAT, shape)],
        initializer=list(inits),
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def chain(n):
    nodes, y = [], "x"
    for i in range(n):
        nodes.append(helper.make_node("Neg" if i % 2 == 0 else "Relu", [y], [f"t{i}"]))
        y = f"t{i}"
    return model(f"chain{n}", nodes, [2, 3], y)


def fanout(n):
    k = n // 2
    nodes = [helper.make_node("Neg", ["x"], [f"b{i}"]) for i in range(k)]
    acc = "b0"
    for i in range(1, k):
        nodes.append(helper.make_node("Add", [acc, f"b{i}"], [f"s{i}"]))
        acc = f"s{i}"
    return model(f"fanout{n}", nodes, [2, 3], acc)


def ladder(n):
    nodes, y = [], "x"
    for i in range(n // 3):
        nodes += [
            helper.make_node("Neg", [y], [f"n{i}"]),
            helper.make_node("Relu", [f"n{i}"], [f"r{i}"]),
            helper.make_node("Add", [y, f"r{i}"], [f"y{i}"]),
        ]
        y = f"y{i}"
    return model(f"ladder{n}", nodes, [2, 3], y)


def matmuls(n, rng):
    nodes, inits, y = [], [], "x"
    for i in range(n // 3):
        w = (rng.standard_normal((8, 8)) * 0.1).astype(np.float32)
        inits.append(numpy_helper.from_array(w, f"w{i}"))
        nodes += [
            helper.make_node("Relu", [y], [f"r{i}"]),
            helper.make_node("MatMul", [f"r{i}", f"w{i}"], [f"m{i}"]),
            helper.make_node("Add", [y, f"m{i}"], [f"y{i}"]),
        ]
        y = f"y{i}"
    return model(f"matmuls{n}", nodes, [4, 8], y, inits)


def main(out):
    os.makedirs(out, exist_ok=True)
    rng = np.random.default_rng(19)
    for n in SIZES:
        for name, m, shape in [
            (f"chain{n}", chain(n), (2, 3)),
            (f"fanout{n}", fanout(n), (2, 3)),
            (f"ladder{n}", ladder(n), (2, 3)),
            (f"matmuls{n}", matmuls(n, rng), (4, 8)),
        ]:
            save(m, os.path.join(out, f"{name}.onnx"))
            os.makedirs(os.path.join(out, f"{name}.inputs"), exist_ok=True)
            np.save(os.path.join(out, f"{name}.inputs", "x.npy"), rng.standard_normal(shape).astype(np.float32))


if __name__ == "__main__":
    main(sys.argv[1])
