"""Strata, a deep-learning compiler: compile ONNX models to native code, run them on NumPy
arrays, and inspect the memory plan.

    >>> import strata, numpy as np
    >>> model = strata.compile("model.onnx", input_shapes={"x": (1, 3, 224, 224)})
    >>> y, = model(x=np.ones((1, 3, 224, 224), np.float32))
    >>> model.plan.arena_bytes, model.plan.lower_bound
    >>> print(model.plan.format_table())
    >>> model.save("libmodel.so")            # shared object + manifest + C header
    >>> again = strata.load("libmodel.json")  # run an artifact without compiling

Compiled models are cached (like `strata run`): a second `compile` of the same model with the
same options on the same machine loads the stored shared object instead of compiling.
"""

from __future__ import annotations

import os
import pathlib
import warnings as _warnings
from typing import Any, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from . import _strata
from ._strata import CompileError

__version__: str = _strata.__version__

__all__ = [
    "CompileError",
    "CompileWarning",
    "Model",
    "Plan",
    "PlanBuffer",
    "TensorInfo",
    "compile",
    "load",
]

PathLike = Union[str, "os.PathLike[str]"]


class CompileWarning(UserWarning):
    """An optimisation that fell back during compilation (the model still compiled)."""


class TensorInfo(NamedTuple):
    """An input or output of a compiled model."""

    name: str
    dtype: Union[np.dtype, str]
    """A NumPy dtype, or the type's name where NumPy has none (`bfloat16` without ml_dtypes)."""
    shape: Tuple[int, ...]


class PlanBuffer(NamedTuple):
    """One intermediate buffer of the arena plan."""

    name: str
    """The ONNX node(s) that produce it."""
    op: Optional[str]
    """Their op types (`Conv + Relu`), or the compiled op's name."""
    size: int
    """Bytes."""
    offset: Optional[int]
    """Byte offset in the arena."""
    start: int
    """First step (op index of the planned function) at which it is live."""
    end: int
    """First step at which it is dead again (half-open lifetime)."""
    memory_class: str
    """`activation` or `workspace` (the arena's classes)."""
    in_place_of: Optional[int] = None
    """The index in `Plan.buffers` of the buffer whose bytes this one takes over in place (an
    input of the op that computes this one, dead at that op: the two share their bytes at that
    one step, on purpose)."""


class Plan:
    """Where every intermediate buffer lives in the model's one arena, at static offsets."""

    def __init__(self, report: Mapping[str, Any], json_text: str) -> None:
        self._json = json_text
        self.strategy: str = report["strategy"]
        self.arena_bytes: int = int(report["arena_bytes"])
        self.lower_bound: int = int(report["lower_bound"])
        self.optimal: bool = bool(report["optimal"])
        self.buffers: List[PlanBuffer] = [
            PlanBuffer(
                name=b["id"],
                op=b.get("op"),
                size=int(b["size"]),
                offset=b.get("offset"),
                start=int(b["lower"]),
                end=int(b["upper"]),
                memory_class=b["class"],
                in_place_of=b.get("in_place_of"),
            )
            for b in report["buffers"]
        ]
        # What the activations need with the ONNX nodes run one by one in file order, in
        # bytes: `naive` (every tensor its own buffer), `plain` (freed after the last reader),
        # `views_in_place` (views share, elementwise ops write over a dying input), `tensors`.
        self.in_order: Optional[Dict[str, int]] = (
            {k: int(v) for k, v in report["in_order"].items()} if report.get("in_order") else None
        )

    def table(self) -> List[PlanBuffer]:
        """Every buffer, by offset then start."""
        return sorted(self.buffers, key=lambda b: (b.offset if b.offset is not None else -1, b.start))

    def format_table(self, limit: Optional[int] = None) -> str:
        """The plan as aligned text: a summary line, then one row per buffer (the first `limit`)."""
        gap = 0.0 if self.lower_bound == 0 else 100.0 * (self.arena_bytes - self.lower_bound) / self.lower_bound
        lines = [
            f"arena {self.arena_bytes} B, lower bound {self.lower_bound} B (+{gap:.2f}%), "
            f"{len(self.buffers)} buffers, strategy {self.strategy}{' (optimal)' if self.optimal else ''}",
            f"{'offset':>10} {'size':>10} {'live':>11}  {'class':<10} {'op':<24} name",
        ]
        rows = self.table()
        for b in rows[:limit] if limit is not None else rows:
            live = f"[{b.start},{b.end})"
            lines.append(
                f"{'-' if b.offset is None else b.offset:>10} {b.size:>10} {live:>11}  "
                f"{b.memory_class:<10} {b.op or '':<24} {b.name}"
            )
        if limit is not None and len(rows) > limit:
            lines.append(f"... {len(rows) - limit} more")
        return "\n".join(lines)

    def to_svg(self) -> str:
        """The memory timeline: x is the step, y the offset, one rectangle per buffer."""
        return _strata.render_svg(self._json)

    def save_svg(self, path: PathLike) -> pathlib.Path:
        """Writes the memory timeline (see `to_svg`) to `path`."""
        path = pathlib.Path(path)
        path.write_text(self.to_svg())
        return path

    def to_json(self) -> str:
        return self._json

    def __repr__(self) -> str:
        return (
            f"<strata.Plan arena_bytes={self.arena_bytes} lower_bound={self.lower_bound} "
            f"buffers={len(self.buffers)} strategy={self.strategy!r}>"
        )


def _tensor_info(entry: Tuple[str, str, Tuple[int, ...]]) -> TensorInfo:
    name, dtype, shape = entry
    try:
        return TensorInfo(name, np.dtype(dtype), tuple(shape))
    except TypeError:  # bfloat16, float8...: NumPy knows them only through ml_dtypes
        return TensorInfo(name, dtype, tuple(shape))


class Model:
    """A compiled model. Call it with inputs by name (or position) to get its outputs, in
    order: `y, = model(x=array)`. Safe to call from several threads at once (the GIL is
    released while it runs; each call has its own arena)."""

    def __init__(self, native: "_strata.CompiledModel") -> None:
        self._native = native
        self.inputs: List[TensorInfo] = [_tensor_info(e) for e in native.inputs]
        self.outputs: List[TensorInfo] = [_tensor_info(e) for e in native.outputs]
        plan_json = native.plan_json
        self.plan: Optional[Plan] = None
        if plan_json is not None:
            import json

            self.plan = Plan(json.loads(plan_json), plan_json)

    @property
    def name(self) -> str:
        """The name in the compiled symbols (`strata_<name>_run`)."""
        return self._native.name

    @property
    def arena_bytes(self) -> int:
        return self._native.arena_bytes

    @property
    def warnings(self) -> List[str]:
        """Messages of optimisations that fell back while compiling, and notes (a small model
        compiled for one thread)."""
        return list(self._native.warnings)

    @property
    def timings(self) -> List[Tuple[str, float]]:
        """`(stage, seconds)` of the compile."""
        return list(self._native.timings)

    @property
    def cache(self) -> str:
        """How the compile cache served the model: `hit`, `stored`, `private`, `loaded`, or
        `unavailable: <why>`."""
        return self._native.cache

    def _feed(self, args: Sequence[Any], kwargs: Mapping[str, Any]) -> List[np.ndarray]:
        names = [i.name for i in self.inputs]
        if len(args) > len(names):
            raise ValueError(f"{self.name} takes {len(names)} inputs ({', '.join(names)}), got {len(args)} positional")
        feed: Dict[str, Any] = dict(zip(names, args))
        for key, value in kwargs.items():
            if key not in names:
                raise ValueError(f"{self.name} has no input '{key}'; its inputs are: {', '.join(names)}")
            if key in feed:
                raise ValueError(f"input '{key}' given twice (by position and by name)")
            feed[key] = value
        missing = [n for n in names if n not in feed]
        if missing:
            raise ValueError(f"missing input(s) of {self.name}: {', '.join(missing)}")
        arrays = []
        for info in self.inputs:
            value = feed[info.name]
            if not isinstance(value, np.ndarray):
                # Lists and scalars take the input's dtype; arrays must already have it.
                value = np.asarray(value, dtype=info.dtype)
            arrays.append(value)
        return arrays

    def __call__(self, *args: Any, **kwargs: Any) -> List[np.ndarray]:
        """Runs the model; returns every output, in order."""
        return self._native.run(self._feed(args, kwargs))

    def run(
        self, output_names: Optional[Iterable[str]], input_feed: Mapping[str, Any]
    ) -> List[np.ndarray]:
        """Like `onnxruntime.InferenceSession.run`: the outputs named (all when None)."""
        outputs = self._native.run(self._feed((), input_feed))
        if output_names is None:
            return outputs
        index = {o.name: i for i, o in enumerate(self.outputs)}
        selected = []
        for name in output_names:
            if name not in index:
                raise ValueError(f"{self.name} has no output '{name}'; its outputs are: {', '.join(index)}")
            selected.append(outputs[index[name]])
        return selected

    def save(self, path: PathLike) -> pathlib.Path:
        """Writes the shared object to `path` (`libmodel.so`), its manifest (`model.json`) and C
        header (`model.h`) beside it; `strata.load` and `strata-exec` run it. Returns the
        manifest's path."""
        _library, manifest, _header = self._native.save(os.fspath(path))
        return pathlib.Path(manifest)

    def __repr__(self) -> str:
        inputs = ", ".join(f"{i.name}: {i.dtype}{list(i.shape)}" for i in self.inputs)
        outputs = ", ".join(f"{o.name}: {o.dtype}{list(o.shape)}" for o in self.outputs)
        return f"<strata.Model {self.name}({inputs}) -> ({outputs}), arena {self.arena_bytes} B>"


def _symbol_name(stem: str) -> str:
    return "".join(c if c.isascii() and c.isalnum() else "_" for c in stem) or "model"


def compile(
    model: Union[PathLike, bytes, bytearray, memoryview, Any],
    input_shapes: Optional[Mapping[str, Sequence[int]]] = None,
    threads: Optional[int] = None,
    optimize: bool = True,
    *,
    freeze: Optional[Mapping[str, Any]] = None,
    name: Optional[str] = None,
    strategy: str = "exact",
    cache: bool = True,
    verify: bool = False,
    max_constant_bytes: Optional[int] = None,
    disable: Sequence[str] = (),
) -> Model:
    """Compiles an ONNX model for this machine.

    model: a path to a `.onnx` file (external data is read beside it), the serialized bytes, or
        an `onnx.ModelProto`.
    input_shapes: static shapes for inputs with symbolic dimensions, `{"x": (1, 3, 224, 224)}`.
    threads: cores the kernels are split across (None: every core; 1: sequential code). A
        model of little work in many kernels is compiled for one thread whatever this says
        (`Model.warnings` notes it, no `CompileWarning`; `disable="small-models"` keeps the
        threads asked).
    optimize: run the graph optimiser (fusion, views, in-place); False lowers op by op.
    freeze: inputs fixed at compile time, `{"sample_rate": np.array(16000)}` (arrays, or
        `onnx.TensorProto`s or their bytes): they become constants and what depends on them
        folds (an `If` on a frozen input keeps only its taken branch).
    name: the name in symbols (default: the file's stem, or `model`).
    strategy: the arena planning strategy (`exact`, `greedy-by-size`, ...).
    cache: reuse and fill the compile cache (`$STRATA_CACHE_DIR`, else `$XDG_CACHE_HOME/strata`,
        else `~/.cache/strata`).
    verify: verify the IR after every pass (slower; for debugging the compiler).
    max_constant_bytes: the budget for constants computed at import (folded values, operator
        tables), in bytes; None is 1 GiB. A model that needs more is refused with
        `CompileError` naming the constant.
    disable: optimisations to leave out, to see what each saves or to get around a problem in
        one: any of "views", "fusion", "epilogues", "in-place", "pads-in-place",
        "conv-borders", "bands", "concat-convs", "conv-channels", "residuals", "sink-to-use", "order",
        "winograd", "integer-matmuls", "half-in-f32", "small-models", "amx-tiles".

    Raises `CompileError` (with `.node`, `.op_type`, `.unsupported`) when the model cannot be
    compiled, `ValueError` for bad arguments.
    """
    base_dir: Optional[str] = None
    if isinstance(model, (str, os.PathLike)):
        path = pathlib.Path(model)
        try:
            data = path.read_bytes()
        except OSError as error:
            raise FileNotFoundError(f"cannot read the model {path}: {error}") from error
        file_name, base_dir = str(path), str(path.parent)
        default_name = _symbol_name(path.stem)
    elif isinstance(model, (bytes, bytearray, memoryview)):
        data, file_name, default_name = bytes(model), "<bytes>", "model"
    elif hasattr(model, "SerializeToString"):
        data, file_name, default_name = model.SerializeToString(), "<ModelProto>", "model"
    else:
        raise TypeError(f"model must be a path, bytes or an onnx.ModelProto, not {type(model).__name__}")
    shapes: Dict[str, List[int]] = {}
    for key, dims in (input_shapes or {}).items():
        try:
            shapes[str(key)] = [int(d) for d in dims]
        except TypeError:
            raise ValueError(f"input_shapes['{key}'] must be a sequence of ints, got {dims!r}") from None
        if any(d < 0 for d in shapes[str(key)]):
            raise ValueError(f"input_shapes['{key}'] has a negative dimension: {dims!r}")
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be a positive int or None, got {threads!r}")
    frozen_protos: Dict[str, bytes] = {}
    frozen_arrays: Dict[str, Tuple[str, List[int], bytes]] = {}
    for key, value in (freeze or {}).items():
        if hasattr(value, "SerializeToString"):
            frozen_protos[str(key)] = value.SerializeToString()
        elif isinstance(value, (bytes, bytearray, memoryview)):
            frozen_protos[str(key)] = bytes(value)
        else:
            # Not np.ascontiguousarray: it makes a 0-d array (a scalar input's value) 1-d.
            array = np.asarray(value, order="C")
            frozen_arrays[str(key)] = (array.dtype.name, list(array.shape), array.tobytes())
    native = _strata.compile(
        data,
        name=_symbol_name(name) if name is not None else default_name,
        file_name=file_name,
        base_dir=base_dir,
        input_shapes=shapes,
        frozen_protos=frozen_protos,
        frozen_arrays=frozen_arrays,
        threads=threads,
        optimize=bool(optimize),
        strategy=strategy,
        cache=bool(cache),
        verify=bool(verify),
        max_constant_bytes=max_constant_bytes,
        disable=[str(word) for word in ([disable] if isinstance(disable, str) else disable)],
    )
    compiled = Model(native)
    for message in compiled.warnings:
        # Notes (a small model compiled for one thread) stay in `Model.warnings` only.
        if not message.startswith("note:"):
            _warnings.warn(message.strip(), CompileWarning, stacklevel=2)
    return compiled


def load(artifact: PathLike, threads: Optional[int] = None) -> Model:
    """Loads a compiled artifact: its manifest (`model.json`) or its shared object
    (`libmodel.so`), as written by `Model.save` or `strata compile -o libmodel.so`. A shared
    object is loaded through the manifest beside it when there is one (it carries the arena
    plan), else by itself (it carries its signature and weights; `plan` is then None)."""
    path = pathlib.Path(artifact)
    if path.suffix == ".so":
        stem = path.stem[3:] if path.stem.startswith("lib") else path.stem
        beside = path.with_name(stem + ".json")
        if beside.exists():
            path = beside
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise ValueError(f"threads must be a positive int or None, got {threads!r}")
    return Model(_strata.load(os.fspath(path), threads=threads))
