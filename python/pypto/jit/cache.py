"""The specialization key and the per-kernel cache of compiled programs.

Keyed (spec execution-and-tooling §3.3): the source hash (entry, sub-functions,
folded constants, external source, PyPTO version); per tensor parameter its
name, shape with None for pl.dynamic dimensions, dtype and layout; per scalar
parameter its name and value; and the compile options of the RunConfig
(platform, backend, strategy, pipeline contents, distributed_config,
analyze_auto_scopes_for_deps, memory planner, dump_ptoas_passes, check_nan). Not keyed:
dump_passes, profiling, diagnostics, save_kernels_dir and the run-time
options; a hit reuses the program compiled first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Generic, NamedTuple, TypeVar

from pypto import ir


@dataclass(frozen=True)
class TensorKey:
    name: str
    shape: tuple[int | None, ...]
    dtype: str
    layout: str | None
    window: bool = False  # a pld.window view: the parameter is a pld.DistributedTensor


@dataclass(frozen=True)
class ScalarKey:
    name: str
    type_name: str  # 1 and True are equal in Python but specialize differently
    value: Any


@dataclass(frozen=True)
class SpecializationKey:
    source_hash: str
    tensors: tuple[TensorKey, ...]
    scalars: tuple[ScalarKey, ...]
    compile_options: tuple[tuple[str, Any], ...]

    @property
    def platform(self) -> str:
        return dict(self.compile_options)["platform"]

    def as_dict(self) -> dict[str, Any]:
        """The key's contents, for inspection and tests."""
        return {
            "source_hash": self.source_hash,
            "tensors": {t.name: {"shape": t.shape, "dtype": t.dtype, "layout": t.layout} for t in self.tensors},
            "scalars": {s.name: s.value for s in self.scalars},
            "compile_options": dict(self.compile_options),
        }


def tensor_key(name: str, key_shape: tuple[int | None, ...], dtype: ir.DataType, layout: Any,
               window: bool = False) -> TensorKey:
    return TensorKey(name, key_shape, dtype.name, None if layout is None else repr(layout), window)


class CacheInfo(NamedTuple):
    hits: int
    misses: int
    currsize: int


V = TypeVar("V")


@dataclass
class SpecializationCache(Generic[V]):
    """A dict of compiled programs by key, counting hits and misses."""

    entries: dict[SpecializationKey, V] = field(default_factory=dict)
    hits: int = 0
    misses: int = 0

    def lookup(self, key: SpecializationKey) -> V | None:
        value = self.entries.get(key)
        if value is None:
            self.misses += 1
        else:
            self.hits += 1
        return value

    def store(self, key: SpecializationKey, value: V) -> None:
        self.entries[key] = value

    def info(self) -> CacheInfo:
        return CacheInfo(self.hits, self.misses, len(self.entries))

    def clear(self) -> None:
        self.entries.clear()
        self.hits = 0
        self.misses = 0
