"""Generates Strata's probe suite of hostile inputs (`cargo xtask probe`, run by `cargo xtask
test`): ONNX models, run-time inputs, MLIR, planner CSVs, edited artifacts and parallel runs,
in the families issue #22 found broken. Each case is a list of shell steps (all but the last
must succeed) and what the last must do: fail with a clean error naming the problem (no
panic, signal, hang or internal error), or succeed with the right answer.

Writes `<out>/<family>/<case>/...` and `<out>/cases.json`:
    [{"family", "name", "steps": [argv...], "expect": "error" | "ok", "contains": [...]}]
where argv may use {strata}, {strata-exec}, {strata-opt} (the binaries) and {case} (the
case's directory). Fixed seed: the same suite every run.
"""

import json
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OUT = sys.argv[1]
CASES = []
FLOAT, INT64, INT32 = TensorProto.FLOAT, TensorProto.INT64, TensorProto.INT32


def case_dir(family, name):
    path = os.path.join(OUT, family, name)
    os.makedirs(path, exist_ok=True)
    return path


def add(family, name, steps, expect, contains):
    """One case; `steps` are argv lists (the last is checked) or shell strings."""
    case_dir(family, name)
    steps = [["sh", "-c", s] if isinstance(s, str) else s for s in steps]
    CASES.append(
        {"family": family, "name": name, "steps": steps, "expect": expect, "contains": contains}
    )


def save_model(path, nodes, inputs, outputs, initializers=(), opset=17, domains=()):
    """`domains`: (domain, version) pairs imported beside the default domain's `opset`."""
    graph = helper.make_graph(nodes, "probe", inputs, outputs, list(initializers))
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, v) for d, v in domains]
    model = helper.make_model(graph, opset_imports=imports)
    model.ir_version = 8
    onnx.save(model, path)


def npy(path, array):
    np.save(path, array)
    return path


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def run(model, inputs, *extra):
    """`strata run` of `model` with `inputs` ({name: file}) and extra flags."""
    argv = ["{strata}", "run", model, "--no-cache"]
    for name, file in inputs.items():
        argv += ["--input", f"{name}={file}"]
    return argv + list(extra)


# --- external data: only regular files inside the model's folder ------------------------------


def external_data():
    family = "external-data"
    for name, location, prepare in [
        ("parent-escape", "../../../../../../etc/passwd", None),
        ("absolute-path", "/etc/passwd", None),
        ("fifo", "pipe.bin", lambda d: os.mkfifo(os.path.join(d, "pipe.bin"))),
        ("symlink-escape", "link.bin", lambda d: os.symlink("/etc/passwd", os.path.join(d, "link.bin"))),
        ("beyond-file", "short.bin", lambda d: open(os.path.join(d, "short.bin"), "wb").write(b"\0" * 8)),
        ("missing-file", "absent.bin", None),
    ]:
        d = case_dir(family, name)
        if prepare:
            path = os.path.join(d, location)
            if not os.path.lexists(path):
                prepare(d)
        w = TensorProto()
        w.name, w.data_type = "w", FLOAT
        w.dims.extend([4])
        w.data_location = TensorProto.EXTERNAL
        for key, value in [("location", location), ("offset", "0"), ("length", "16")]:
            entry = w.external_data.add()
            entry.key, entry.value = key, value
        model = os.path.join(d, "model.onnx")
        save_model(model, [helper.make_node("Add", ["x", "w"], ["y"])], [vi("x", FLOAT, [4])], [vi("y", FLOAT, [4])], [w])
        add(family, name, [["{strata}", "compile", model, "--emit=sg"]], "error", ["'w'"])


# --- run-time indices and integer division: an error status, never a wrong answer ------------


def runtime_checks():
    family = "run-time-checks"
    d = case_dir(family, "model")
    table = numpy_helper.from_array(np.arange(12, dtype=np.float32).reshape(4, 3), "table")
    model = os.path.join(d, "gather.onnx")
    save_model(
        model,
        [helper.make_node("Gather", ["table", "ids"], ["rows"], name="embed")],
        [vi("ids", INT64, [2])],
        [vi("rows", FLOAT, [2, 3])],
        [table],
    )
    for name, ids in [
        ("index-at-size", [0, 4]),
        ("index-1e9", [10**9, 0]),
        ("index-int64-max", [2**63 - 1, 1]),
        ("index-below-minus-size", [-5, 0]),
    ]:
        cd = case_dir(family, name)
        add(family, name, [run(model, {"ids": npy(os.path.join(cd, "ids.npy"), np.array(ids, np.int64))})],
            "error", ["node #0 'embed' (Gather)", "outside [-4, 4)"])
    cd = case_dir(family, "index-in-range")
    add(family, "index-in-range",
        [run(model, {"ids": npy(os.path.join(cd, "ids.npy"), np.array([-4, 3], np.int64))},
             "--expect", "rows=" + npy(os.path.join(cd, "rows.npy"), np.arange(12, dtype=np.float32).reshape(4, 3)[[0, 3]]),
             "--atol", "0", "--rtol", "0")],
        "ok", ["0 of 6 elements outside"])
    # Nodes imported into @main's block from subgraphs are checked too: the taken branch of an
    # If on a constant, and each iteration of an unrolled Loop (its carried value grows).
    body_gather = helper.make_node("Gather", ["table", "ids"], ["g"], name="lookup")
    then_branch = helper.make_graph([body_gather], "then", [], [vi("g", FLOAT, [2, 3])])
    else_branch = helper.make_graph([helper.make_node("Identity", ["table"], ["e"])], "else", [],
                                    [vi("e", FLOAT, [4, 3])])
    branch = os.path.join(d, "if_constant.onnx")
    save_model(branch, [helper.make_node("If", ["yes"], ["rows"], name="choose", then_branch=then_branch,
                                         else_branch=else_branch)],
               [vi("ids", INT64, [2])], [vi("rows", FLOAT, [2, 3])],
               [table, numpy_helper.from_array(np.array(True), "yes")])
    body = helper.make_graph(
        [helper.make_node("Gather", ["table", "ids"], ["g"], name="lookup"),
         helper.make_node("Concat", ["acc", "g"], ["acc_out"], axis=0),
         helper.make_node("Identity", ["cond"], ["cond_out"])],
        "body", [vi("i", INT64, []), vi("cond", TensorProto.BOOL, []), vi("acc", FLOAT, None)],
        [vi("cond_out", TensorProto.BOOL, []), vi("acc_out", FLOAT, None)])
    unrolled = os.path.join(d, "loop_unrolled.onnx")
    save_model(unrolled, [helper.make_node("Loop", ["trips", "", "start"], ["rows"], name="repeat", body=body)],
               [vi("ids", INT64, [2])], [vi("rows", FLOAT, [5, 3])],
               [table, numpy_helper.from_array(np.array(2, np.int64), "trips"),
                numpy_helper.from_array(np.zeros((1, 3), np.float32), "start")])
    # An If on a condition computed at run time (scf.if): each branch's checks leave the
    # region as its status; the else branch divides by a run-time divisor.
    else_div = helper.make_graph(
        [helper.make_node("Gather", ["table", "ids"], ["g0"], name="lookup2"),
         helper.make_node("Div", ["ids", "ids"], ["q"], name="ratio"),
         helper.make_node("Cast", ["q"], ["qf"], to=FLOAT),
         helper.make_node("Unsqueeze", ["qf", "one"], ["qu"]),
         helper.make_node("Mul", ["g0", "qu"], ["e"])],
        "else", [], [vi("e", FLOAT, [2, 3])])
    runtime_if = os.path.join(d, "if_runtime.onnx")
    save_model(runtime_if,
               [helper.make_node("ReduceSum", ["ids"], ["total"], keepdims=0),
                helper.make_node("Greater", ["total", "zero"], ["positive"]),
                helper.make_node("If", ["positive"], ["rows"], name="choose", then_branch=then_branch,
                                 else_branch=else_div)],
               [vi("ids", INT64, [2])], [vi("rows", FLOAT, [2, 3])],
               [table, numpy_helper.from_array(np.array(0, np.int64), "zero"),
                numpy_helper.from_array(np.array([1], np.int64), "one")])
    for name, ids, needle in [("in-if-at-run-time-then", [1, 9], "'choose/then/lookup' (Gather)"),
                              ("in-if-at-run-time-else", [-1, -9], "'choose/else/lookup2' (Gather)"),
                              ("in-if-at-run-time-else-div", [0, -3], "'choose/else/ratio' (Div): integer division by zero")]:
        cd = case_dir(family, name)
        add(family, name, [run(runtime_if, {"ids": npy(os.path.join(cd, "ids.npy"), np.array(ids, np.int64))})],
            "error", [needle])
    # Loops that stay loops carry their body's status: scf.for (a trip count), scf.while (a
    # condition computed at run time), Scan. The body gathers row `ids[i]` each iteration.
    def loop_body(condition):
        nodes = [helper.make_node("Unsqueeze", ["i", "axis0"], ["i1"]),
                 helper.make_node("Gather", ["ids", "i1"], ["id"]),
                 helper.make_node("Gather", ["table", "id"], ["row"], name="step"),
                 helper.make_node("Add", ["acc", "row"], ["acc_out"])]
        if condition:
            nodes.append(helper.make_node("Less", ["i", "last"], ["cond_out"]))
        else:
            nodes.append(helper.make_node("Identity", ["cond"], ["cond_out"]))
        return helper.make_graph(nodes, "body",
                                 [vi("i", INT64, []), vi("cond", TensorProto.BOOL, []), vi("acc", FLOAT, [1, 3])],
                                 [vi("cond_out", TensorProto.BOOL, []), vi("acc_out", FLOAT, [1, 3])])
    consts = [table, numpy_helper.from_array(np.array([0], np.int64), "axis0"),
              numpy_helper.from_array(np.zeros((1, 3), np.float32), "start"),
              numpy_helper.from_array(np.array(True), "true")]
    # The trip count (scf.for) and the last iteration (scf.while) are inputs: run-time values.
    for_loop = os.path.join(d, "loop_for.onnx")
    save_model(for_loop, [helper.make_node("Loop", ["trips", "", "start"], ["sum"], name="walk", body=loop_body(False))],
               [vi("ids", INT64, [4]), vi("trips", INT64, [])], [vi("sum", FLOAT, [1, 3])], consts)
    while_loop = os.path.join(d, "loop_while.onnx")
    save_model(while_loop, [helper.make_node("Loop", ["", "true", "start"], ["sum"], name="walk", body=loop_body(True))],
               [vi("ids", INT64, [4]), vi("last", INT64, [])], [vi("sum", FLOAT, [1, 3])], consts)
    scan_body = helper.make_graph(
        [helper.make_node("Gather", ["table", "id"], ["row"], name="step"),
         helper.make_node("Add", ["acc", "row"], ["acc_out"])],
        "body", [vi("acc", FLOAT, [3]), vi("id", INT64, [])], [vi("acc_out", FLOAT, [3])])
    scan = os.path.join(d, "scan.onnx")
    save_model(scan, [helper.make_node("Scan", ["zeros", "ids"], ["sum"], name="walk", body=scan_body,
                                       num_scan_inputs=1)],
               [vi("ids", INT64, [4])], [vi("sum", FLOAT, [3])],
               [table, numpy_helper.from_array(np.zeros(3, np.float32), "zeros")])
    for name, model_path, extra in [("in-loop-for", for_loop, ("trips", 4)), ("in-loop-while", while_loop, ("last", 2)),
                                    ("in-scan", scan, None)]:
        for valid in [False, True]:
            case = name + ("-valid" if valid else "")
            cd = case_dir(family, case)
            ids = np.array([0, 1, -1, 2] if valid else [0, 1, 7, 2], np.int64)
            inputs = {"ids": npy(os.path.join(cd, "ids.npy"), ids)}
            if extra:
                inputs[extra[0]] = npy(os.path.join(cd, extra[0] + ".npy"), np.array(extra[1], np.int64))
            if not valid:
                add(family, case, [run(model_path, inputs)], "error", ["'walk/body/step' (Gather): an index"])
                continue
            total = np.arange(12, dtype=np.float32).reshape(4, 3)[ids[:3 if "while" in name else 4]].sum(axis=0)
            expected = total if name == "in-scan" else total.reshape(1, 3)
            add(family, case, [run(model_path, inputs, "--expect", "sum=" + npy(os.path.join(cd, "sum.npy"), expected),
                                   "--atol", "0")],
                "ok", ["0 of 3 elements outside"])
    cd = case_dir(family, "in-if-at-run-time-valid")
    ids = np.array([-1, -2], np.int64)
    rows = np.arange(12, dtype=np.float32).reshape(4, 3)[ids]
    add(family, "in-if-at-run-time-valid",
        [run(runtime_if, {"ids": npy(os.path.join(cd, "ids.npy"), ids)},
             "--expect", "rows=" + npy(os.path.join(cd, "rows.npy"), rows), "--atol", "0")],
        "ok", ["0 of 6 elements outside"])
    for name, model_path, needle in [("in-if-on-constant", branch, "'choose/then/lookup' (Gather)"),
                                     ("in-unrolled-loop", unrolled, "(Gather): an index in 'ids' is outside [-4, 4)")]:
        cd = case_dir(family, name)
        add(family, name, [run(model_path, {"ids": npy(os.path.join(cd, "ids.npy"), np.array([1, 9], np.int64))})],
            "error", [needle])
    elements = os.path.join(d, "gather_elements.onnx")
    save_model(
        elements,
        [helper.make_node("GatherElements", ["data", "at"], ["y"], axis=1, name="pick")],
        [vi("data", FLOAT, [2, 3]), vi("at", INT64, [2, 2])],
        [vi("y", FLOAT, [2, 2])],
    )
    cd = case_dir(family, "gather-elements-out-of-range")
    add(family, "gather-elements-out-of-range",
        [run(elements, {"data": npy(os.path.join(cd, "data.npy"), np.ones((2, 3), np.float32)),
                        "at": npy(os.path.join(cd, "at.npy"), np.array([[0, 3], [1, 2]], np.int64))})],
        "error", ["'pick' (GatherElements)"])
    for dtype, np_type in [(INT32, np.int32), (INT64, np.int64)]:
        for op in ["Div", "Mod"]:
            name = f"{op.lower()}-by-zero-{np.dtype(np_type).name}"
            cd = case_dir(family, name)
            model = os.path.join(cd, "model.onnx")
            save_model(model, [helper.make_node(op, ["a", "b"], ["q"], name="divide")],
                       [vi("a", dtype, [3]), vi("b", dtype, [3])], [vi("q", dtype, [3])])
            add(family, name,
                [run(model, {"a": npy(os.path.join(cd, "a.npy"), np.array([7, -7, 9], np_type)),
                             "b": npy(os.path.join(cd, "b.npy"), np.array([2, 0, 3], np_type))})],
                "error", ["node #0 'divide'", "by zero"])
    cd = case_dir(family, "int-min-by-minus-one")
    model = os.path.join(cd, "model.onnx")
    save_model(model, [helper.make_node("Div", ["a", "b"], ["q"])], [vi("a", INT32, [2]), vi("b", INT32, [2])],
               [vi("q", INT32, [2])])
    minimum = np.iinfo(np.int32).min
    add(family, "int-min-by-minus-one",
        [run(model, {"a": npy(os.path.join(cd, "a.npy"), np.array([minimum, 6], np.int32)),
                     "b": npy(os.path.join(cd, "b.npy"), np.array([-1, 3], np.int32))},
             "--expect", "q=" + npy(os.path.join(cd, "q.npy"), np.array([minimum, 2], np.int32)), "--atol", "0")],
        "ok", ["0 of 2 elements outside"])


# --- graph validation: contradictions refused, aliased outputs correct -----------------------


def graph_validation():
    family = "graph-validation"
    x, y = vi("x", FLOAT, [2, 3]), vi("y", FLOAT, [2, 3])

    def model(name, nodes, inputs, outputs, inits=()):
        path = os.path.join(case_dir(family, name), "model.onnx")
        graph = helper.make_graph(nodes, "probe", inputs, outputs, list(inits))
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        m.ir_version = 8
        with open(path, "wb") as f:  # not onnx.save: some of these fail onnx's checker on purpose
            f.write(m.SerializeToString())
        return path

    cases = [
        ("duplicate-node-output", [helper.make_node("Relu", ["x"], ["t"]), helper.make_node("Neg", ["x"], ["t"]),
                                   helper.make_node("Identity", ["t"], ["y"])], [x], [y], (), "already defined"),
        ("duplicate-graph-input", [helper.make_node("Relu", ["x"], ["y"])], [x, x], [y], (), "'x'"),
        ("softmax-axis-as-tensor", [helper.make_node("Softmax", ["x"], ["y"],
                                                     axis=numpy_helper.from_array(np.array(1, np.int64)))],
         [x], [y], (), "axis"),
        ("leakyrelu-alpha-as-int", [helper.make_node("LeakyRelu", ["x"], ["y"], alpha=2)], [x], [y], (), "alpha"),
        ("constant-index-out-of-range",
         [helper.make_node("Gather", ["x", "i"], ["y"], axis=0)], [x], [vi("y", FLOAT, [1, 3])],
         [numpy_helper.from_array(np.array([5], np.int64), "i")], "out of range"),
        ("undefined-input", [helper.make_node("Relu", ["nowhere"], ["y"])], [x], [y], (), "'nowhere'"),
        ("det-not-square", [helper.make_node("Det", ["x"], ["y"])], [x], [vi("y", FLOAT, [])], (),
         "Det takes square matrices in the last two axes, [..., M, M]; got [2, 3]"),
    ]
    for name, nodes, inputs, outputs, inits, needle in cases:
        path = model(name, nodes, inputs, outputs, inits)
        add(family, name, [["{strata}", "compile", path, "--emit=sg"]], "error", [needle])
    # A Gather from an empty constant: every index is out of range, at run time.
    cd = case_dir(family, "gather-from-empty-constant")
    path = model("gather-from-empty-constant", [helper.make_node("Gather", ["e", "i"], ["y"], axis=0)],
                 [vi("i", INT64, [1])], [vi("y", FLOAT, [1, 3])],
                 [numpy_helper.from_array(np.zeros((0, 3), np.float32), "e")])
    add(family, "gather-from-empty-constant", [run(path, {"i": npy(os.path.join(cd, "i.npy"), np.array([0], np.int64))})],
        "error", ["outside [0, 0)"])
    # Det of singular matrices (a repeated column, a zero column: no pivot) and of a batch
    # needing row swaps, against NumPy's LAPACK determinant.
    cd = case_dir(family, "det-singular-and-pivoted")
    mats = np.random.default_rng(5).standard_normal((4, 4, 4)).astype(np.float32)
    mats[0, :, 2] = mats[0, :, 0]
    mats[1, :, 0] = 0
    mats[2] = mats[2][[3, 1, 0, 2]]
    path = model("det-singular-and-pivoted", [helper.make_node("Det", ["m"], ["d"])], [vi("m", FLOAT, [4, 4, 4])],
                 [vi("d", FLOAT, [4])])
    expected = npy(os.path.join(cd, "expected.npy"), np.linalg.det(mats).astype(np.float32))
    add(family, "det-singular-and-pivoted", [run(path, {"m": npy(os.path.join(cd, "m.npy"), mats)}, "--expect",
                                                 f"d={expected}", "--atol", "1e-6")], "ok", ["expect 'd': 0 of 4"])
    # One value as two graph outputs (through Identity, and listed twice): correct and separate.
    for name, nodes, outputs in [
        ("value-as-two-outputs", [helper.make_node("Relu", ["x"], ["y"]), helper.make_node("Identity", ["y"], ["z"])],
         [y, vi("z", FLOAT, [2, 3])]),
    ]:
        cd = case_dir(family, name)
        path = model(name, nodes, [x], outputs)
        value = np.array([[-1, 2, -3], [4, -5, 6]], np.float32)
        expected = npy(os.path.join(cd, "expected.npy"), np.maximum(value, 0))
        add(family, name, [run(path, {"x": npy(os.path.join(cd, "x.npy"), value)}, "--expect", f"y={expected}",
                               "--expect", f"z={expected}", "--atol", "0")],
            "ok", ["expect 'y': 0 of 6", "expect 'z': 0 of 6"])


# --- model bytes that are not a model ---------------------------------------------------------


def model_bytes():
    family = "onnx-bytes"
    rng = np.random.default_rng(22)
    good = helper.make_model(helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g",
                                               [vi("x", FLOAT, [2])], [vi("y", FLOAT, [2])]))
    data = good.SerializeToString()
    for name, content in [
        ("empty", b""),
        ("truncated", data[: len(data) // 2]),
        ("random-bytes", rng.integers(0, 256, 4096, dtype=np.uint8).tobytes()),
        ("text", b"this is not an ONNX model\n"),
        ("no-graph", helper.make_model(helper.make_graph([], "g", [], [])).SerializeToString()[:4]),
    ]:
        path = os.path.join(case_dir(family, name), "model.onnx")
        open(path, "wb").write(content)
        add(family, name, [["{strata}", "compile", path, "--emit=sg"]], "error", ["model.onnx"])


# --- command-line flags -----------------------------------------------------------------------


def cli_flags():
    family = "cli-flags"
    d = case_dir(family, "model")
    relu = os.path.join(d, "relu.onnx")
    save_model(relu, [helper.make_node("Relu", ["x"], ["y"])], [vi("x", FLOAT, [2, 3])], [vi("y", FLOAT, [2, 3])])
    symbolic = os.path.join(d, "symbolic.onnx")
    save_model(symbolic, [helper.make_node("Relu", ["x"], ["y"])], [vi("x", FLOAT, ["n", 3])],
               [vi("y", FLOAT, ["n", 3])])
    x = npy(os.path.join(d, "x.npy"), np.ones((2, 3), np.float32))
    pb = os.path.join(d, "x_wrong.pb")
    open(pb, "wb").write(numpy_helper.from_array(np.ones((5,), np.float32), "x").SerializeToString())
    pb64 = os.path.join(d, "x_int64.pb")
    open(pb64, "wb").write(numpy_helper.from_array(np.ones((2, 3), np.int64), "x").SerializeToString())
    # A shape computed from a constant that import must fold: a Range of 2^24 int64 values.
    folded = os.path.join(d, "folded.onnx")
    save_model(folded, [helper.make_node("Range", ["a", "b", "c"], ["r"]),
                        helper.make_node("ReduceMax", ["r"], ["m"], keepdims=1),
                        helper.make_node("Reshape", ["x", "m"], ["y"])],
               [vi("x", FLOAT, [2, 3])], [vi("y", FLOAT, [6])],
               [numpy_helper.from_array(np.array(0, np.int64), "a"),
                numpy_helper.from_array(np.array(1 << 24, np.int64), "b"),
                numpy_helper.from_array(np.array(1, np.int64), "c")])
    cases = [
        ("repeat-zero", run(relu, {"x": x}, "--repeat", "0"), "--repeat"),
        ("threads-zero", run(relu, {"x": x}, "--threads", "0"), "--threads"),
        ("input-shape-wrong-rank", run(symbolic, {"x": x}, "--input-shape", "x=2x3x4"), "has rank 3, the model declares rank 2"),
        ("input-shape-conflicts-static", run(relu, {"x": x}, "--input-shape", "x=5x3"), "has 5 at dimension 0"),
        ("freeze-input-wrong-shape", ["{strata}", "compile", relu, "--freeze-input", f"x={pb}", "--emit=sg"],
         "cannot freeze 'x': the value's shape [5] has rank 1"),
        ("freeze-input-wrong-type", ["{strata}", "compile", relu, "--freeze-input", f"x={pb64}", "--emit=sg"],
         "element type INT64"),
        ("input-given-twice", run(relu, {"x": x}, "--input", f"x={x}"), "twice"),
        ("unknown-input", run(relu, {"x": x}, "--input", f"q={x}"), "'q'"),
        ("unknown-gpu-chip", ["{strata}", "compile", relu, "--target=nvptx", "--chip=sm_1", "-o",
                              os.path.join(d, "bad.ptx")], "sm_1"),
        ("library-over-its-manifest", ["{strata}", "compile", relu, "--emit=so", "-o", os.path.join(d, "m.json")],
         "overwritten by its own manifest"),
        ("library-over-its-header", ["{strata}", "compile", relu, "--emit=so", "-o", os.path.join(d, "m.h")],
         "overwritten by its own header"),
        ("ptx-over-its-manifest", ["{strata}", "compile", relu, "--target=nvptx", "-o", os.path.join(d, "g.json")],
         "overwritten by its own manifest"),
        ("constant-over-budget", ["{strata}", "compile", folded, "--max-constant-bytes", "1000000", "--emit=sg"],
         "--max-constant-bytes"),
        ("unknown-strategy", run(relu, {"x": x}, "--strategy", "fastest"), "fastest"),
    ]
    for name, argv, needle in cases:
        add(family, name, [argv], "error", [needle])
    # `strata run` takes a symbolic input's shape from the array it is given (4 rows here),
    # checked against the dimensions the model fixes.
    x4 = npy(os.path.join(d, "x4.npy"), np.arange(-6, 6, dtype=np.float32).reshape(4, 3))
    y4 = npy(os.path.join(d, "y4.npy"), np.maximum(np.arange(-6, 6, dtype=np.float32), 0).reshape(4, 3))
    add(family, "input-shape-from-array", [run(symbolic, {"x": x4}, "--expect", f"y={y4}")], "ok",
        ["0 of 12 elements outside"])
    x34 = npy(os.path.join(d, "x34.npy"), np.ones((4, 4), np.float32))
    add(family, "input-array-does-not-fit", [run(symbolic, {"x": x34})], "error",
        ["input 'x': the array given for it does not fit", "has 4 at dimension 1"])


# --- run-time inputs (.npy) -------------------------------------------------------------------


def npy_inputs():
    family = "npy-inputs"
    d = case_dir(family, "model")
    relu = os.path.join(d, "relu.onnx")
    save_model(relu, [helper.make_node("Relu", ["x"], ["y"])], [vi("x", FLOAT, [2, 3])], [vi("y", FLOAT, [2, 3])])
    good = np.ones((2, 3), np.float32)

    def header(shape):
        text = "{'descr': '<f4', 'fortran_order': False, 'shape': %s, }" % (shape,)
        text += " " * (64 - (10 + len(text) + 1) % 64) + "\n"
        return b"\x93NUMPY\x01\x00" + len(text).to_bytes(2, "little") + text.encode()

    for name, content, needle in [
        ("truncated", None, "x.npy"),
        ("wrong-dtype", np.ones((2, 3), np.float64), "float64"),
        ("wrong-shape", np.ones((3, 2), np.float32), "[3, 2]"),
        ("fortran-order", np.asfortranarray(np.ones((2, 3), np.float32)), "Fortran"),
        ("huge-shape", header("(1099511627776, 1099511627776)") + b"\0" * 16, "larger than memory"),
        ("claims-more-data", header("(100000000,)") + b"\0" * 16, "the file has"),
        ("not-npy", b"x,y\n1,2\n", "x.npy"),
    ]:
        cd = case_dir(family, name)
        path = os.path.join(cd, "x.npy")
        if content is None:
            np.save(path, good)
            data = open(path, "rb").read()
            open(path, "wb").write(data[:-7])
        elif isinstance(content, bytes):
            open(path, "wb").write(content)
        else:
            np.save(path, content)
        add(family, name, [run(relu, {"x": path})], "error", [needle])
    # paddle2onnx declares open dimensions as -1 (dim_value), not as names: the array decides.
    open_dims = os.path.join(d, "relu_minus_one.onnx")
    save_model(open_dims, [helper.make_node("Relu", ["x"], ["y"])], [vi("x", FLOAT, [-1, 3])], [vi("y", FLOAT, [-1, 3])])
    cd = case_dir(family, "minus-one-dimension")
    x = np.array([[-1, 2, -3], [4, -5, 6], [-7, 8, 9], [0, -1, 1]], np.float32)
    add(family, "minus-one-dimension",
        [run(open_dims, {"x": npy(os.path.join(cd, "x.npy"), x)},
             "--expect", "y=" + npy(os.path.join(cd, "y.npy"), np.maximum(x, 0)), "--atol", "0", "--rtol", "0")],
        "ok", ["0 of 12 elements outside"])


# --- MLIR text and pipelines ------------------------------------------------------------------


def mlir_text():
    family = "mlir-nesting"
    depth = 20000
    for name, text in [
        ("nested-attributes", "module attributes {a = " + "[" * depth + "]" * depth + "} {}\n"),
        ("nested-regions", "".join("\"test.op\"() ({\n" for _ in range(depth)) + "}) : () -> ()\n" * depth),
        ("nested-types", "func.func private @f() -> " + "tuple<" * depth + ">" * depth + "\n"),
    ]:
        path = os.path.join(case_dir(family, name), "input.mlir")
        open(path, "w").write(text)
        add(family, name, [["{strata-opt}", path]], "error", ["nested"])
    path = os.path.join(case_dir(family, "nested-pipeline"), "input.mlir")
    open(path, "w").write("module {}\n")
    pipeline = "builtin.module(" + "builtin.module(" * 100 + "cse" + ")" * 101
    add(family, "nested-pipeline", [["{strata-opt}", path, "-p", pipeline]], "error", ["nests deeper"])


# --- planner CSVs -----------------------------------------------------------------------------


def planner_csv():
    family = "planner-csv"
    for name, text, needle in [
        ("missing-size-column", "id,lower,upper\na,0,1\n", "'size'"),
        ("negative-size", "id,lower,upper,size\na,0,1,-4\n", "not a non-negative integer"),
        ("sizes-overflow", "id,lower,upper,size\na,0,2,18446744073709551615\nb,1,3,18446744073709551615\n", "2^63"),
        ("end-at-max", "buffer,start,end,size\na,0,18446744073709551615,4\n", "no end"),
        ("garbage", "\x00\x01\x02 not, a, csv\n\"unterminated\n", "csv"),
        ("lower-after-upper", "id,lower,upper,size\na,5,2,4\n", "'a'"),
    ]:
        path = os.path.join(case_dir(family, name), "buffers.csv")
        open(path, "w").write(text)
        add(family, name, [["{strata}", "plan", path]], "error", [needle])


# --- compiled artifacts edited after compiling ------------------------------------------------


def artifacts():
    family = "artifacts"
    d = case_dir(family, "model")
    relu = os.path.join(d, "relu.onnx")
    save_model(relu, [helper.make_node("Relu", ["x"], ["y"])], [vi("x", FLOAT, [2, 3])], [vi("y", FLOAT, [2, 3])])
    x = npy(os.path.join(d, "x.npy"), np.ones((2, 3), np.float32))
    edit = "import json,sys; p=sys.argv[1]; m=json.load(open(p)); {}; json.dump(m, open(p, 'w'))"
    for name, change, needle in [
        ("shape-edited", "python3 -c \"%s\" {case}/m.json" % edit.format("m['inputs'][0]['shape'][0] = 200"),
         "'inputs[0].shape[0]'"),
        ("arena-edited", "python3 -c \"%s\" {case}/m.json" % edit.format("m['arena_bytes'] = 1"), "'arena_bytes'"),
        ("library-byte-appended", "printf x >> {case}/librelu.so", "SHA-256"),
        ("library-outside", "python3 -c \"%s\" {case}/m.json" % edit.format("m['library'] = '/lib/x86_64-linux-gnu/libc.so.6'"),
         "file name beside the manifest"),
        ("entry-abort", "python3 -c \"%s\" {case}/m.json" % edit.format("m['entry'] = 'abort'"), "entry point"),
        ("alignment-edited", "python3 -c \"%s\" {case}/m.json" % edit.format("m['arena_alignment'] = 3"), "power of two"),
        ("digests-removed", "python3 -c \"%s\" {case}/m.json" % edit.format("m.pop('sha256')"), "digests"),
        ("library-symlink", "mv {case}/librelu.so {case}/real.so && ln -s real.so {case}/librelu.so", "symbolic link"),
    ]:
        compile_step = ["{strata}", "compile", relu, "--name", "relu", "-o", "{case}/librelu.so"]
        add(family, name, [compile_step, "mv {case}/relu.json {case}/m.json", change,
                           ["{strata-exec}", "run", "{case}/m.json", "--input", f"x={x}", "--repeat", "1"]],
            "error", [needle])


# --- concurrent use ---------------------------------------------------------------------------


def concurrency():
    family = "concurrency"
    d = case_dir(family, "model")
    relu = os.path.join(d, "relu.onnx")
    save_model(relu, [helper.make_node("Relu", ["x"], ["y"])], [vi("x", FLOAT, [512, 512])],
               [vi("y", FLOAT, [512, 512])])
    rng = np.random.default_rng(7)
    x = npy(os.path.join(d, "x.npy"), rng.standard_normal((512, 512)).astype(np.float32))
    y = npy(os.path.join(d, "y.npy"), np.maximum(np.load(x), 0))
    runs = " & ".join(
        f"{{strata}} run {relu} --no-cache --input x={x} --output-dir {{case}}/out >/dev/null" for _ in range(4)
    )
    add(family, "parallel-runs-one-output-dir",
        [f"{runs} & wait", ["python3", "-c",
                            "import numpy as np,sys; assert (np.load(sys.argv[1]) == np.load(sys.argv[2])).all(); "
                            "print('identical')", "{case}/out/y.npy", y]],
        "ok", ["identical"])
    compiles = " & ".join(f"{{strata}} compile {relu} -o {{case}}/libm.so >/dev/null" for _ in range(4))
    add(family, "parallel-compiles-one-library",
        [f"{compiles} & wait",
         ["{strata-exec}", "run", "{case}/m.json", "--input", f"x={x}", "--expect", f"y={y}", "--repeat", "1"]],
        "ok", ["0 of 262144 elements outside"])


# --- windows at the borders: depthwise convolutions and pools over padding, against NumPy -------


def window_reference(kind, x, k, s, d, pads, w=None, b=None, include_pad=True):
    """Depthwise convolution (then Clip 0..6), max pool or average pool of `x` [1, C, H, W]
    by NumPy loops: window `k`, strides `s`, dilations `d`, pads [top, left, bottom, right]."""
    _, c, h, wd = x.shape
    fill = -np.inf if kind == "max" else 0.0
    xp = np.full((1, c, h + pads[0] + pads[2], wd + pads[1] + pads[3]), fill, np.float64)
    xp[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + wd] = x
    inside = np.zeros(xp.shape[2:], bool)
    inside[pads[0]:pads[0] + h, pads[1]:pads[1] + wd] = True
    span = [(k[i] - 1) * d[i] + 1 for i in range(2)]
    oh, ow = [(xp.shape[2 + i] - span[i]) // s[i] + 1 for i in range(2)]
    y = np.zeros((1, c, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            rows = slice(i * s[0], i * s[0] + span[0], d[0])
            cols = slice(j * s[1], j * s[1] + span[1], d[1])
            patch = xp[0, :, rows, cols]
            if kind == "dw":
                y[0, :, i, j] = (patch * w[:, 0]).sum(axis=(1, 2)) + b
            elif kind == "max":
                y[0, :, i, j] = patch.max(axis=(1, 2))
            else:
                count = patch[0].size if include_pad else inside[rows, cols].sum()
                y[0, :, i, j] = patch.sum(axis=(1, 2)) / count
    return np.clip(y, 0, 6).astype(np.float32) if kind == "dw" else y.astype(np.float32)


def window_borders():
    """Depthwise convolutions and pools whose windows reach into their padding, the shapes
    `strata-conv-borders` splits into parts with cut windows (and some it keeps whole), run
    on the host against NumPy: every part, stride, dilation and asymmetric pad must agree."""
    family = "window-borders"
    rng = np.random.default_rng(2026)
    # name, kind, channels, H, W, window, strides, dilations, pads (top, left, bottom, right)
    cases = [
        ("dw3-s1", "dw", 8, 12, 20, (3, 3), (1, 1), (1, 1), (1, 1, 1, 1)),
        ("dw3-s2-odd", "dw", 8, 13, 21, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1)),
        ("dw3-s21", "dw", 8, 16, 24, (3, 3), (2, 1), (1, 1), (1, 1, 1, 1)),
        ("dw3-asymmetric", "dw", 8, 12, 20, (3, 3), (1, 1), (1, 1), (0, 1, 2, 1)),
        ("dw3-dilated", "dw", 4, 16, 16, (3, 3), (1, 1), (2, 2), (2, 2, 2, 2)),
        ("dw5-pad2", "dw", 4, 16, 18, (5, 5), (1, 1), (1, 1), (2, 2, 2, 2)),
        ("max3-s2", "max", 8, 16, 16, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1)),
        ("max3-s1", "max", 8, 12, 20, (3, 3), (1, 1), (1, 1), (1, 1, 1, 1)),
        ("max5-mostly-border", "max", 4, 4, 4, (5, 5), (1, 1), (1, 1), (2, 2, 2, 2)),
        ("avg3-include-pad", "avg", 8, 12, 12, (3, 3), (1, 1), (1, 1), (1, 1, 1, 1)),
        ("avg3-s2-exclude-pad", "avg", 8, 13, 13, (3, 3), (2, 2), (1, 1), (1, 1, 1, 1)),
    ]
    for name, kind, c, h, wd, k, s, d, pads in cases:
        cd = case_dir(family, name)
        x = (rng.standard_normal((1, c, h, wd)) * 3).astype(np.float32)
        attrs = {"kernel_shape": list(k), "strides": list(s), "pads": [pads[0], pads[1], pads[2], pads[3]]}
        inits, w, b = [], None, None
        if kind == "dw":
            w = rng.standard_normal((c, 1) + k).astype(np.float32)
            b = rng.standard_normal(c).astype(np.float32)
            inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b"),
                     numpy_helper.from_array(np.array(0, np.float32), "lo"),
                     numpy_helper.from_array(np.array(6, np.float32), "hi")]
            nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], group=c, dilations=list(d), **attrs),
                     helper.make_node("Clip", ["c", "lo", "hi"], ["y"])]
        elif kind == "max":
            nodes = [helper.make_node("MaxPool", ["x"], ["y"], **attrs)]
        else:
            include = name.endswith("include-pad")
            nodes = [helper.make_node("AveragePool", ["x"], ["y"], count_include_pad=int(include), **attrs)]
        expected = window_reference(kind, x, k, s, d, pads, w, b, include_pad=name.endswith("include-pad"))
        model = os.path.join(cd, "m.onnx")
        save_model(model, nodes, [vi("x", FLOAT, list(x.shape))], [vi("y", FLOAT, list(expected.shape))], inits)
        inputs = {"x": npy(os.path.join(cd, "x.npy"), x)}
        add(family, name, [run(model, inputs, "--expect", "y=" + npy(os.path.join(cd, "y.npy"), expected),
                               "--rtol", "1e-5", "--atol", "1e-5")],
            "ok", [f"0 of {expected.size} elements outside"])


def conv_reference(x, w, b, s, d, pads):
    """A convolution of `x` [1, C, H, W] by `w` [F, C, KH, KW] plus `b` in float64: strides `s`,
    dilations `d`, pads [top, left, bottom, right] of zeros."""
    _, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    xp = np.zeros((1, c, h + pads[0] + pads[2], wd + pads[1] + pads[3]), np.float64)
    xp[:, :, pads[0]:pads[0] + h, pads[1]:pads[1] + wd] = x
    oh = (xp.shape[2] - (kh - 1) * d[0] - 1) // s[0] + 1
    ow = (xp.shape[3] - (kw - 1) * d[1] - 1) // s[1] + 1
    y = np.zeros((1, f, oh, ow), np.float64) + b[None, :, None, None]
    for i in range(kh):
        for j in range(kw):
            rows = slice(i * d[0], i * d[0] + (oh - 1) * s[0] + 1, s[0])
            cols = slice(j * d[1], j * d[1] + (ow - 1) * s[1] + 1, s[1])
            y[0] += np.einsum("fc,chw->fhw", w[:, :, i, j].astype(np.float64), xp[0, :, rows, cols])
    return y


def against_numpy_on_threads(family, name, nodes, inits, x, expected):
    """Cases `<name>-t1` and `-t2`: the model of `nodes` on input `x`, run on one and two
    threads, must give `expected` within rtol 1e-4 and atol 1e-5."""
    for threads in ("1", "2"):
        cd = case_dir(family, f"{name}-t{threads}")
        model = os.path.join(cd, "m.onnx")
        save_model(model, nodes, [vi("x", FLOAT, list(x.shape))], [vi("y", FLOAT, list(expected.shape))], inits)
        inputs = {"x": npy(os.path.join(cd, "x.npy"), x)}
        add(family, f"{name}-t{threads}",
            [run(model, inputs, "--threads", threads, "--expect", "y=" + npy(os.path.join(cd, "y.npy"), expected),
                 "--rtol", "1e-4", "--atol", "1e-5")],
            "ok", [f"0 of {expected.size} elements outside"])


def band_chains():
    """A convolution, a ReLU and a pool (or a second convolution and ReLU), the chain
    `strata-band-chains` runs in bands of output rows (each band computing only the convolution
    rows its windows read, with the windows of neighbouring bands overlapping): ResNet's stem,
    VGG's unpadded 2x2 pools, stride 1, a dilated convolution, odd sizes (uneven bands),
    asymmetric pads, average pools and convolutions read by convolutions, against NumPy, on one
    and two threads."""
    family = "band-chains"
    rng = np.random.default_rng(11)
    # name, channels in/out, H, W, conv (window, strides, dilations, pads), pool (kind, window,
    # strides, pads)
    cases = [
        ("resnet-stem", 3, 16, 96, 96, ((7, 7), (2, 2), (1, 1), (3, 3, 3, 3)), ("max", (3, 3), (2, 2), (1, 1, 1, 1))),
        ("vgg-unpadded-pool", 4, 16, 48, 40, ((3, 3), (1, 1), (1, 1), (1, 1, 1, 1)), ("max", (2, 2), (2, 2), (0, 0, 0, 0))),
        ("strided-conv-unpadded", 3, 16, 65, 65, ((3, 3), (2, 2), (1, 1), (0, 0, 0, 0)), ("max", (2, 2), (2, 2), (0, 0, 0, 0))),
        ("dilated-odd", 3, 16, 55, 49, ((3, 3), (1, 1), (2, 2), (2, 2, 2, 2)), ("max", (3, 3), (2, 2), (1, 1, 1, 1))),
        ("asymmetric-pool-pad", 4, 16, 40, 32, ((3, 3), (1, 1), (1, 1), (1, 1, 1, 1)), ("max", (3, 3), (2, 2), (0, 0, 1, 1))),
        ("avg-s2-odd", 3, 16, 59, 39, ((5, 5), (1, 1), (1, 1), (2, 2, 2, 2)), ("avg", (3, 3), (2, 2), (1, 1, 1, 1))),
        # A convolution read by a convolution (its bias and ReLU banded with it).
        ("conv-s2-after-conv", 3, 16, 60, 52, ((3, 3), (1, 1), (1, 1), (1, 1, 1, 1)), ("conv", (3, 3), (2, 2), (1, 1, 1, 1))),
        ("conv-5x5-s2-unpadded", 3, 16, 99, 60, ((3, 3), (2, 2), (1, 1), (1, 1, 1, 1)), ("conv", (5, 5), (2, 2), (0, 0, 0, 0))),
        # Left whole (readers that keep their rows), checked all the same.
        ("avg-s1", 4, 8, 16, 16, ((3, 3), (1, 1), (1, 1), (1, 1, 1, 1)), ("avg", (3, 3), (1, 1), (1, 1, 1, 1))),
        ("conv-s1-after-conv", 4, 8, 21, 18, ((3, 3), (1, 1), (1, 1), (1, 1, 1, 1)), ("conv", (3, 3), (1, 1), (1, 1, 1, 1))),
    ]
    for name, c, f, h, wd, (k, s, d, pads), (kind, pk, ps, ppads) in cases:
        x = rng.standard_normal((1, c, h, wd)).astype(np.float32)
        w = (rng.standard_normal((f, c) + k) / np.sqrt(c * k[0] * k[1])).astype(np.float32)
        b = rng.standard_normal(f).astype(np.float32) * 0.1
        inits = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")]
        conv = {"kernel_shape": list(k), "strides": list(s), "dilations": list(d), "pads": list(pads)}
        pool = {"kernel_shape": list(pk), "strides": list(ps), "pads": list(ppads)}
        nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], **conv),
                 helper.make_node("Relu", ["c"], ["r"])]
        relu = np.maximum(conv_reference(x, w, b, s, d, pads), 0)
        if kind == "conv":
            w2 = (rng.standard_normal((f, f) + pk) / np.sqrt(f * pk[0] * pk[1])).astype(np.float32)
            b2 = rng.standard_normal(f).astype(np.float32) * 0.1
            inits += [numpy_helper.from_array(w2, "w2"), numpy_helper.from_array(b2, "b2")]
            nodes += [helper.make_node("Conv", ["r", "w2", "b2"], ["c2"], **pool),
                      helper.make_node("Relu", ["c2"], ["y"])]
            expected = np.maximum(conv_reference(relu, w2, b2, ps, (1, 1), ppads), 0).astype(np.float32)
        else:
            nodes.append(helper.make_node("MaxPool" if kind == "max" else "AveragePool", ["r"], ["y"], **pool))
            expected = window_reference(kind, relu, pk, ps, (1, 1), ppads, include_pad=False)
        against_numpy_on_threads(family, name, nodes, inits, x, expected)


def reshaped_insertions():
    """A decoder stage: a skip (also read by a pool) concatenated with an upsampled map, then a
    padded 3x3 or a 1x1 convolution. A U-Net's ConvTranspose k2 s2 and a DepthToSpace make the
    map by a transpose collapsed, which `strata-eliminate-reshaped-empties` writes straight into
    the padded concatenation (arena 21760 -> 18304 B here), the skip's copy moved up by
    `strata-choose-in-place`; a detector's nearest Resize (in place in YOLOv8n, copied at
    these sizes) beside them: against NumPy, on one and two threads."""
    family = "reshaped-insertions"
    rng = np.random.default_rng(29)

    def weights(*shape, fan_in):
        return (rng.standard_normal(shape) / np.sqrt(fan_in)).astype(np.float32)

    c, h = 8, 12
    x = rng.standard_normal((1, c, h, h)).astype(np.float32)
    w1, b1 = weights(c, c, 3, 3, fan_in=c * 9), weights(c, fan_in=1) * 0.1
    skip = np.maximum(conv_reference(x, w1, b1, (1, 1), (1, 1), (1, 1, 1, 1)), 0)
    pooled = skip.reshape(1, c, h // 2, 2, h // 2, 2).max(axis=(3, 5))
    stem = [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
            helper.make_node("Relu", ["c1"], ["skip"]),
            helper.make_node("MaxPool", ["skip"], ["pooled"], kernel_shape=[2, 2], strides=[2, 2])]
    for kind, mix in [("conv-transpose", 3), ("depth-to-space", 3), ("resize-nearest", 3), ("resize-nearest-1x1", 1)]:
        inits = [numpy_helper.from_array(w1, "w1"), numpy_helper.from_array(b1, "b1")]
        if kind == "conv-transpose":
            wt, bt = weights(c, c, 2, 2, fan_in=c * 4), weights(c, fan_in=1) * 0.1
            inits += [numpy_helper.from_array(wt, "wt"), numpy_helper.from_array(bt, "bt")]
            up_nodes = [helper.make_node("ConvTranspose", ["pooled", "wt", "bt"], ["up"], kernel_shape=[2, 2], strides=[2, 2])]
            up = np.einsum("ncij,cfab->nfiajb", pooled.astype(np.float64), wt).reshape(1, c, h, h) + bt[None, :, None, None]
        elif kind == "depth-to-space":
            wd, bd = weights(4 * c, c, 1, 1, fan_in=c), weights(4 * c, fan_in=1) * 0.1
            inits += [numpy_helper.from_array(wd, "wd"), numpy_helper.from_array(bd, "bd")]
            up_nodes = [helper.make_node("Conv", ["pooled", "wd", "bd"], ["phases"], kernel_shape=[1, 1]),
                        helper.make_node("DepthToSpace", ["phases"], ["up"], blocksize=2, mode="DCR")]
            phases = conv_reference(pooled, wd, bd, (1, 1), (1, 1), (0, 0, 0, 0))
            up = phases.reshape(1, 2, 2, c, h // 2, h // 2).transpose(0, 3, 4, 1, 5, 2).reshape(1, c, h, h)
        else:
            inits.append(numpy_helper.from_array(np.array([1, 1, 2, 2], np.float32), "scales"))
            up_nodes = [helper.make_node("Resize", ["pooled", "", "scales"], ["up"], mode="nearest")]
            up = pooled.repeat(2, axis=2).repeat(2, axis=3)
        cat = np.concatenate([skip, up.astype(np.float32)], axis=1)
        w3, b3 = weights(c, 2 * c, mix, mix, fan_in=2 * c * mix * mix), weights(c, fan_in=1) * 0.1
        inits += [numpy_helper.from_array(w3, "w3"), numpy_helper.from_array(b3, "b3")]
        pad = mix // 2
        nodes = stem + up_nodes + [
            helper.make_node("Concat", ["skip", "up"], ["cat"], axis=1),
            helper.make_node("Conv", ["cat", "w3", "b3"], ["c3"], kernel_shape=[mix, mix], pads=[pad] * 4),
            helper.make_node("Relu", ["c3"], ["y"])]
        expected = np.maximum(conv_reference(cat, w3, b3, (1, 1), (1, 1), (pad,) * 4), 0).astype(np.float32)
        against_numpy_on_threads(family, kind, nodes, inits, x, expected)


def one_row_products():
    """Products of one row by a right operand too big for the caches (classifier heads), which
    `strata-vectorize-matmul` streams row by row on one thread and splits into column blocks on
    two: both against NumPy, with a partial last vector, a transposed Gemm weight and f64."""
    family = "one-row-products"
    rng = np.random.default_rng(7)
    # name, k, n, element type, Gemm with transB (a classifier's weight layout)
    cases = [("gemm-1280x1000", 1280, 1000, np.float32, True),
             ("matmul-512x520", 512, 520, np.float32, False),
             ("matmul-f64-256x520", 256, 520, np.float64, False)]
    for name, k, n, dtype, gemm in cases:
        x = rng.standard_normal((1, k)).astype(dtype)
        w = (rng.standard_normal((k, n)) / np.sqrt(k)).astype(dtype)
        onnx_type = FLOAT if dtype == np.float32 else TensorProto.DOUBLE
        if gemm:
            bias = rng.standard_normal(n).astype(dtype)
            inits = [numpy_helper.from_array(np.ascontiguousarray(w.T), "w"), numpy_helper.from_array(bias, "b")]
            nodes = [helper.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1)]
            expected = (x.astype(np.float64) @ w.astype(np.float64) + bias).astype(dtype)
        else:
            inits = [numpy_helper.from_array(w, "w")]
            nodes = [helper.make_node("MatMul", ["x", "w"], ["y"])]
            expected = (x.astype(np.float64) @ w.astype(np.float64)).astype(dtype)
        for threads in ("1", "2"):
            cd = case_dir(family, f"{name}-t{threads}")
            model = os.path.join(cd, "m.onnx")
            save_model(model, nodes, [vi("x", onnx_type, [1, k])], [vi("y", onnx_type, [1, n])], inits)
            inputs = {"x": npy(os.path.join(cd, "x.npy"), x)}
            add(family, f"{name}-t{threads}",
                [run(model, inputs, "--threads", threads, "--expect", "y=" + npy(os.path.join(cd, "y.npy"), expected),
                     "--rtol", "1e-4", "--atol", "1e-4")],
                "ok", [f"0 of {n} elements outside"])


def reduced_programs():
    """Reductions of elementwise programs that `sg-fuse-reductions` computes in one kernel
    (over transposed views, kept and dropped axes, a unit axis that takes the two-kernel way),
    and convolutions the host schedule splits (filters left over a register block, a 1-D
    convolution's borders): each against NumPy, on one thread and two."""
    family = "reduced-programs"
    rng = np.random.default_rng(11)
    x = rng.standard_normal((2, 6, 5, 4)).astype(np.float32)
    y = rng.standard_normal((2, 6, 5, 4)).astype(np.float32)
    t = x.transpose(0, 3, 2, 1).astype(np.float64)  # [2, 4, 5, 6]
    cases = [
        # name, nodes, inputs, output shape, expected (float64)
        ("sum-square-of-transpose",
         [helper.make_node("Transpose", ["x"], ["t"], perm=[0, 3, 2, 1]),
          helper.make_node("ReduceSumSquare", ["t"], ["z"], axes=[3], keepdims=0)],
         ["x"], [2, 4, 5], (t * t).sum(axis=3)),
        ("mean-of-sum-keepdims",
         [helper.make_node("Add", ["x", "y"], ["s"]), helper.make_node("Relu", ["s"], ["r"]),
          helper.make_node("ReduceMean", ["r"], ["z"], axes=[2, 3], keepdims=1)],
         ["x", "y"], [2, 6, 1, 1], np.maximum(x.astype(np.float64) + y, 0).mean(axis=(2, 3), keepdims=True)),
        ("max-of-exp-transposed",
         [helper.make_node("Transpose", ["x"], ["t"], perm=[0, 3, 2, 1]), helper.make_node("Exp", ["t"], ["e"]),
          helper.make_node("ReduceMax", ["e"], ["z"], axes=[1, 3], keepdims=0)],
         ["x"], [2, 5], np.exp(t).max(axis=(1, 3))),
        ("l2-of-difference",
         [helper.make_node("Sub", ["x", "y"], ["d"]), helper.make_node("ReduceL2", ["d"], ["z"], axes=[1], keepdims=0)],
         ["x", "y"], [2, 5, 4], np.sqrt(((x.astype(np.float64) - y) ** 2).sum(axis=1))),
        ("sum-over-unit-axis",
         [helper.make_node("Unsqueeze", ["x", "ax"], ["u"]), helper.make_node("Neg", ["u"], ["n"]),
          helper.make_node("ReduceSum", ["n", "ax"], ["z"], keepdims=0)],
         ["x"], [2, 6, 5, 4], -x.astype(np.float64)),
    ]
    axes = numpy_helper.from_array(np.array([4], np.int64), "ax")
    for name, nodes, names, shape, expected in cases:
        for threads in ("1", "2"):
            cd = case_dir(family, f"{name}-t{threads}")
            model = os.path.join(cd, "m.onnx")
            save_model(model, nodes, [vi(n, FLOAT, list(x.shape)) for n in names], [vi("z", FLOAT, shape)],
                       [axes] if name == "sum-over-unit-axis" else [])
            inputs = {n: npy(os.path.join(cd, f"{n}.npy"), {"x": x, "y": y}[n]) for n in names}
            count = int(np.prod(shape))
            add(family, f"{name}-t{threads}",
                [run(model, inputs, "--threads", threads,
                     "--expect", "z=" + npy(os.path.join(cd, "z.npy"), expected.astype(np.float32)),
                     "--rtol", "1e-5", "--atol", "1e-5")],
                "ok", [f"0 of {count} elements outside"])
    # Convolutions: 34 filters (32 in register blocks, 2 apart) at a stride of 16, and a 1-D
    # convolution with pads whose ends run with their taps cut.
    signal = rng.standard_normal((1, 1, 64, 1)).astype(np.float32)
    features = rng.standard_normal((1, 8, 40, 1)).astype(np.float32)
    convs = [("filters-34-stride-16", signal, (34, 1, 32, 1), [16, 1], [0, 0, 0, 0]),
             ("conv1d-pad-2", features, (16, 8, 5, 1), [1, 1], [2, 0, 2, 0])]
    for name, xin, wshape, strides, pads in convs:
        w = (rng.standard_normal(wshape) / np.sqrt(np.prod(wshape[1:]))).astype(np.float32)
        b = rng.standard_normal(wshape[0]).astype(np.float32)
        expected = conv_reference(xin, w, b, strides, [1, 1], pads).astype(np.float32)
        for threads in ("1", "2"):
            cd = case_dir(family, f"{name}-t{threads}")
            model = os.path.join(cd, "m.onnx")
            node = helper.make_node("Conv", ["x", "w", "b"], ["z"], kernel_shape=list(wshape[2:]), strides=strides, pads=pads)
            save_model(model, [node], [vi("x", FLOAT, list(xin.shape))], [vi("z", FLOAT, list(expected.shape))],
                       [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
            inputs = {"x": npy(os.path.join(cd, "x.npy"), xin)}
            add(family, f"{name}-t{threads}",
                [run(model, inputs, "--threads", threads, "--expect", "z=" + npy(os.path.join(cd, "z.npy"), expected),
                     "--rtol", "1e-4", "--atol", "1e-4")],
                "ok", [f"0 of {expected.size} elements outside"])


# --- expanded ops (opset 27's recurrent layers, DeformConv): a bad operand is a clean error ----


def runtime_branches():
    """If on a condition computed at run time (scf.if): a branch that cannot run with the
    model's shapes (silero-vad's 8 kHz branch given 16 kHz chunks) compiles into a run-time
    error naming it; a branch that yields an outer value unchanged keeps it alive after the If
    (the arena must not reuse its bytes while the If's result is read)."""
    family = "runtime-branches"
    d = case_dir(family, "model")
    # rate == 16000: MatMul by a [576, 4] weight; otherwise by [288, 4]: invalid for 576 samples.
    rng = np.random.default_rng(7)
    w16 = numpy_helper.from_array(rng.standard_normal((576, 4)).astype(np.float32), "w16")
    w8 = numpy_helper.from_array(rng.standard_normal((288, 4)).astype(np.float32), "w8")
    then_branch = helper.make_graph([helper.make_node("MatMul", ["x", "w16"], ["t"], name="wide")], "at16k", [],
                                    [vi("t", FLOAT, [1, 4])])
    else_branch = helper.make_graph([helper.make_node("MatMul", ["x", "w8"], ["e"], name="narrow")], "at8k", [],
                                    [vi("e", FLOAT, [1, 4])])
    rate_model = os.path.join(d, "rate.onnx")
    save_model(rate_model,
               [helper.make_node("Equal", ["sr", "sixteen"], ["is16"]),
                helper.make_node("If", ["is16"], ["y"], name="by_rate", then_branch=then_branch, else_branch=else_branch)],
               [vi("x", FLOAT, [1, 576]), vi("sr", INT64, [])], [vi("y", FLOAT, [1, 4])],
               [w16, w8, numpy_helper.from_array(np.array(16000, np.int64), "sixteen")])
    x = np.linspace(-1, 1, 576, dtype=np.float32).reshape(1, 576)
    xs = npy(os.path.join(d, "x.npy"), x)
    cd = case_dir(family, "invalid-branch-taken")
    add(family, "invalid-branch-taken",
        [run(rate_model, {"x": xs, "sr": npy(os.path.join(cd, "sr.npy"), np.array(8000, np.int64))})],
        "error", ["node #1 'by_rate' (If): its else branch was taken", "'by_rate/else/narrow' (MatMul)", "--freeze-input"])
    cd = case_dir(family, "invalid-branch-not-taken")
    expected = x @ numpy_helper.to_array(w16)
    add(family, "invalid-branch-not-taken",
        [run(rate_model, {"x": xs, "sr": npy(os.path.join(cd, "sr.npy"), np.array(16000, np.int64))},
             "--expect", "y=" + npy(os.path.join(cd, "y.npy"), expected), "--rtol", "1e-5", "--atol", "1e-5")],
        "ok", ["0 of 4 elements outside"])
    # Both branches invalid: nothing to run, a compile error.
    both = os.path.join(d, "both_invalid.onnx")
    save_model(both,
               [helper.make_node("Equal", ["sr", "sixteen"], ["is16"]),
                helper.make_node("If", ["is16"], ["y"], name="by_rate", then_branch=else_branch, else_branch=else_branch)],
               [vi("x", FLOAT, [1, 576]), vi("sr", INT64, [])], [vi("y", FLOAT, [1, 4])],
               [w8, numpy_helper.from_array(np.array(16000, np.int64), "sixteen")])
    add(family, "both-branches-invalid",
        [run(both, {"x": xs, "sr": npy(os.path.join(cd, "sr.npy"), np.array(16000, np.int64))})],
        "error", ["'by_rate/then/narrow' (MatMul)"])
    # The then branch yields `a` itself; two Softmaxes computed after the If need buffers while
    # the If's result (`a`, when taken) is still to be read.
    keep = helper.make_graph([helper.make_node("Identity", ["a"], ["t"])], "keep", [], [vi("t", FLOAT, [1, 4096])])
    negate = helper.make_graph([helper.make_node("Neg", ["a"], ["e"])], "negate", [], [vi("e", FLOAT, [1, 4096])])
    alias = os.path.join(d, "yield_outer.onnx")
    save_model(alias,
               [helper.make_node("Relu", ["x"], ["a"]),
                helper.make_node("If", ["c"], ["r"], name="choose", then_branch=keep, else_branch=negate),
                helper.make_node("Softmax", ["x"], ["b"], axis=-1),
                helper.make_node("Softmax", ["b"], ["b2"], axis=-1),
                helper.make_node("Mul", ["r", "b2"], ["y"])],
               [vi("x", FLOAT, [1, 4096]), vi("c", TensorProto.BOOL, [])], [vi("y", FLOAT, [1, 4096])])
    x = np.linspace(-2, 2, 4096, dtype=np.float32).reshape(1, 4096)
    b = np.exp(x - x.max()) / np.exp(x - x.max()).sum()
    b2 = np.exp(b - b.max()) / np.exp(b - b.max()).sum()
    for taken in (True, False):
        name = f"yielded-outer-value-{'then' if taken else 'else'}"
        cd = case_dir(family, name)
        r = np.maximum(x, 0) * (1 if taken else -1)
        add(family, name,
            [run(alias, {"x": npy(os.path.join(cd, "x.npy"), x), "c": npy(os.path.join(cd, "c.npy"), np.array(taken))},
                 "--expect", "y=" + npy(os.path.join(cd, "y.npy"), (r * b2).astype(np.float32)),
                 "--rtol", "1e-4", "--atol", "1e-9")],
            "ok", ["0 of 4096 elements outside"])


def stateful_ops():
    family = "stateful-ops"
    x = vi("x", FLOAT, [1, 4, 6])
    w = numpy_helper.from_array(np.ones((4, 1, 3), np.float32), "w")
    q, k, v = vi("q", FLOAT, [1, 5, 12]), vi("k", FLOAT, [1, 5, 8]), vi("v", FLOAT, [1, 5, 8])
    cases = [
        ("causal-conv-activation", [helper.make_node("CausalConvWithState", ["x", "w"], ["y"], activation="relu")],
         [x], [vi("y", FLOAT, [1, 4, 6])], [w], "activation 'relu'"),
        ("causal-conv-weight", [helper.make_node("CausalConvWithState", ["x", "w"], ["y"])],
         [x], [vi("y", FLOAT, [1, 4, 6])], [numpy_helper.from_array(np.ones((2, 1, 3), np.float32), "w")],
         "depthwise convolution of 4 channels"),
        ("linear-attention-heads", [helper.make_node("LinearAttention", ["q", "k", "v"], ["y"], q_num_heads=3,
                                                     kv_num_heads=2, update_rule="linear")],
         [q, k, v], [vi("y", FLOAT, [1, 5, 12])], [], "positive multiple of kv_num_heads"),
        ("linear-attention-no-decay", [helper.make_node("LinearAttention", ["q", "k", "v"], ["y"], q_num_heads=2,
                                                        kv_num_heads=2, update_rule="gated")],
         [vi("q", FLOAT, [1, 5, 8]), k, v], [vi("y", FLOAT, [1, 5, 8])], [], "needs decay"),
        ("bitcast-float8", [helper.make_node("BitCast", ["f"], ["y"], to=TensorProto.INT8)],
         [vi("f", TensorProto.FLOAT8E4M3FN, [3])], [vi("y", TensorProto.INT8, [3])], [],
         "BitCast from FLOAT8E4M3FN to INT8"),
        ("bitcast-width", [helper.make_node("BitCast", ["f"], ["y"], to=TensorProto.INT16)],
         [vi("f", FLOAT, [3])], [vi("y", TensorProto.INT16, [3])], [], "BitCast from FLOAT to INT16 changes the element width"),
        ("deform-conv-offset", [helper.make_node("DeformConv", ["x4", "w4", "off"], ["y"], kernel_shape=[3, 3])],
         [vi("x4", FLOAT, [1, 2, 6, 6]), vi("off", FLOAT, [1, 9, 4, 4])], [vi("y", FLOAT, [1, 2, 4, 4])],
         [numpy_helper.from_array(np.ones((2, 2, 3, 3), np.float32), "w4")], "offset [1, 9, 4, 4] must be [1, 18, 4, 4]"),
    ]
    for name, nodes, inputs, outputs, inits, needle in cases:
        path = os.path.join(case_dir(family, name), "model.onnx")
        graph = helper.make_graph(nodes, "probe", inputs, outputs, list(inits))
        m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 27)])
        with open(path, "wb") as f:  # not onnx.save: the checker would refuse some on purpose
            f.write(m.SerializeToString())
        add(family, name, [["{strata}", "compile", path, "--emit=sg"]], "error", [needle])
    # A KV-cache write past the cache's end (linear mode): the run's status says so.
    cd = case_dir(family, "tensor-scatter-past-end")
    path = os.path.join(cd, "model.onnx")
    node = helper.make_node("TensorScatter", ["c", "u", "w"], ["y"])
    graph = helper.make_graph([node], "probe", [vi("c", FLOAT, [2, 4, 5]), vi("u", FLOAT, [2, 2, 5]), vi("w", INT64, [2])],
                              [vi("y", FLOAT, [2, 4, 5])])
    with open(path, "wb") as f:
        f.write(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 24)]).SerializeToString())
    inputs = {"c": npy(os.path.join(cd, "c.npy"), np.zeros((2, 4, 5), np.float32)),
              "u": npy(os.path.join(cd, "u.npy"), np.ones((2, 2, 5), np.float32)),
              "w": npy(os.path.join(cd, "w.npy"), np.array([1, 3], np.int64))}
    add(family, "tensor-scatter-past-end", [run(path, inputs)], "error", ["outside [0, 4)"])
    # RoiAlign: a box of an image the batch does not have (run time); adaptive sampling (import).
    cd = case_dir(family, "roi-align-batch-index")
    path = os.path.join(cd, "model.onnx")
    node = helper.make_node("RoiAlign", ["X", "rois", "b"], ["y"], output_height=2, output_width=2, sampling_ratio=2)
    graph = helper.make_graph([node], "probe", [vi("X", FLOAT, [1, 3, 8, 8]), vi("rois", FLOAT, [2, 4]), vi("b", INT64, [2])],
                              [vi("y", FLOAT, [2, 3, 2, 2])])
    with open(path, "wb") as f:
        f.write(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)]).SerializeToString())
    inputs = {"X": npy(os.path.join(cd, "X.npy"), np.ones((1, 3, 8, 8), np.float32)),
              "rois": npy(os.path.join(cd, "rois.npy"), np.array([[0, 0, 4, 4], [1, 1, 6, 6]], np.float32)),
              "b": npy(os.path.join(cd, "b.npy"), np.array([0, 1], np.int64))}
    add(family, "roi-align-batch-index", [run(path, inputs)], "error", ["a batch index outside [0, 1)"])
    path = os.path.join(case_dir(family, "roi-align-adaptive"), "model.onnx")
    node = helper.make_node("RoiAlign", ["X", "rois", "b"], ["y"], output_height=2, output_width=2)
    graph = helper.make_graph([node], "probe", [vi("X", FLOAT, [1, 3, 8, 8]), vi("rois", FLOAT, [2, 4]), vi("b", INT64, [2])],
                              [vi("y", FLOAT, [2, 3, 2, 2])])
    with open(path, "wb") as f:
        f.write(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 16)]).SerializeToString())
    add(family, "roi-align-adaptive", [["{strata}", "compile", path, "--emit=sg"]], "error", ["sampling_ratio 0"])


# --- ai.onnx.ml: tree ensembles against ONNX's reference, and broken trees -------------------


def ml_domain():
    family = "ml-domain"
    from onnx.reference import ReferenceEvaluator

    def regressor(name, x_shape, y_shape, **overrides):
        # Two trees over three features: tree 0 splits on feature 0 (<=) then 2 (<), tree 1 on
        # feature 1 (>), with a leaf feeding both targets.
        atts = dict(
            nodes_treeids=[0, 0, 0, 0, 0, 1, 1, 1], nodes_nodeids=[0, 1, 2, 3, 4, 0, 1, 2],
            nodes_featureids=[0, 2, 0, 0, 0, 1, 0, 0],
            nodes_modes=["BRANCH_LEQ", "BRANCH_LT", "LEAF", "LEAF", "LEAF", "BRANCH_GT", "LEAF", "LEAF"],
            nodes_values=[0.5, -0.25, 0, 0, 0, 0.0, 0, 0],
            nodes_truenodeids=[1, 3, 0, 0, 0, 1, 0, 0], nodes_falsenodeids=[2, 4, 0, 0, 0, 2, 0, 0],
            target_treeids=[0, 0, 0, 0, 1, 1, 1], target_nodeids=[2, 3, 4, 4, 1, 2, 2],
            target_ids=[0, 1, 0, 1, 0, 0, 1], target_weights=[1.5, -2.0, 0.25, 3.0, 0.75, -1.0, 0.5],
            n_targets=2, aggregate_function="AVERAGE", base_values=[0.1, -0.2])
        atts.update(overrides)
        node = helper.make_node("TreeEnsembleRegressor", ["x"], ["y"], name="forest", domain="ai.onnx.ml", **atts)
        graph = helper.make_graph([node], "probe", [vi("x", FLOAT, x_shape)], [vi("y", FLOAT, y_shape)])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 3)])
        model.ir_version = 8
        path = os.path.join(case_dir(family, name), "model.onnx")
        with open(path, "wb") as f:  # not onnx.save's checker: some of these are broken on purpose
            f.write(model.SerializeToString())
        return path, model

    x = np.random.default_rng(7).standard_normal((16, 3)).astype(np.float32)
    for name, aggregate in (("regressor-average", "AVERAGE"), ("regressor-max", "MAX")):
        path, model = regressor(name, [16, 3], [16, 2], aggregate_function=aggregate)
        cd = case_dir(family, name)
        expected = npy(os.path.join(cd, "expected.npy"), ReferenceEvaluator(model).run(None, {"x": x})[0])
        add(family, name, [run(path, {"x": npy(os.path.join(cd, "x.npy"), x)}, "--expect", f"y={expected}",
                               "--rtol", "1e-6", "--atol", "1e-6")], "ok", ["expect 'y': 0 of 32"])
    # Nodes an expansion writes follow today's definitions in an older model too: an opset-9
    # binary forest (LightGBM's, through onnxmltools) slices its scores with Slice's inputs.
    cd = case_dir(family, "opset9-binary-forest")
    path = os.path.join(cd, "model.onnx")
    node = helper.make_node("TreeEnsembleClassifier", ["x"], ["label", "p"], name="forest", domain="ai.onnx.ml",
                            nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2], nodes_featureids=[0, 0, 0],
                            nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF"], nodes_values=[0.0, 0, 0],
                            nodes_truenodeids=[1, 0, 0], nodes_falsenodeids=[2, 0, 0], class_treeids=[0, 0],
                            class_nodeids=[1, 2], class_ids=[0, 0], class_weights=[1.0, -1.0],
                            classlabels_int64s=[0, 1], post_transform="LOGISTIC")
    save_model(path, [node], [vi("x", FLOAT, [2, 1])], [vi("label", INT64, [2]), vi("p", FLOAT, [2, 2])], opset=9,
               domains=[("ai.onnx.ml", 1)])
    sigmoid = 1.0 / (1.0 + np.exp(-1.0))
    probabilities = npy(os.path.join(cd, "p.npy"), np.array([[1 - sigmoid, sigmoid], [sigmoid, 1 - sigmoid]],
                                                              np.float32))
    labels = npy(os.path.join(cd, "label.npy"), np.array([1, 0], np.int64))
    add(family, "opset9-binary-forest",
        [run(path, {"x": npy(os.path.join(cd, "x.npy"), np.array([[-1.0], [1.0]], np.float32))},
             "--expect", f"p={probabilities}", "--expect", f"label={labels}")], "ok",
        ["expect 'p': 0 of 4", "expect 'label': 0 of 2"])
    # TopK where the data holds the fill value (+inf for the smallest, -inf for the largest):
    # a pick that lands on a position already taken goes to the lowest free one (ONNX
    # Runtime's indices; the free positions found by ArgMax over booleans).
    inf = np.float32(np.inf)
    for largest, want in ((0, [[1, 4, 0, 2], [0, 1, 2, 3], [2, 4, 0, 1]]), (1, [[4, 1, 0, 2], [0, 1, 2, 3], [0, 4, 2, 1]])):
        name = f"topk-extremes-{'largest' if largest else 'smallest'}"
        cd = case_dir(family, name)
        path = os.path.join(cd, "model.onnx")
        save_model(path, [helper.make_node("TopK", ["x", "k"], ["v", "i"], largest=largest)], [vi("x", FLOAT, [3, 5])],
                   [vi("v", FLOAT, [3, 4]), vi("i", INT64, [3, 4])],
                   [numpy_helper.from_array(np.array([4], np.int64), "k")])
        fill = inf if largest == 0 else -inf
        x = np.array([[fill, 1, fill, fill, 2], [fill] * 5, [3, fill, -1, fill, 0]], np.float32)
        indices = npy(os.path.join(cd, "i.npy"), np.array(want, np.int64))
        add(family, name, [run(path, {"x": npy(os.path.join(cd, "x.npy"), x)}, "--expect", f"i={indices}")], "ok",
            ["expect 'i': 0 of 12"])
    # TopK over long rows, which the host scans in chunks of 16 after a bound on the k-th best:
    # ties within and across chunks, infinities, the best values in the last whole chunk and in
    # the 11 elements after it; largest and smallest, k of 3 and 40.
    rng = np.random.default_rng(11)
    for largest in (0, 1):
        for k in (3, 40):
            name = f"topk-long-rows-{'largest' if largest else 'smallest'}-{k}"
            cd = case_dir(family, name)
            path = os.path.join(cd, "model.onnx")
            save_model(path, [helper.make_node("TopK", ["x", "k"], ["v", "i"], largest=largest)],
                       [vi("x", FLOAT, [4, 203])], [vi("v", FLOAT, [4, k]), vi("i", INT64, [4, k])],
                       [numpy_helper.from_array(np.array([k], np.int64), "k")])
            x = rng.integers(-20, 20, size=(4, 203)).astype(np.float32)
            best = np.float32(100 if largest else -100)
            x[1, -11:] = best
            x[2, 176:192] = best
            x[3, ::7] = inf if largest else -inf
            x[3, 1::9] = -inf if largest else inf
            values, indices = ReferenceEvaluator(onnx.load(path)).run(None, {"x": x})
            expected_v = npy(os.path.join(cd, "v_expected.npy"), values)
            expected_i = npy(os.path.join(cd, "i_expected.npy"), indices)
            add(family, name, [run(path, {"x": npy(os.path.join(cd, "x.npy"), x)}, "--expect", f"v={expected_v}",
                                   "--expect", f"i={expected_i}")], "ok",
                [f"expect 'v': 0 of {4 * k}", f"expect 'i': 0 of {4 * k}"])
    # A Scaler read by a forest is folded into the splits: rows on and next to every split,
    # scales of either sign, each comparison mode, NaN tracking the true branch. Tree k adds
    # 2^k where its branch holds, so the sum names the branches taken, exactly.
    cd = case_dir(family, "scaled-forest-boundaries")
    path = os.path.join(cd, "model.onnx")
    offset = np.array([0.3, -1.25, 4.0, 1.0], np.float32)
    scale = np.array([1.7, -0.013, -2.5, 2.0], np.float32)
    branches = [(0, "BRANCH_LEQ", 0.25, 0), (1, "BRANCH_LT", 0.02, 0), (2, "BRANCH_GTE", 1.0, 0),
                (0, "BRANCH_GT", -0.7, 0), (3, "BRANCH_EQ", 3.0, 0), (3, "BRANCH_NEQ", 3.0, 0),
                (2, "BRANCH_LEQ", 1.0, 1)]
    trees = len(branches)
    forest = helper.make_node(
        "TreeEnsembleRegressor", ["scaled"], ["y"], name="forest", domain="ai.onnx.ml",
        nodes_treeids=[t for t in range(trees) for _ in range(3)], nodes_nodeids=[0, 1, 2] * trees,
        nodes_featureids=[f for f, _, _, _ in branches for _ in range(3)],
        nodes_modes=[m for _, mode, _, _ in branches for m in (mode, "LEAF", "LEAF")],
        nodes_values=[v for _, _, split, _ in branches for v in (split, 0.0, 0.0)],
        nodes_truenodeids=[1, 0, 0] * trees, nodes_falsenodeids=[2, 0, 0] * trees,
        nodes_missing_value_tracks_true=[m for _, _, _, nan in branches for m in (nan, 0, 0)],
        target_treeids=list(range(trees)), target_nodeids=[1] * trees, target_ids=[0] * trees,
        target_weights=[float(2 ** t) for t in range(trees)], n_targets=1, aggregate_function="SUM")
    scaler = helper.make_node("Scaler", ["x"], ["scaled"], name="scaler", domain="ai.onnx.ml",
                              offset=offset.tolist(), scale=scale.tolist())
    save_model(path, [scaler, forest], [vi("x", FLOAT, [64, 4])], [vi("y", FLOAT, [64, 1])],
               domains=[("ai.onnx.ml", 3)])
    rows = []
    for f, _, split, _ in branches:
        at = np.float32(np.float32(split) / scale[f] + offset[f])
        for d in range(-4, 5):
            v = at
            for _ in range(abs(d)):
                v = np.nextafter(v, np.float32(np.inf if d > 0 else -np.inf), dtype=np.float32)
            row = np.zeros(4, np.float32)
            row[f] = v
            rows.append(row)
    rows += [np.full(4, np.nan, np.float32), np.full(4, np.inf, np.float32), np.full(4, -np.inf, np.float32)]
    rows = np.array((rows * 2)[:64], np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        scaled = (rows - offset) * scale
        holds = {"BRANCH_LEQ": np.less_equal, "BRANCH_LT": np.less, "BRANCH_GTE": np.greater_equal,
                 "BRANCH_GT": np.greater, "BRANCH_EQ": np.equal, "BRANCH_NEQ": np.not_equal}
        taken = [holds[mode](scaled[:, f], np.float32(split)) | (nan == 1) & np.isnan(scaled[:, f])
                 for f, mode, split, nan in branches]
    y = sum(t.astype(np.float32) * np.float32(2 ** k) for k, t in enumerate(taken)).reshape(64, 1)
    expected = npy(os.path.join(cd, "y.npy"), y.astype(np.float32))
    x = npy(os.path.join(cd, "x.npy"), rows)
    add(family, "scaled-forest-boundaries",
        [run(path, {"x": x}, "--expect", f"y={expected}", "--rtol", "0", "--atol", "0")], "ok",
        ["expect 'y': 0 of 64"])
    add(family, "scaled-forest-reads-input",
        [f"{{strata}} compile {path} --emit sg-opt | grep -o 'tree_walk\"(%arg0'"], "ok", ['tree_walk"(%arg0'])
    # An expansion inside a subgraph (skl2onnx's k-nearest-neighbours: ReduceSumSquare in a Scan
    # body) finds the values it made.
    cd = case_dir(family, "expansion-in-scan")
    path = os.path.join(cd, "model.onnx")
    body = helper.make_graph(
        [helper.make_node("ReduceSumSquare", ["row"], ["norm"], name="norm", axes=[0], keepdims=1),
         helper.make_node("Add", ["acc", "norm"], ["acc_out"])],
        "body", [vi("acc", FLOAT, [1]), vi("row", FLOAT, [3])], [vi("acc_out", FLOAT, [1])])
    save_model(path, [helper.make_node("Scan", ["zero", "x"], ["total"], name="scan", body=body, num_scan_inputs=1)],
               [vi("x", FLOAT, [4, 3])], [vi("total", FLOAT, [1])],
               [numpy_helper.from_array(np.zeros(1, np.float32), "zero")], opset=17)
    rows = np.arange(12, dtype=np.float32).reshape(4, 3) / 4
    total = npy(os.path.join(cd, "total.npy"), np.array([np.square(rows).sum()], np.float32))
    add(family, "expansion-in-scan",
        [run(path, {"x": npy(os.path.join(cd, "x.npy"), rows)}, "--expect", f"total={total}")], "ok",
        ["expect 'total': 0 of 1"])
    # A target no reached leaf names is 0, its base value not added (ONNX Runtime's output;
    # ONNX's reference adds the base, or gives MIN and MAX the float extremes): one tree whose
    # true leaf names target 0 only and false leaf target 1 only; a NaN row goes the true way.
    rows = np.array([[-1.0], [1.0], [np.nan]], np.float32)
    for name, aggregate, base, want in (
            ("regressor-unnamed-target-sum", "SUM", [0.5, 0.25], [[3.5, 0.0], [0.0, -1.75], [3.5, 0.0]]),
            ("regressor-unnamed-target-min", "MIN", [], [[3.0, 0.0], [0.0, -2.0], [3.0, 0.0]])):
        extra = {"base_values": base} if base else {}
        path, _ = regressor(name, [3, 1], [3, 2], nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2],
                            nodes_featureids=[0, 0, 0], nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF"],
                            nodes_values=[0.0, 0, 0], nodes_truenodeids=[1, 0, 0], nodes_falsenodeids=[2, 0, 0],
                            nodes_missing_value_tracks_true=[1, 0, 0], target_treeids=[0, 0],
                            target_nodeids=[1, 2], target_ids=[0, 1], target_weights=[3.0, -2.0],
                            aggregate_function=aggregate, **extra)
        if not base:
            model = onnx.load(path)
            [attr] = [a for a in model.graph.node[0].attribute if a.name == "base_values"]
            model.graph.node[0].attribute.remove(attr)
            with open(path, "wb") as f:
                f.write(model.SerializeToString())
        cd = case_dir(family, name)
        expected = npy(os.path.join(cd, "expected.npy"), np.array(want, np.float32))
        add(family, name, [run(path, {"x": npy(os.path.join(cd, "x.npy"), rows)}, "--expect", f"y={expected}",
                               "--rtol", "0", "--atol", "0")], "ok", ["expect 'y': 0 of 6"])
    for name, overrides, needle in (
        ("child-outside-tree", {"nodes_truenodeids": [1, 7, 0, 0, 0, 1, 0, 0]}, "child 7 is not a node of tree 0"),
        ("unreachable-nodes", {"nodes_truenodeids": [1, 0, 0, 0, 0, 1, 0, 0]}, "not reachable from its tree's root"),
        ("two-roots", {"nodes_truenodeids": [1, 1, 0, 0, 0, 1, 0, 0]}, "tree 0 has more than one root"),
        ("feature-outside-x", {"nodes_featureids": [0, 5, 0, 0, 0, 1, 0, 0]}, "reads feature 5, but X has 3"),
        ("probit", {"post_transform": "PROBIT"}, "post_transform PROBIT"),
        ("unknown-mode", {"nodes_modes": ["BRANCH_LEQ", "BRANCH_SOMETIMES", "LEAF", "LEAF", "LEAF", "BRANCH_GT",
                                          "LEAF", "LEAF"]}, "BRANCH_SOMETIMES"),
    ):
        path, _ = regressor(name, [16, 3], [16, 2], **overrides)
        add(family, name, [["{strata}", "compile", path, "--emit=sg"]], "error", ["forest", needle])
    # The opset-5 form names its roots: a cycle below one is found.
    path = os.path.join(case_dir(family, "cycle"), "model.onnx")
    node = helper.make_node("TreeEnsemble", ["x"], ["y"], name="forest", domain="ai.onnx.ml", n_targets=1,
                            nodes_featureids=[0, 1], nodes_modes=numpy_helper.from_array(np.array([0, 0], np.uint8)),
                            nodes_splits=numpy_helper.from_array(np.array([0.5, 0.0], np.float32)),
                            nodes_truenodeids=[1, 0], nodes_trueleafs=[0, 0], nodes_falsenodeids=[0, 0],
                            nodes_falseleafs=[1, 1], leaf_targetids=[0], leaf_weights=numpy_helper.from_array(
                                np.array([1.0], np.float32)), tree_roots=[0])
    graph = helper.make_graph([node], "probe", [vi("x", FLOAT, [4, 3])], [vi("y", FLOAT, [4, 1])])
    with open(path, "wb") as f:
        f.write(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21),
                                                        helper.make_opsetid("ai.onnx.ml", 5)]).SerializeToString())
    add(family, "cycle", [["{strata}", "compile", path, "--emit=sg"]], "error", ["forest", "cycle through node 0"])
    # Classifiers: string labels, and the two-class form whose labels ONNX Runtime does not give.
    def classifier(name, **overrides):
        atts = dict(nodes_treeids=[0, 0, 0], nodes_nodeids=[0, 1, 2], nodes_featureids=[0, 0, 0],
                    nodes_modes=["BRANCH_LEQ", "LEAF", "LEAF"], nodes_values=[0.0, 0, 0], nodes_truenodeids=[1, 0, 0],
                    nodes_falsenodeids=[2, 0, 0], class_treeids=[0, 0, 0, 0], class_nodeids=[1, 1, 2, 2],
                    class_ids=[0, 1, 0, 1], class_weights=[0.3, 0.7, 0.6, 0.4], classlabels_int64s=[4, 9])
        atts.update(overrides)
        atts = {k: v for k, v in atts.items() if v is not None}
        node = helper.make_node("TreeEnsembleClassifier", ["x"], ["y", "z"], name="forest", domain="ai.onnx.ml",
                                **atts)
        graph = helper.make_graph([node], "probe", [vi("x", FLOAT, [4, 3])], [vi("y", INT64, [4]), vi("z", FLOAT, [4, 2])])
        path = os.path.join(case_dir(family, name), "model.onnx")
        with open(path, "wb") as f:
            f.write(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                            helper.make_opsetid("ai.onnx.ml", 3)]).SerializeToString())
        return path

    add(family, "classifier-string-labels",
        [["{strata}", "compile", classifier("classifier-string-labels", classlabels_int64s=None,
                                            classlabels_strings=["cat", "dog"]), "--emit=sg"]],
        "error", ["forest", "classlabels_strings"])
    add(family, "classifier-two-class-votes", [["{strata}", "compile", classifier("classifier-two-class-votes"),
                                                "--emit=sg"]], "error", ["forest", "votes for both classes"])
    # A class no reached leaf votes for is no candidate, as ONNX Runtime labels (ONNX's reference
    # takes the highest raw score): class 2 is voted for only under feature 0 > 0, with the
    # highest score there; elsewhere classes 0 and 1 have negative scores and 2 scores 0.
    cd = case_dir(family, "classifier-unvoted-class")
    path = classifier("classifier-unvoted-class", class_treeids=[0, 0, 0, 0, 0], class_nodeids=[1, 1, 2, 2, 2],
                      class_ids=[0, 1, 0, 1, 2], class_weights=[-0.5, -0.3, -0.9, -0.8, 0.4],
                      classlabels_int64s=[4, 9, 11])
    with open(path, "rb") as f:
        model = onnx.ModelProto.FromString(f.read())
    model.graph.output[1].type.tensor_type.shape.dim[1].dim_value = 3
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    xs = np.array([[-1.0, 0, 0], [2.0, 0, 0], [-0.5, 1, 1], [0.25, 1, 1]], np.float32)
    labels = npy(os.path.join(cd, "y.npy"), np.array([9, 11, 9, 11], np.int64))
    add(family, "classifier-unvoted-class", [run(path, {"x": npy(os.path.join(cd, "x.npy"), xs)}, "--expect",
                                                  f"y={labels}")], "ok", ["expect 'y': 0 of 4"])
    # Linear models: coefficients that do not fit X, and an unknown norm.
    for name, op, attrs, needle in (
        ("linear-coefficients", "LinearRegressor", dict(coefficients=[1.0, 2.0, 3.0, 4.0], targets=1),
         "coefficients has 4 values, not a multiple of X's 3 features"),
        ("normalizer-norm", "Normalizer", dict(norm="L3"), "unknown norm 'L3'"),
    ):
        path = os.path.join(case_dir(family, name), "model.onnx")
        node = helper.make_node(op, ["x"], ["y"], name="model", domain="ai.onnx.ml", **attrs)
        graph = helper.make_graph([node], "probe", [vi("x", FLOAT, [4, 3])], [vi("y", FLOAT, [4, 3])])
        with open(path, "wb") as f:
            f.write(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                            helper.make_opsetid("ai.onnx.ml", 1)]).SerializeToString())
        add(family, name, [["{strata}", "compile", path, "--emit=sg"]], "error", ["model", needle])
    # ArrayFeatureExtractor's run-time indices are checked like a Gather's.
    cd = case_dir(family, "feature-index-out-of-range")
    path = os.path.join(cd, "model.onnx")
    node = helper.make_node("ArrayFeatureExtractor", ["x", "i"], ["y"], name="pick", domain="ai.onnx.ml")
    graph = helper.make_graph([node], "probe", [vi("x", FLOAT, [2, 3]), vi("i", INT64, [2])], [vi("y", FLOAT, [2, 2])])
    with open(path, "wb") as f:
        f.write(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                        helper.make_opsetid("ai.onnx.ml", 1)]).SerializeToString())
    inputs = {"x": npy(os.path.join(cd, "x.npy"), np.zeros((2, 3), np.float32)),
              "i": npy(os.path.join(cd, "i.npy"), np.array([0, 3], np.int64))}
    add(family, "feature-index-out-of-range", [run(path, inputs)], "error", ["pick", "outside [-3, 3)"])
    # SimpleImputer's and OneHotEncoder's conversions: against ONNX's reference, and a category
    # outside the list with zeros=0 stopping the run.
    def ml_model(name, node, inputs, outputs):
        path = os.path.join(case_dir(family, name), "model.onnx")
        graph = helper.make_graph([node], "probe", inputs, outputs)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 1)])
        model.ir_version = 8
        with open(path, "wb") as f:
            f.write(model.SerializeToString())
        return path, model

    cd = case_dir(family, "imputer")
    missing = np.array([[1, np.nan, 3], [np.nan, 5, -1], [0, 2, np.nan]], np.float32)
    path, model = ml_model("imputer", helper.make_node("Imputer", ["x"], ["y"], domain="ai.onnx.ml",
                                                        imputed_value_floats=[9.0, 8.0, 7.0],
                                                        replaced_value_float=float("nan")),
                           [vi("x", FLOAT, [3, 3])], [vi("y", FLOAT, [3, 3])])
    expected = npy(os.path.join(cd, "expected.npy"), ReferenceEvaluator(model).run(None, {"x": missing})[0])
    add(family, "imputer", [run(path, {"x": npy(os.path.join(cd, "x.npy"), missing)}, "--expect", f"y={expected}",
                                "--atol", "0")], "ok", ["expect 'y': 0 of 9"])
    cd = case_dir(family, "one-hot-unknown-category")
    path, _ = ml_model("one-hot-unknown-category",
                       helper.make_node("OneHotEncoder", ["x"], ["y"], name="encode", domain="ai.onnx.ml",
                                        cats_int64s=[1, 3, 5], zeros=0),
                       [vi("x", INT64, [2, 2])], [vi("y", FLOAT, [2, 2, 3])])
    add(family, "one-hot-unknown-category",
        [run(path, {"x": npy(os.path.join(cd, "x.npy"), np.array([[1, 3], [7, 5]], np.int64))})], "error",
        ["encode", "none of the categories"])
    # TreeEnsemble is an ml opset 5 operator: at ml opset 3 it is reported with the opsets.
    with open(os.path.join(case_dir(family, "cycle"), "model.onnx"), "rb") as f:
        model = onnx.ModelProto.FromString(f.read())
    del model.opset_import[:]
    model.opset_import.extend([helper.make_opsetid("", 21), helper.make_opsetid("ai.onnx.ml", 3)])
    path = os.path.join(case_dir(family, "ml-opset-too-old"), "model.onnx")
    with open(path, "wb") as f:
        f.write(model.SerializeToString())
    add(family, "ml-opset-too-old", [["{strata}", "compile", path, "--emit=sg"]], "error",
        ["ai.onnx.ml opset 3", "ai.onnx.ml::TreeEnsemble: imported from opset 5 on"])
    # LabelEncoder over numbers: integer keys through a table over their range (the default
    # outside it and between keys), float keys compared; string keys are refused.
    for name, keys, xs, want in (
            ("label-encoder-table", {"keys_int64s": [1, 4, 6]}, np.array([1, 2, 4, 6, 9, -3], np.int64),
             [10, -1, 40, 60, -1, -1]),
            ("label-encoder-floats", {"keys_floats": [0.5, -1.0, 4.0]}, np.array([0.5, 4.0, 2.0, -1.0, 0.5, 7.5],
                                                                                np.float32),
             [10, 60, -1, 40, 10, -1])):
        cd = case_dir(family, name)
        path = os.path.join(cd, "model.onnx")
        node = helper.make_node("LabelEncoder", ["x"], ["y"], domain="ai.onnx.ml", values_int64s=[10, 40, 60], **keys)
        dtype = INT64 if "keys_int64s" in keys else FLOAT
        save_model(path, [node], [vi("x", dtype, [6])], [vi("y", INT64, [6])], domains=[("ai.onnx.ml", 3)])
        expected = npy(os.path.join(cd, "expected.npy"), np.array(want, np.int64))
        add(family, name, [run(path, {"x": npy(os.path.join(cd, "x.npy"), xs)}, "--expect", f"y={expected}",
                               "--atol", "0", "--rtol", "0")], "ok", ["expect 'y': 0 of 6"])
    path = os.path.join(case_dir(family, "label-encoder-strings"), "model.onnx")
    node = helper.make_node("LabelEncoder", ["x"], ["y"], name="encode", domain="ai.onnx.ml", keys_strings=["a"],
                            values_int64s=[2])
    save_model(path, [node], [vi("x", TensorProto.STRING, [4])], [vi("y", INT64, [4])],
               domains=[("ai.onnx.ml", 3)])
    add(family, "label-encoder-strings", [["{strata}", "compile", path, "--emit=sg"]], "error", ["string"])
    for name, atts, dtype, needle in (
            ("label-encoder-counts", {"keys_int64s": [1, 2], "values_int64s": [5]}, INT64,
             "2 keys and 1 values: one value per key"),
            ("label-encoder-key-type", {"keys_floats": [0.5], "values_int64s": [5]}, INT64,
             "the input is INT64 but the keys are FLOAT")):
        path = os.path.join(case_dir(family, name), "model.onnx")
        node = helper.make_node("LabelEncoder", ["x"], ["y"], name="encode", domain="ai.onnx.ml", **atts)
        save_model(path, [node], [vi("x", dtype, [4])], [vi("y", INT64, [4])], domains=[("ai.onnx.ml", 3)])
        add(family, name, [["{strata}", "compile", path, "--emit=sg"]], "error", ["encode", needle])
    # An ONNX Runtime contrib operator (what its dynamic quantiser writes) says what to do instead.
    path = os.path.join(case_dir(family, "onnxruntime-contrib-op"), "model.onnx")
    node = helper.make_node("FusedMatMul", ["x", "x"], ["y"], domain="com.microsoft", transB=1)
    save_model(path, [node], [vi("x", FLOAT, [4, 4])], [vi("y", FLOAT, [4, 4])], domains=[("com.microsoft", 1)])
    add(family, "onnxruntime-contrib-op", [["{strata}", "compile", path, "--emit=sg"]], "error",
        ["com.microsoft::FusedMatMul", "ONNX Runtime contrib operator", "QuantFormat.QDQ"])
    # ZipMap's sequence of maps cannot be returned: the error says how to convert without it.
    path, _ = ml_model("zipmap", helper.make_node("ZipMap", ["x"], ["y"], domain="ai.onnx.ml", classlabels_int64s=[0, 1]),
                       [vi("x", FLOAT, [4, 2])], [helper.make_value_info("y", helper.make_sequence_type_proto(
                           helper.make_map_type_proto(INT64, helper.make_tensor_type_proto(FLOAT, []))))])
    add(family, "zipmap", [["{strata}", "compile", path, "--emit=sg"]], "error",
        ["ai.onnx.ml::ZipMap", "{'zipmap': False}"])

    # Support vector machines over a kernel wider than a band (40 vectors: 12 rows a band),
    # 67 rows (five bands and a last one of 7) after a Scaler repeated in each band, against
    # ONNX's reference; the import is a loop.
    cd = case_dir(family, "svm-row-bands")
    path = os.path.join(cd, "model.onnx")
    rng = np.random.default_rng(5)
    vectors = rng.standard_normal((40, 3)).astype(np.float32)
    scaler = helper.make_node("Scaler", ["x"], ["s"], domain="ai.onnx.ml", offset=[0.5, -0.25, 1.0],
                              scale=[1.5, 0.75, -2.0])
    regressor = helper.make_node("SVMRegressor", ["s"], ["r"], domain="ai.onnx.ml", kernel_type="RBF",
                                 kernel_params=[0.3, 0.0, 3.0], n_supports=40,
                                 support_vectors=vectors.ravel().tolist(),
                                 coefficients=rng.standard_normal(40).tolist(), rho=[0.125])
    classifier = helper.make_node("SVMClassifier", ["s"], ["label", "scores"], domain="ai.onnx.ml",
                                  kernel_type="POLY", kernel_params=[0.2, 1.0, 3.0], classlabels_ints=[4, 5, 6],
                                  vectors_per_class=[14, 13, 13], support_vectors=vectors.ravel().tolist(),
                                  coefficients=rng.standard_normal(80).tolist(), rho=[0.1, -0.2, 0.3])
    graph = helper.make_graph([scaler, regressor, classifier], "probe", [vi("x", FLOAT, [67, 3])],
                              [vi("r", FLOAT, [67, 1]), vi("label", INT64, [67]), vi("scores", FLOAT, [67, 3])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("ai.onnx.ml", 1)])
    model.ir_version = 8
    onnx.save(model, path)
    rows = rng.standard_normal((67, 3)).astype(np.float32)
    want = ReferenceEvaluator(model).run(None, {"x": rows})
    refs = [npy(os.path.join(cd, f"{n}.npy"), v) for n, v in zip(["r", "label", "scores"], want)]
    add(family, "svm-row-bands",
        [run(path, {"x": npy(os.path.join(cd, "x.npy"), rows)}, "--expect", f"r={refs[0]}", "--expect",
             f"label={refs[1]}", "--expect", f"scores={refs[2]}", "--rtol", "1e-4", "--atol", "1e-5")], "ok",
        ["expect 'r': 0 of 67", "expect 'label': 0 of 67", "expect 'scores': 0 of 201"])
    add(family, "svm-row-bands-loop", [f"{{strata}} compile {path} --emit sg | grep -c 'scf.for'"], "ok", ["2"])
    # The GPU path keeps the rows whole (a loop would run its kernels from one thread).
    add(family, "svm-row-bands-gpu-whole",
        [f"{{strata}} compile {path} --target=nvptx --emit sg -o {cd}/gpu.mlir && (grep -c 'scf.for' {cd}/gpu.mlir "
         "|| true)"], "ok", ["0"])

    # Support vector machines: the liblinear-mode regressor (no support vectors; ONNX Runtime
    # refuses it) against ONNX's reference, and attributes that do not fit.
    def svm(name, op, outputs, **attrs):
        node = helper.make_node(op, ["x"], outputs, name="svm", domain="ai.onnx.ml", **attrs)
        outs = [vi(outputs[0], FLOAT, [4, 1])] if op == "SVMRegressor" else [vi(outputs[0], INT64, [4]),
                                                                               vi(outputs[1], FLOAT, [4, 3])]
        return ml_model(name, node, [vi("x", FLOAT, [4, 3])], outs)

    cd = case_dir(family, "svm-linear-mode")
    path, model = svm("svm-linear-mode", "SVMRegressor", ["y"], coefficients=[0.5, -1.0, 2.0], rho=[0.25],
                      n_supports=0, kernel_type="LINEAR")
    xs = np.random.default_rng(11).standard_normal((4, 3)).astype(np.float32)
    expected = npy(os.path.join(cd, "expected.npy"), ReferenceEvaluator(model).run(None, {"x": xs})[0])
    add(family, "svm-linear-mode", [run(path, {"x": npy(os.path.join(cd, "x.npy"), xs)}, "--expect", f"y={expected}",
                                        "--rtol", "1e-6", "--atol", "1e-6")], "ok", ["expect 'y': 0 of 4"])
    three = dict(classlabels_ints=[1, 2, 3], vectors_per_class=[1, 1, 1], support_vectors=[0.0] * 9,
                 coefficients=[1.0] * 6, rho=[0.0, 0.0, 0.0], kernel_type="RBF", kernel_params=[0.5, 0.0, 3.0])
    for name, overrides, needle in (
        ("svm-probabilities", dict(prob_a=[1.0, 1.0, 1.0], prob_b=[0.0, 0.0, 0.0]), "probability=False"),
        ("svm-coefficients", dict(coefficients=[1.0] * 5), "coefficients has 5 values, not 6"),
        ("svm-rho", dict(rho=[0.0, 0.0]), "rho has 2 values for the 3 pairs of 3 classes"),
        ("svm-vectors-per-class", dict(vectors_per_class=[1, 2]), "vectors_per_class [1, 2] must give a count"),
        ("svm-support-vectors", dict(support_vectors=[0.0] * 8), "support_vectors has 8 values for 3 vectors"),
        ("svm-kernel", dict(kernel_type="CUBIC"), "unknown kernel_type 'CUBIC'"),
        ("svm-poly-degree", dict(kernel_type="POLY", kernel_params=[0.5, 0.0, 2.5]), "degree (kernel_params[2]) is 2.5"),
    ):
        path, _ = svm(name, "SVMClassifier", ["y", "z"], **{**three, **overrides})
        add(family, name, [["{strata}", "compile", path, "--emit=sg"]], "error", ["svm", needle])


external_data()
runtime_checks()
runtime_branches()
graph_validation()
model_bytes()
cli_flags()
npy_inputs()
mlir_text()
planner_csv()
artifacts()
concurrency()
window_borders()
band_chains()
reshaped_insertions()
one_row_products()
reduced_programs()
stateful_ops()
ml_domain()
with open(os.path.join(OUT, "cases.json"), "w") as f:
    json.dump(CASES, f, indent=1)
print(f"probe: {len(CASES)} cases in {OUT}")
