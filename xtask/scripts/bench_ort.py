"""Times ONNX Runtime (CPU, one intra-op thread, all graph optimisations) on one model:
prints `median_ms <value>`. Called by `cargo xtask bench run` with its pinned onnxruntime on
PYTHONPATH: `python3 bench_ort.py MODEL.onnx INPUTS_DIR REPEATS`.
"""
import glob
import os
import sys
import time

import numpy as np
import onnxruntime as ort


def main(model, inputs, repeats):
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(model, options, providers=["CPUExecutionProvider"])
    feeds = {os.path.basename(p)[:-4]: np.load(p) for p in glob.glob(os.path.join(inputs, "*.npy"))}
    session.run(None, feeds)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        session.run(None, feeds)
        times.append((time.perf_counter() - start) * 1e3)
    print(f"median_ms {sorted(times)[len(times) // 2]:.4f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]))
