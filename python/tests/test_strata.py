"""The `strata` Python package, end to end: the zoo models against ONNX Runtime's references,
the plan, artifacts, threads, concurrent calls, and every error a user can provoke.

Run by `cargo xtask test` (which builds the native module and the zoo); by hand:
`PYTHONPATH=target/python-pkg:target/python-onnx:target/python-test python3 -m pytest python/tests`.
"""

import os
import pathlib
import threading

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import strata

ROOT = pathlib.Path(__file__).resolve().parents[2]
ZOO = pathlib.Path(os.environ.get("STRATA_ZOO", ROOT / "target" / "zoo"))
REFERENCES = ROOT / "xtask" / "zoo-reference"
# The tolerance of `cargo xtask zoo`.
RTOL = ATOL = 1e-4


def zoo_models():
    return sorted({p.name.split(".")[0] for p in REFERENCES.glob("*.npy")})


def zoo_tolerance(model):
    """What zoo.py wrote to <model>.tolerance (a QDQ model agrees to whole quantization steps),
    else RTOL."""
    path = ZOO / f"{model}.tolerance"
    return float(path.read_text()) if path.exists() else RTOL


def zoo_inputs(model):
    return {p.stem: np.load(p) for p in sorted((ZOO / f"{model}.inputs").glob("*.npy"))}


def zoo_frozen(model):
    return {p.stem: p.read_bytes() for p in sorted((ZOO / f"{model}.frozen").glob("*.pb"))}


def zoo_shapes(model):
    """The shapes a model declares symbolically, from `<model>.shapes` (`name=1x576` a line)."""
    path = ZOO / f"{model}.shapes"
    lines = path.read_text().split() if path.exists() else []
    return {name: tuple(int(d) for d in dims.split("x")) for name, dims in (line.split("=") for line in lines)}


def zoo_references(model):
    return {p.name[len(model) + 1 : -4]: np.load(p) for p in sorted(REFERENCES.glob(f"{model}.*.npy"))}


@pytest.fixture(scope="module")
def mobilenet():
    return strata.compile(ZOO / "mobilenetv2.onnx")


def tiny_model(op="Relu", shape=(2, 3), dtype=TensorProto.FLOAT, name="tiny"):
    x = helper.make_tensor_value_info("x", dtype, list(shape))
    y = helper.make_tensor_value_info("y", dtype, list(shape))
    graph = helper.make_graph([helper.make_node(op, ["x"], ["y"], name="act")], name, [x], [y])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


@pytest.mark.parametrize("model", zoo_models())
def test_zoo_model_matches_onnx_runtime(model):
    compiled = strata.compile(ZOO / f"{model}.onnx", input_shapes=zoo_shapes(model), freeze=zoo_frozen(model))
    outputs = compiled.run(None, zoo_inputs(model))
    names = [o.name for o in compiled.outputs]
    references = zoo_references(model)
    assert references, f"no references for {model}"
    for name, reference in references.items():
        actual = outputs[names.index(name)]
        assert actual.shape == reference.shape and actual.dtype == reference.dtype
        tolerance = zoo_tolerance(model)
        np.testing.assert_allclose(actual, reference, rtol=tolerance, atol=tolerance, err_msg=f"{model}: {name}")


def test_second_compile_is_a_cache_hit(mobilenet):
    again = strata.compile(ZOO / "mobilenetv2.onnx")
    assert again.cache == "hit"
    assert [stage for stage, _ in again.timings] == ["cache"]
    assert again.plan is not None and again.plan.arena_bytes == mobilenet.plan.arena_bytes


def test_signature(mobilenet):
    (x,) = mobilenet.inputs
    (y,) = mobilenet.outputs
    assert (x.name, x.dtype, x.shape) == ("input", np.dtype("float32"), (1, 3, 224, 224))
    assert (y.dtype, y.shape) == (np.dtype("float32"), (1, 1000))
    assert "mobilenetv2" in repr(mobilenet)


def test_call_by_name_position_and_run(mobilenet):
    x = zoo_inputs("mobilenetv2")["input"]
    reference = zoo_references("mobilenetv2")["fc_276"]
    (by_name,) = mobilenet(input=x)
    (by_position,) = mobilenet(x)
    (selected,) = mobilenet.run([mobilenet.outputs[0].name], {"input": x})
    for y in (by_name, by_position, selected):
        np.testing.assert_allclose(y, reference, rtol=RTOL, atol=ATOL)


def test_plan_is_a_valid_placement(mobilenet, tmp_path):
    plan = mobilenet.plan
    assert plan.arena_bytes == mobilenet.arena_bytes > 0
    assert 0 < plan.lower_bound <= plan.arena_bytes
    rows = plan.table()
    assert len(rows) > 10
    assert all(b.offset is not None and b.offset + b.size <= plan.arena_bytes for b in rows)
    assert all(b.op for b in rows) and any(b.op == "Conv" for b in rows)
    # No two buffers live at the same time share a byte, but for a buffer written in place
    # over its dead input (they share it at that one step, on purpose).
    buffers = plan.buffers
    for i, a in enumerate(buffers):
        for j in range(i + 1, len(buffers)):
            b = buffers[j]
            if a.in_place_of == j or b.in_place_of == i:
                assert a.offset == b.offset and min(a.end, b.end) - max(a.start, b.start) <= 1, (a, b)
                continue
            if a.start < b.end and b.start < a.end:
                assert a.offset + a.size <= b.offset or b.offset + b.size <= a.offset, (a, b)
    # The peak of live bytes is a lower bound of any placement.
    steps = range(min(b.start for b in rows), max(b.end for b in rows))
    # (A buffer written in place over its input uses the input's bytes at its first step.)
    def live(b, t):
        return b.start <= t < b.end and not (b.in_place_of is not None and t == b.start)

    peak = max(sum(b.size for b in rows if live(b, t)) for t in steps)
    assert peak <= plan.arena_bytes
    # The file-order references of peers.md (MobileNetV2: 49.60 / 9.19 / 5.74 MiB).
    assert plan.in_order["tensors"] == 99
    assert plan.in_order["naive"] > plan.in_order["plain"] > plan.in_order["views_in_place"] > 0
    text = plan.format_table(limit=3)
    assert f"arena {plan.arena_bytes} B" in text and "more" in text
    svg = plan.save_svg(tmp_path / "timeline.svg").read_text()
    assert svg.startswith("<svg") and svg.count("<rect") >= len(rows)


def test_save_and_load_round_trip(mobilenet, tmp_path):
    manifest = mobilenet.save(tmp_path / "libmobile.so")
    assert manifest == tmp_path / "mobile.json"
    assert (tmp_path / "libmobile.so").stat().st_size > 0
    assert "strata_mobilenetv2_run" in (tmp_path / "mobile.h").read_text()
    x = zoo_inputs("mobilenetv2")["input"]
    (expected,) = mobilenet(x)
    for artifact in (manifest, tmp_path / "libmobile.so"):
        loaded = strata.load(artifact, threads=1)
        assert loaded.cache == "loaded"
        assert loaded.plan.arena_bytes == mobilenet.plan.arena_bytes
        (y,) = loaded(x)
        np.testing.assert_array_equal(y, expected)
    with pytest.raises(OSError, match="overwritten"):
        mobilenet.save(tmp_path / "mobile.json")
    # The library alone, its manifest gone: it carries its signature and weights.
    (tmp_path / "mobile.json").unlink()
    alone = strata.load(tmp_path / "libmobile.so", threads=1)
    assert alone.plan is None
    (y,) = alone(x)
    np.testing.assert_array_equal(y, expected)
    # Saved again, it gets a manifest (written from the library's signature).
    assert alone.save(tmp_path / "libagain.so") == tmp_path / "again.json"
    (y,) = strata.load(tmp_path / "again.json", threads=1)(x)
    np.testing.assert_array_equal(y, expected)


def test_load_errors(tmp_path):
    with pytest.raises(OSError):
        strata.load(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(OSError):
        strata.load(tmp_path / "bad.json")


def test_edited_artifacts_are_refused(tmp_path):
    """The loader checks the library's digest and the signature compiled into it."""
    import json

    manifest = strata.compile(tiny_model(), cache=False, name="tiny").save(tmp_path / "libtiny.so")
    original = json.loads(manifest.read_text())
    edited = dict(original, arena_bytes=original["arena_bytes"] + 64)
    manifest.write_text(json.dumps(edited))
    with pytest.raises(OSError, match="'arena_bytes': the manifest says"):
        strata.load(manifest)
    shape = json.loads(json.dumps(original))
    shape["inputs"][0]["shape"][0] = 1000
    manifest.write_text(json.dumps(shape))
    with pytest.raises(OSError, match=r"'inputs\[0\]\.shape\[0\]': the manifest says 1000"):
        strata.load(manifest)
    manifest.write_text(json.dumps(dict(original, library="../libtiny.so")))
    with pytest.raises(OSError, match="must be a file name beside the manifest"):
        strata.load(manifest)
    manifest.write_text(json.dumps(original))
    with open(tmp_path / "libtiny.so", "ab") as library:
        library.write(b"\0")
    with pytest.raises(OSError, match="the file changed after compiling"):
        strata.load(manifest)


@pytest.mark.parametrize("threads", [1, 2])
def test_thread_counts(threads):
    model = "densenet_block"
    compiled = strata.compile(ZOO / f"{model}.onnx", threads=threads)
    outputs = compiled.run(None, zoo_inputs(model))
    for name, reference in zoo_references(model).items():
        index = [o.name for o in compiled.outputs].index(name)
        np.testing.assert_allclose(outputs[index], reference, rtol=RTOL, atol=ATOL)


def test_a_small_model_runs_on_one_thread_with_a_note():
    # The YOLO-style CNN: 4 million loop iterations in 102 kernels.
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", strata.CompileWarning)
        compiled = strata.compile(ZOO / "yolo_detector.onnx", threads=2, cache=False)
    assert any(w.startswith("note: compiled for one thread, not 2") for w in compiled.warnings)
    asked = strata.compile(ZOO / "yolo_detector.onnx", threads=2, cache=False, disable="small-models")
    assert not any(w.startswith("note:") for w in asked.warnings)
    for model in (compiled, asked):
        outputs = model.run(None, zoo_inputs("yolo_detector"))
        for name, reference in zoo_references("yolo_detector").items():
            index = [o.name for o in model.outputs].index(name)
            np.testing.assert_allclose(outputs[index], reference, rtol=RTOL, atol=ATOL)


def test_concurrent_calls_on_one_model(mobilenet):
    rng = np.random.default_rng(7)
    inputs = [rng.standard_normal((1, 3, 224, 224), dtype=np.float32) for _ in range(6)]
    expected = [mobilenet(x)[0] for x in inputs]
    results = [None] * (len(inputs) * 3)
    errors = []

    def worker(slot):
        try:
            results[slot] = mobilenet(inputs[slot % len(inputs)])[0]
        except Exception as error:  # reported below
            errors.append(error)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(len(results))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for slot, y in enumerate(results):
        np.testing.assert_array_equal(y, expected[slot % len(inputs)])


def test_unaligned_and_strided_inputs(mobilenet):
    x = zoo_inputs("mobilenetv2")["input"]
    (expected,) = mobilenet(x)
    # Aligned to its element but not to 16 bytes: passed without a copy.
    raw = np.zeros(x.nbytes + 4, np.uint8)
    shifted = np.frombuffer(raw.data, np.float32, x.size, offset=4).reshape(x.shape)
    shifted[...] = x
    assert shifted.ctypes.data % 16 != 0
    np.testing.assert_array_equal(mobilenet(shifted)[0], expected)
    # Not aligned to its element, and not contiguous: copied first.
    odd = np.frombuffer(np.zeros(x.nbytes + 1, np.uint8).data, np.float32, x.size, offset=1).reshape(x.shape)
    odd[...] = x
    assert not odd.flags.aligned
    np.testing.assert_array_equal(mobilenet(odd)[0], expected)
    transposed = np.ascontiguousarray(x.transpose(0, 1, 3, 2)).transpose(0, 1, 3, 2)
    assert not transposed.flags.c_contiguous
    np.testing.assert_array_equal(mobilenet(transposed)[0], expected)


def test_input_errors(mobilenet):
    x = zoo_inputs("mobilenetv2")["input"]
    with pytest.raises(ValueError, match=r"input 'input' \(#0\) must be float32 \[1, 3, 224, 224\], got float64"):
        mobilenet(x.astype(np.float64))
    with pytest.raises(ValueError, match=r"input 'input' \(#0\) must be float32 \[1, 3, 224, 224\], got float32 \[3, 224, 224\]"):
        mobilenet(x[0])
    with pytest.raises(ValueError, match="missing input"):
        mobilenet()
    with pytest.raises(ValueError, match="has no input 'image'"):
        mobilenet(image=x)
    with pytest.raises(ValueError, match="given twice"):
        mobilenet(x, input=x)
    with pytest.raises(ValueError, match="has no output 'nope'"):
        mobilenet.run(["nope"], {"input": x})


def test_lists_take_the_input_dtype():
    model = strata.compile(tiny_model(), name="lists")
    (y,) = model(x=[[-1, 2, -3], [4, -5, 6]])
    np.testing.assert_array_equal(y, np.array([[0, 2, 0], [4, 0, 6]], np.float32))


def test_model_proto_and_bytes():
    proto = tiny_model("Neg")
    x = np.arange(6, dtype=np.float32).reshape(2, 3)
    for source in (proto, proto.SerializeToString()):
        (y,) = strata.compile(source, cache=False)(x)
        np.testing.assert_array_equal(y, -x)


def test_cache_off_is_private_and_still_saves(tmp_path):
    model = strata.compile(tiny_model(), cache=False, name="private")
    assert model.cache == "private"
    loaded = strata.load(model.save(tmp_path / "libprivate.so"))
    np.testing.assert_array_equal(loaded(np.ones((2, 3), np.float32))[0], np.ones((2, 3), np.float32))


def test_unsupported_operators_are_listed_at_once():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])
    nodes = [
        helper.make_node("FrobnicateA", ["x"], ["t"], name="first", domain="com.example"),
        helper.make_node("FrobnicateB", ["t"], ["y"], name="second", domain="com.example"),
    ]
    graph = helper.make_graph(nodes, "g", [x], [y])
    proto = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)]
    )
    with pytest.raises(strata.CompileError) as caught:
        strata.compile(proto)
    error = caught.value
    assert error.kind == "unsupported"
    assert error.unsupported == {"com.example::FrobnicateA": ["first"], "com.example::FrobnicateB": ["second"]}
    assert "FrobnicateA" in str(error) and "FrobnicateB" in str(error)


def test_node_errors_name_the_node():
    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3])
    b = helper.make_tensor_value_info("b", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3])
    graph = helper.make_graph(
        [helper.make_node("Relu", ["a"], ["r"]), helper.make_node("Add", ["r", "b"], ["y"], name="bad_add")],
        "g",
        [a, b],
        [y],
    )
    with pytest.raises(strata.CompileError) as caught:
        strata.compile(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))
    error = caught.value
    assert (error.node, error.node_index, error.op_type) == ("bad_add", 1, "Add")
    assert error.kind == "invalid-input"


def test_symbolic_shapes_need_input_shapes():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 3])
    graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x], [y])
    proto = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(strata.CompileError, match="symbolic"):
        strata.compile(proto)
    model = strata.compile(proto, input_shapes={"x": (4, 3)})
    assert model.inputs[0].shape == (4, 3)
    (y,) = model(x=-np.ones((4, 3), np.float32))
    assert (y == 0).all()


def test_argument_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        strata.compile(tmp_path / "missing.onnx")
    with pytest.raises(TypeError):
        strata.compile(42)
    with pytest.raises(ValueError, match="threads"):
        strata.compile(tiny_model(), threads=0)
    with pytest.raises(ValueError, match="unknown strategy"):
        strata.compile(tiny_model(), strategy="best")
    with pytest.raises(ValueError, match="unknown optimisation 'loops'"):
        strata.compile(tiny_model(), disable=["views", "loops"])
    with pytest.raises(strata.CompileError, match="not a valid ONNX model"):
        strata.compile(b"\x08\x07garbage")


def test_disabled_optimisations_still_compute_the_same():
    # x -> Relu -> Transpose -> Exp: a view and a fused kernel by default.
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 6])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [6, 4])
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu"),
        helper.make_node("Transpose", ["r"], ["t"], name="transpose", perm=[1, 0]),
        helper.make_node("Exp", ["t"], ["e"], name="exp"),
        helper.make_node("Neg", ["e"], ["y"], name="neg"),
    ]
    graph = helper.make_graph(nodes, "chain", [x], [y])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    value = np.linspace(-2, 2, 24, dtype=np.float32).reshape(4, 6)
    want = -np.exp(np.maximum(value, 0).T)
    default = strata.compile(model, cache=False)
    for disable in (["views"], ["fusion", "in-place"], "pads-in-place", ["views", "fusion", "epilogues", "in-place"]):
        (got,) = strata.compile(model, disable=disable, cache=False)(x=value)
        np.testing.assert_allclose(got, want, rtol=1e-6)
    # The Transpose is no view to an executor of ONNX nodes: views and in-place save nothing.
    assert default.plan.in_order == {"tensors": 3, "naive": 288, "plain": 192, "views_in_place": 192}


def test_frozen_inputs_as_arrays():
    model = "nested_if"
    frozen = {name: onnx.numpy_helper.to_array(onnx.load_tensor_from_string(data)) for name, data in zoo_frozen(model).items()}
    assert frozen, "nested_if freezes its sample rate"
    assert all(np.ndim(v) == 0 for v in frozen.values()), "the sample rate is a scalar input"
    compiled = strata.compile(ZOO / f"{model}.onnx", freeze=frozen)
    outputs = compiled.run(None, zoo_inputs(model))
    for name, reference in zoo_references(model).items():
        index = [o.name for o in compiled.outputs].index(name)
        np.testing.assert_allclose(outputs[index], reference, rtol=RTOL, atol=ATOL)


def test_run_time_check_failures_raise():
    # A token id out of range: the compiled code's status names the Gather (issue #22),
    # where a clamped row would be a plausible wrong answer.
    table = helper.make_tensor_value_info("table", TensorProto.FLOAT, [4, 3])
    ids = helper.make_tensor_value_info("ids", TensorProto.INT64, [2])
    rows = helper.make_tensor_value_info("rows", TensorProto.FLOAT, [2, 3])
    graph = helper.make_graph([helper.make_node("Gather", ["table", "ids"], ["rows"], name="embed")], "g", [table, ids], [rows])
    model = strata.compile(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]))
    data = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.testing.assert_array_equal(model(data, np.array([3, -4]))[0], data[[3, 0]])
    with pytest.raises(RuntimeError, match=r"node #0 'embed' \(Gather\): an index in 'ids' is outside \[-4, 4\)"):
        model(data, np.array([1, 4]))


@pytest.mark.parametrize(
    "dtype, values, largest, indices",
    [
        (TensorProto.FLOAT, [np.inf, 1.0, np.inf], 0, [1, 0, 2]),
        (TensorProto.FLOAT, [-np.inf, -np.inf, 5.0], 1, [2, 0, 1]),
        (TensorProto.UINT64, [2**64 - 1, 2**64 - 1, 3], 0, [2, 0, 1]),
    ],
)
def test_top_k_ties_at_the_types_extreme(dtype, values, largest, indices):
    # TopK marks taken positions with the type's extreme; values equal to it must still come
    # out once each, lowest index first (each index used to be able to repeat).
    x = helper.make_tensor_value_info("x", dtype, [1, 3])
    v = helper.make_tensor_value_info("v", dtype, [1, 3])
    i = helper.make_tensor_value_info("i", TensorProto.INT64, [1, 3])
    k = helper.make_tensor("k", TensorProto.INT64, [1], [3])
    node = helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1, largest=largest)
    graph = helper.make_graph([node], "g", [x], [v, i], [k])
    model = strata.compile(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 11)]))
    data = np.array([values], dtype=helper.tensor_dtype_to_np_dtype(dtype))
    got_values, got_indices = model(data)
    assert got_indices.tolist() == [indices]
    np.testing.assert_array_equal(got_values, data[:, indices])


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize(
    "op, shape, attrs",
    [
        # Over 1 MiB: blocks of whole rows (20 rows of 384) and whole planes (130 x 130), each
        # block's parameters sliced where it starts; on two threads the blocks' chunks side by
        # side with statistics of their own.
        ("LayerNormalization", [1, 1500, 384], {"axis": -1, "epsilon": 1e-5}),
        ("InstanceNormalization", [2, 8, 130, 130], {"epsilon": 1e-5}),
    ],
)
def test_large_normalisations_match_numpy(op, shape, attrs, threads):
    rng = np.random.default_rng(7)
    channels = shape[-1] if op == "LayerNormalization" else shape[1]
    scale = rng.uniform(0.5, 1.5, channels).astype(np.float32)
    bias = rng.standard_normal(channels).astype(np.float32)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)
    inits = [
        helper.make_tensor("scale", TensorProto.FLOAT, [channels], scale),
        helper.make_tensor("bias", TensorProto.FLOAT, [channels], bias),
    ]
    graph = helper.make_graph([helper.make_node(op, ["x", "scale", "bias"], ["y"], **attrs)], "norm", [x], [y], inits)
    model = strata.compile(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), threads=threads)
    value = (rng.standard_normal(shape) * 2 + 1).astype(np.float32)
    wide = value.astype(np.float64)
    axes = (-1,) if op == "LayerNormalization" else tuple(range(2, len(shape)))
    mean = wide.mean(axis=axes, keepdims=True)
    normed = (wide - mean) / np.sqrt(wide.var(axis=axes, keepdims=True) + 1e-5)
    broadcast = [1] * (len(shape) - 1) + [channels] if op == "LayerNormalization" else [1, channels, 1, 1]
    want = normed * scale.reshape(broadcast) + bias.reshape(broadcast)
    (got,) = model(value)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("mode", ["reflect", "edge", "wrap"])
def test_padded_values_produced_in_place_match_numpy(mode, threads):
    # A 3x3 convolution read only by a reflect/edge/wrap pad: it writes into the padded buffer's
    # interior and the borders are copied from it through small stages, so on one thread
    # (reflect, edge) the arena holds the padded value and one stage, not the convolution's
    # result beside its padded copy (as before the stages). Uneven amounts on three axes
    # (corners included).
    rng = np.random.default_rng(11)
    shape, pads = [1, 6, 40, 48], [0, 1, 3, 2, 0, 2, 1, 4]
    padded = [n + lo + hi for n, lo, hi in zip(shape, pads[:4], pads[4:])]
    weights = rng.standard_normal((6, 6, 3, 3)).astype(np.float32)
    mixing = rng.standard_normal((4, padded[1])).astype(np.float32)
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4] + padded[2:])
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
        helper.make_node("Pad", ["c", "pads"], ["p"], mode=mode),
        helper.make_node("Conv", ["p", "m"], ["y"]),
    ]
    inits = [
        helper.make_tensor("w", TensorProto.FLOAT, [6, 6, 3, 3], weights),
        helper.make_tensor("pads", TensorProto.INT64, [8], pads),
        helper.make_tensor("m", TensorProto.FLOAT, [4, padded[1], 1, 1], mixing),
    ]
    graph = helper.make_graph(nodes, "pad", [x], [y], inits)
    model = strata.compile(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 19)]), threads=threads)
    value = rng.standard_normal(shape).astype(np.float32)
    framed = np.pad(value.astype(np.float64), [(0, 0), (0, 0), (1, 1), (1, 1)])
    rows, cols = shape[2:]
    conv = sum(
        np.einsum("oc,nchw->nohw", weights[:, :, i, j].astype(np.float64), framed[:, :, i : i + rows, j : j + cols])
        for i in range(3)
        for j in range(3)
    )
    want = np.einsum("oc,nchw->nohw", mixing.astype(np.float64), np.pad(conv, list(zip(pads[:4], pads[4:])), mode=mode))
    (got,) = model(value)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    if threads == 1 and mode != "wrap":
        conv_and_padded = 4 * (int(np.prod(shape)) + int(np.prod(padded)))
        assert model.arena_bytes < conv_and_padded, model.arena_bytes
