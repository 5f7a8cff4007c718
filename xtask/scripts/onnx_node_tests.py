"""Writes ONNX's backend node tests to a directory: <out>/<case>/model.onnx and
<out>/<case>/test_data_set_<i>/{input,output}_<j>.pb, as ONNX's own test runner expects.

Called by `cargo xtask onnx-tests` with the pinned onnx package on PYTHONPATH. The onnx
package ships generators, not data: collect_testcases() builds every case in memory.
"""
import os
import sys

import ml_dtypes
import numpy as np
import onnx
from onnx import numpy_helper
from onnx.backend.test.case.node import collect_testcases


def proto_of(value, name):
    if isinstance(value, onnx.TensorProto):
        # Cases whose element types NumPy lacks (bfloat16, float8, int4, ...) carry protos.
        proto = onnx.TensorProto()
        proto.CopyFrom(value)
        proto.name = name
        return proto
    if isinstance(value, np.ndarray) or np.isscalar(value):
        return numpy_helper.from_array(np.asarray(value), name)
    if isinstance(value, list):
        return numpy_helper.from_list(value, name)
    if isinstance(value, dict):
        return numpy_helper.from_dict(value, name)
    if value is None:
        return numpy_helper.from_optional(None, name)
    raise TypeError(type(value))


def main(out):
    os.makedirs(out, exist_ok=True)
    cases = collect_testcases(None)
    for case in cases:
        directory = os.path.join(out, case.name)
        os.makedirs(directory, exist_ok=True)
        onnx.save(case.model, os.path.join(directory, "model.onnx"))
        # The case's own tolerances (ONNX's runner defaults: rtol 1e-3, atol 1e-7).
        with open(os.path.join(directory, "tolerance.txt"), "w") as f:
            f.write(f"{case.rtol} {case.atol}\n")
        for index, (inputs, outputs) in enumerate(case.data_sets or []):
            data = os.path.join(directory, f"test_data_set_{index}")
            os.makedirs(data, exist_ok=True)
            for kind, values in (("input", inputs), ("output", outputs)):
                for j, value in enumerate(values):
                    try:
                        proto = proto_of(value, f"{kind}_{j}")
                    except Exception as error:  # noqa: BLE001 - recorded, not fatal
                        with open(os.path.join(data, f"{kind}_{j}.unsupported"), "w") as f:
                            f.write(f"{type(value).__name__}: {error}\n")
                        continue
                    with open(os.path.join(data, f"{kind}_{j}.pb"), "wb") as f:
                        f.write(proto.SerializeToString())
    with open(os.path.join(out, "COMPLETE"), "w") as f:
        f.write(f"{len(cases)} cases from onnx {onnx.__version__}, ml_dtypes {ml_dtypes.__version__}, format 4\n")
    print(f"wrote {len(cases)} node test cases (onnx {onnx.__version__}) to {out}")


if __name__ == "__main__":
    main(sys.argv[1])
