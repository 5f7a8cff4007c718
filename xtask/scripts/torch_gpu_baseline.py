"""GPU latency baseline for the zoo: PyTorch eager (fp32, TF32 off) on the same ONNX model.

ONNX Runtime's CUDA provider cannot be installed where the GPU is lent (no network; the
onnxruntime-gpu wheel is larger than what can be carried), so the model is converted with
onnx2torch and run by PyTorch with cuDNN/cuBLAS. Usage:
  python3 torch_gpu_baseline.py model.onnx INPUTS_DIR REFERENCE.npy [repeats]
Prints the median GPU time per run (CUDA events) and the max error against the reference.
Dev tooling only; never a dependency of Strata.
"""
import os
import sys

import numpy as np
import onnx
import torch
from onnx2torch import convert


def main():
    model_path, inputs_dir, reference = sys.argv[1:4]
    repeats = int(sys.argv[4]) if len(sys.argv) > 4 else 50
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    model = onnx.load(model_path)
    names = [i.name for i in model.graph.input if i.name not in {t.name for t in model.graph.initializer}]
    module = convert(model).eval().cuda()
    inputs = [torch.from_numpy(np.load(os.path.join(inputs_dir, f"{n}.npy"))).cuda() for n in names]
    with torch.no_grad():
        for _ in range(5):
            out = module(*inputs)
        torch.cuda.synchronize()
        times = []
        for _ in range(repeats):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            out = module(*inputs)
            end.record()
            torch.cuda.synchronize()
            times.append(start.elapsed_time(end))
    out = out[0] if isinstance(out, (tuple, list)) else out
    expected = np.load(reference)
    error = float(np.max(np.abs(out.float().cpu().numpy() - expected)))
    print(f"torch-eager {os.path.basename(model_path)}: {sorted(times)[len(times) // 2]:.3f} ms (GPU time, median of {repeats}), "
          f"max |error| vs ONNX Runtime {error:.3e}, torch {torch.__version__}, {torch.cuda.get_device_name()}")


if __name__ == "__main__":
    main()
