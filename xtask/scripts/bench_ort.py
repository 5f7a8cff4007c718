"""Times ONNX Runtime (CPU, all graph optimisations) on one model: prints `median_ms <value>`.
Called by `cargo xtask bench run` with its pinned onnxruntime on PYTHONPATH:
`python3 bench_ort.py MODEL.onnx INPUTS_DIR REPEATS THREADS [OUTPUT_DIR]`. THREADS is the
intra-op thread count, 0 for ONNX Runtime's default (one per core); with OUTPUT_DIR, the
outputs are written there as `<name>.npy` so the benchmark can check Strata's against them.
Inputs are INPUTS_DIR/<name>.npy, plus <model>.frozen/<name>.pb beside the model (the inputs
Strata freezes at compile time; onnx must be on PYTHONPATH to read them).
"""
import glob
import os
import sys
import time

import numpy as np
import onnxruntime as ort


def main(model, inputs, repeats, threads, outputs=None):
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    feeds = {os.path.basename(p)[:-4]: np.load(p) for p in glob.glob(os.path.join(inputs, "*.npy"))}
    frozen = glob.glob(os.path.join(model[: -len(".onnx")] + ".frozen", "*.pb"))
    if frozen:
        from onnx import TensorProto, numpy_helper

        for path in frozen:
            tensor = TensorProto()
            with open(path, "rb") as f:
                tensor.ParseFromString(f.read())
            feeds[os.path.basename(path)[:-3]] = numpy_helper.to_array(tensor)
    results = session.run(None, feeds)
    if outputs:
        os.makedirs(outputs, exist_ok=True)
        for info, value in zip(session.get_outputs(), results):
            np.save(os.path.join(outputs, f"{info.name}.npy"), value)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append((time.perf_counter() - start) * 1e3)
    print(f"median_ms {sorted(times)[len(times) // 2]:.4f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else None)
