"""Functions the parse_jit tests treat as @pl.jit entries and sub-functions, through a stand-in with
the attributes of pypto.jit.JITFunction."""

from dataclasses import dataclass, field
from typing import Any, Callable

import pypto.language as pl


@dataclass
class StandIn:
    fn: Callable
    kind: str = "orchestration"
    level: Any = None
    external_source: str | None = None
    options: dict = field(default_factory=dict)


def _scale(x: pl.Tensor, out: pl.Out[pl.Tensor]) -> pl.Tensor:
    t = pl.load(x, [0, 0], [64, 64], target_memory=pl.Mem.Vec)
    out = pl.store(pl.mul(t, 2.0), [0, 0], out)
    return out


scale = StandIn(_scale, "incore")


def _twice(x):
    y = pl.add(x, x)
    return y


twice = StandIn(_twice, "inline")


def _entry(a: pl.Tensor, out: pl.Out[pl.Tensor], n: pl.Scalar[pl.INDEX]) -> pl.Tensor:
    for i in pl.range(n):
        out = scale(a, out)
    return out


entry = StandIn(_entry)


def _entry_with_scope(a: pl.Tensor, b: pl.Tensor):
    with pl.at(level=pl.Level.CORE_GROUP):
        c = twice(a)
        d = pl.add(c, b)
    return d


entry_with_scope = StandIn(_entry_with_scope)


def _calls_entry(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    r = _entry_again(a, out)
    return r


def _other_entry_fn(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    return out


_entry_again = StandIn(_other_entry_fn)
calls_entry = StandIn(_calls_entry)


def _kernel(a: pl.Tensor, rows: pl.Scalar[pl.INDEX]): ...


kernel = StandIn(_kernel, "incore", level=pl.Level.CHIP_DIE, external_source="../kernels/fixtures/scale_add.cpp")


def _untyped(a, b: pl.Tensor):
    return
untyped = StandIn(_untyped)


def _rebinds_specialized(a: pl.Tensor, n: pl.Scalar[pl.INDEX]):
    for i in pl.range(4):
        n = n + i
    if n > 2:
        n = n * 2
    return n


rebinds_specialized = StandIn(_rebinds_specialized, "opaque")


def _accumulate(a: pl.Tensor[[128, 128], pl.FP32], out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.add(a, a)
        for i in pl.range(3):
            t = pl.add(t, a)
        out = pl.assemble(out, pl.mul(t, t), [0, 0])
    return out


accumulate = StandIn(_accumulate)


def _add_kernel(a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
                out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    out = pl.assemble(out, pl.add(a, b), [0, 0])
    return out


add_kernel = StandIn(_add_kernel, "incore")


def _add_program(a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
                 out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    return add_kernel(a, b, out)


add_program = StandIn(_add_program)


def _host_main(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    add_program(a, a, out, device=0)


host_main = StandIn(_host_main, "host")


def _nested_call(a: pl.Tensor, out: pl.Out[pl.Tensor]):
    r = scale(twice(a), out)
    return r


nested_call = StandIn(_nested_call, "incore")


def _two_stage(x: pl.Tensor, scratch: pl.Out[pl.Tensor], out: pl.Out[pl.Tensor]):
    with pl.at(level=pl.Level.CORE_GROUP) as first:
        scratch[:] = pl.add(x, x)
    with pl.at(level=pl.Level.CORE_GROUP, deps=[first]) as second:
        out[:] = pl.add(scratch, scratch)
    return scratch, out


two_stage = StandIn(_two_stage)
