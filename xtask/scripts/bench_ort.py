"""Times ONNX Runtime (CPU, all graph optimisations) on one model: prints `median_ms <value>`.
Called by `cargo xtask bench run` with its pinned onnxruntime on PYTHONPATH:
`python3 bench_ort.py MODEL.onnx INPUTS_DIR REPEATS THREADS [OUTPUT_DIR]`. THREADS is the
intra-op thread count, 0 for ONNX Runtime's default (one per core); with OUTPUT_DIR, the
outputs are written there as `<name>.npy` so the benchmark can check Strata's against them.
With `--nodes` in its place, ONNX Runtime's profiler times every node instead: one line
`node <name> <op type> <median ms>` each (tab-separated; the kernel times, run by run).
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
    nodes = outputs == "--nodes"
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    if nodes:
        options.enable_profiling = True
        options.profile_file_prefix = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"strata-ort-{os.getpid()}")
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
    if nodes:
        print_node_times(session, feeds, repeats)
        return
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


def print_node_times(session, feeds, repeats):
    """Runs the model `repeats` times under the profiler and prints each node's median time."""
    import json

    for _ in range(repeats):
        session.run(None, feeds)
    path = session.end_profiling()
    with open(path) as f:
        events = json.load(f)
    os.remove(path)
    times = {}
    for event in events:
        name = event.get("name", "")
        if event.get("cat") == "Node" and name.endswith("_kernel_time"):
            key = (name[: -len("_kernel_time")], event.get("args", {}).get("op_name", "?"))
            times.setdefault(key, []).append(event["dur"] / 1e3)
    for (name, op), values in sorted(times.items()):
        print(f"node\t{name}\t{op}\t{sorted(values)[len(values) // 2]:.6f}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] if len(sys.argv) > 5 else None)
