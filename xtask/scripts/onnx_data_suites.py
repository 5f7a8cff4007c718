"""Writes the data-carrying test suites the onnx wheel ships (onnx/backend/test/data/{light,
pytorch-converted, pytorch-operator, simple}) in the node-test layout:
<out>/<suite>/<case>/model.onnx, test_data_set_<i>/{input,output}_<j>.pb and tolerance.txt.

Called by `cargo xtask onnx-tests` with the pinned onnx package on PYTHONPATH.

- pytorch-converted, pytorch-operator, simple: each case directory already holds a model and
  data sets; they are copied, with the case's tolerance (its data.json, else ONNX's defaults).
- light: lightweight versions of model-zoo networks (weights made by ConstantOfShape) with one
  expected output each. ONNX's runner feeds them a deterministic input it generates
  (`Runner.generate_dummy_data(..., random=False)`: arange(n) / n); the same input is written
  here, and the tolerance is the one data/real/test_<model>/data.json gives.
"""
import json
import os
import shutil
import sys

import onnx
from onnx import numpy_helper
from onnx.backend.test.runner import Runner

DATA = os.path.join(os.path.dirname(onnx.__file__), "backend", "test", "data")
SUITES = ("light", "pytorch-converted", "pytorch-operator", "simple")
DEFAULT_TOLERANCE = (1e-3, 1e-7)


def tolerance(data_json):
    if not os.path.exists(data_json):
        return DEFAULT_TOLERANCE
    with open(data_json) as f:
        data = json.load(f)
    return data.get("rtol", DEFAULT_TOLERANCE[0]), data.get("atol", DEFAULT_TOLERANCE[1])


def write_tolerance(directory, rtol, atol):
    with open(os.path.join(directory, "tolerance.txt"), "w") as f:
        f.write(f"{rtol} {atol}\n")


def copy_suite(suite, out):
    count = 0
    source = os.path.join(DATA, suite)
    for name in sorted(os.listdir(source)):
        case = os.path.join(source, name)
        if not os.path.isfile(os.path.join(case, "model.onnx")):
            continue
        target = os.path.join(out, name)
        shutil.copytree(case, target)
        write_tolerance(target, *tolerance(os.path.join(case, "data.json")))
        count += 1
    return count


def light_suite(out):
    count = 0
    source = os.path.join(DATA, "light")
    for file in sorted(os.listdir(source)):
        if not file.endswith(".onnx"):
            continue
        stem = file[: -len(".onnx")]
        model_name = stem[len("light_"):]
        model = onnx.load(os.path.join(source, file))
        target = os.path.join(out, f"test_{model_name}")
        data = os.path.join(target, "test_data_set_0")
        os.makedirs(data)
        shutil.copy(os.path.join(source, file), os.path.join(target, "model.onnx"))
        initializers = {i.name for i in model.graph.initializer}
        inputs = [i for i in model.graph.input if i.name not in initializers]
        for index, value_info in enumerate(inputs):
            value = Runner.generate_dummy_data(value_info, seed=0, name=model_name, random=False)
            with open(os.path.join(data, f"input_{index}.pb"), "wb") as f:
                f.write(numpy_helper.from_array(value).SerializeToString())
        for index in range(len(model.graph.output)):
            shutil.copy(os.path.join(source, f"{stem}_output_{index}.pb"), os.path.join(data, f"output_{index}.pb"))
        write_tolerance(target, *tolerance(os.path.join(DATA, "real", f"test_{model_name}", "data.json")))
        count += 1
    return count


def main(out):
    os.makedirs(out, exist_ok=True)
    counts = {}
    for suite in SUITES:
        directory = os.path.join(out, suite)
        shutil.rmtree(directory, ignore_errors=True)
        os.makedirs(directory)
        counts[suite] = light_suite(directory) if suite == "light" else copy_suite(suite, directory)
        with open(os.path.join(directory, "COMPLETE"), "w") as f:
            f.write(f"{counts[suite]} cases from onnx {onnx.__version__}, format 1\n")
    print("wrote " + ", ".join(f"{suite}: {count}" for suite, count in counts.items()) + f" (onnx {onnx.__version__})")


if __name__ == "__main__":
    main(sys.argv[1])
