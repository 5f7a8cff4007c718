"""Type stubs of the native module `strata._strata` (built from `python/src/lib.rs`)."""

from typing import Dict, List, Optional, Tuple

import numpy as np

__version__: str

class CompileError(Exception):
    """A model could not be compiled."""

    message: str
    kind: str
    """`invalid-input`, `unsupported`, `verification`, `internal`, `io` or `unavailable`."""
    node: Optional[str]
    node_index: Optional[int]
    op_type: Optional[str]
    unsupported: Dict[str, List[str]]
    """Every unsupported op type with the nodes that use it."""

class CompiledModel:
    @property
    def inputs(self) -> List[Tuple[str, str, Tuple[int, ...]]]: ...
    @property
    def outputs(self) -> List[Tuple[str, str, Tuple[int, ...]]]: ...
    @property
    def name(self) -> str: ...
    @property
    def arena_bytes(self) -> int: ...
    @property
    def arena_alignment(self) -> int: ...
    @property
    def lower_bound(self) -> Optional[int]: ...
    @property
    def plan_json(self) -> Optional[str]: ...
    @property
    def warnings(self) -> List[str]: ...
    @property
    def timings(self) -> List[Tuple[str, float]]: ...
    @property
    def cache(self) -> str: ...
    def run(self, inputs: List[np.ndarray]) -> List[np.ndarray]: ...
    def save(self, path: str) -> Tuple[str, str, str]: ...

def compile(
    model: bytes,
    *,
    name: str,
    file_name: str,
    base_dir: Optional[str] = None,
    input_shapes: Dict[str, List[int]] = ...,
    frozen_protos: Dict[str, bytes] = ...,
    frozen_arrays: Dict[str, Tuple[str, List[int], bytes]] = ...,
    threads: Optional[int] = None,
    optimize: bool = True,
    strategy: str = "exact",
    cache: bool = True,
    verify: bool = False,
    max_constant_bytes: Optional[int] = None,
    disable: List[str] = ...,
) -> CompiledModel: ...
def load(manifest: str, *, threads: Optional[int] = None) -> CompiledModel: ...
def render_svg(plan_json: str) -> str: ...
def default_threads() -> int: ...
