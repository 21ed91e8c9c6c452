"""Every kernel op of the registry, run on a2a3sim and compared with torch.

Ops that share a shape are grouped in families: one generated @pl.jit kernel
per family and dtype, with one output per op (one compile serves the family's
tests for that dtype). @pl.jit reads a kernel's source from its file, so the
kernels are written into a module under the session's tmp folder and imported.
Each test checks one op's output for one dtype.
"""

import importlib.util
import math
import os
import re
import textwrap
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import torch
import yaml

import pypto
import pypto.jit.compiled
import pypto.language as pl
from pypto.runtime import RunConfig

CONFIG = RunConfig(platform="a2a3sim")
R, C = 16, 32
SENTINEL = 7  # what outputs hold before a kernel runs: an element it does not write stays 7 (True for BOOL)

TORCH_DTYPES = {
    "BOOL": torch.bool, "INT8": torch.int8, "UINT8": torch.uint8, "INT16": torch.int16, "UINT16": torch.uint16,
    "INT32": torch.int32, "UINT32": torch.uint32, "INT64": torch.int64, "FP16": torch.float16,
    "BF16": torch.bfloat16, "FP32": torch.float32,
}
ALL = tuple(TORCH_DTYPES)
INTS = ("INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64")
SIGNED_INTS = ("INT8", "INT16", "INT32", "INT64")
FLOATS = ("FP16", "BF16", "FP32")
NUMERIC = INTS + FLOATS
# The element types pto-isa declares these instructions for (a static_assert in each); the npu backend rejects
# the others (test_ops_pto_isa_lacks_for_a_dtype_name_the_instruction_and_the_fix).
ABS_DTYPES = ("INT8", "INT16", "INT32") + FLOATS
ROW_SUM_DTYPES = ("INT16", "INT32") + FLOATS
COL_MAX_DTYPES = ("INT8", "UINT8") + FLOATS
CONCAT_DTYPES = tuple(d for d in NUMERIC if d != "INT64")
FILLPAD_DTYPES = tuple(d for d in NUMERIC if d != "INT64")
EXPAND_DTYPES = CONCAT_DTYPES
EXPAND_ARITHMETIC_DTYPES = ("INT16", "INT32", "FP16", "FP32")
EXPAND_FLOAT_DTYPES = ("FP16", "FP32")
BITS = {"BOOL": 1, "INT8": 8, "UINT8": 8, "INT16": 16, "UINT16": 16, "INT32": 32, "UINT32": 32, "INT64": 64}


def scalar_value(dt: str) -> float | int:
    """The scalar operand of the scalar-form ops ({s} in an op's expression)."""
    return 1.5 if is_float(dt) else True if dt == "BOOL" else 3


def is_float(dt: str) -> bool:
    return dt in FLOATS


def is_signed(dt: str) -> bool:
    return dt in SIGNED_INTS or is_float(dt)


def int_range(dt: str) -> tuple[int, int]:
    bits = BITS[dt]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if dt.startswith("INT") else (0, (1 << bits) - 1)


def wrap(x: torch.Tensor, dt: str) -> torch.Tensor:
    """An int64 tensor reduced modulo 2**bits into dtype `dt` (what integer arithmetic does)."""
    bits = BITS[dt]
    if bits < 64:
        x = x & ((1 << bits) - 1)
        if dt.startswith("INT"):
            x = torch.where(x >= (1 << (bits - 1)), x - (1 << bits), x)
    return x.to(TORCH_DTYPES[dt])


def wide(x: torch.Tensor) -> torch.Tensor:
    """int64 for integer and bool tensors, float32 for floating ones: where references compute."""
    return x.to(torch.float32) if x.is_floating_point() else x.to(torch.int64)


def to_dtype(x: torch.Tensor, dt: str) -> torch.Tensor:
    """A reference result (int64 or float32) rounded or wrapped into dtype `dt`."""
    if dt == "BOOL":
        return x.to(torch.bool)
    if is_float(dt):
        return x.to(torch.float32).to(TORCH_DTYPES[dt])
    return wrap(x.to(torch.int64), dt)


# ----------------------------------------------------------------- inputs


def make_gen(*key: object) -> torch.Generator:
    return torch.Generator().manual_seed(zlib.crc32(repr(key).encode()))


def random_values(dt: str, shape: tuple[int, ...], gen: torch.Generator, *, low: int | None = None,
                  high: int | None = None, scale: float = 4.0) -> torch.Tensor:
    """Random values of dtype `dt`: floats ~ N(0, scale), integers uniform in [low, high] (default: wide)."""
    if dt == "BOOL":
        return torch.randint(0, 2, shape, generator=gen).to(torch.bool)
    if is_float(dt):
        return (torch.randn(shape, generator=gen) * scale).to(TORCH_DTYPES[dt])
    lo, hi = int_range(dt)
    lo = max(lo, -(1 << 40)) if low is None else low
    hi = min(hi, 1 << 40) if high is None else high
    return (torch.randint(0, 1 << 62, shape, generator=gen) % (hi - lo + 1) + lo).to(TORCH_DTYPES[dt])


def nonzero_values(dt: str, shape: tuple[int, ...], gen: torch.Generator) -> torch.Tensor:
    """Divisors: |x| in [0.5, 4.5) for floats, [1, 20] for integers, either sign where the dtype has one."""
    sign = torch.where(torch.rand(shape, generator=gen) < 0.5, -1, 1) if is_signed(dt) else torch.ones(shape)
    if is_float(dt):
        return (sign * (0.5 + 4 * torch.rand(shape, generator=gen))).to(TORCH_DTYPES[dt])
    return (sign * torch.randint(1, 21, shape, generator=gen)).to(TORCH_DTYPES[dt])


def positive_values(dt: str, shape: tuple[int, ...], gen: torch.Generator) -> torch.Tensor:
    return (0.25 + 4 * torch.rand(shape, generator=gen)).to(TORCH_DTYPES[dt])


def small_values(dt: str, shape: tuple[int, ...], gen: torch.Generator) -> torch.Tensor:
    """Values that keep products and sums inside the narrowest types: [-8, 8] (or [0, 16])."""
    if is_float(dt):
        return random_values(dt, shape, gen)
    return random_values(dt, shape, gen, low=-8 if is_signed(dt) else 0, high=8 if is_signed(dt) else 16)


def shift_counts(dt: str, shape: tuple[int, ...], gen: torch.Generator) -> torch.Tensor:
    return torch.randint(0, BITS[dt], shape, generator=gen).to(TORCH_DTYPES[dt])


# ---------------------------------------------------------------- families


@dataclass(frozen=True)
class Input:
    shape: tuple[int, ...]
    make: Callable[[str, torch.Generator], torch.Tensor]  # (dtype, gen) -> tensor
    dtype: str | None = None  # None: the family's dtype
    annotation: tuple[str, ...] | None = None  # the parameter's dims when not `shape` (a pl.dynamic name)
    load_args: str = ""  # more arguments of its pl.load
    tile: tuple[int, ...] | None = None  # the loaded tile's extents when not `shape`


@dataclass(frozen=True)
class Op:
    """One output of a family kernel: `expr` over the loaded tiles t<input> ({dt}: the dtype, {s}: its scalar)."""

    name: str
    expr: str
    ref: Callable[..., torch.Tensor]  # (inputs in wide dtypes, dt) -> expected, wide
    shape: tuple[int, ...] = (R, C)
    out_dtype: str | Callable[[str], str] | None = None  # None: the family's dtype
    dtypes: tuple[str, ...] | None = None  # None: every dtype of the family
    rtol: dict[str, float] = field(default_factory=dict)  # dtype -> relative tolerance (default exact)

    def result_dtype(self, dt: str) -> str:
        if self.out_dtype is None:
            return dt
        return self.out_dtype if isinstance(self.out_dtype, str) else self.out_dtype(dt)


@dataclass(frozen=True)
class Family:
    name: str
    inputs: dict[str, Input]
    ops: tuple[Op, ...]
    dtypes: tuple[str, ...]
    setup: tuple[str, ...] = ()  # statements before the stores ({dt})
    header: tuple[str, ...] = ()  # module-level lines the kernels read
    kernel: str | None = None  # families that run one kernel on other inputs share its name

    def ops_for(self, dt: str) -> list[Op]:
        return [op for op in self.ops if op.dtypes is None or dt in op.dtypes]

    def kernel_name(self, dt: str) -> str:
        return f"{self.kernel or self.name}_{dt.lower()}"

    def source(self, dt: str) -> str:
        def tensor(shape: tuple[int, ...], dtype: str) -> str:
            return f"pl.Tensor[[{', '.join(map(str, shape))}], pl.{dtype}]"

        ops = self.ops_for(dt)
        params = [f"{n}: {tensor(i.annotation or i.shape, i.dtype or dt)}" for n, i in self.inputs.items()]
        params += [f"out_{op.name}: pl.Out[{tensor(op.shape, op.result_dtype(dt))}]" for op in ops]
        lines = [f"@pl.jit", f"def {self.kernel_name(dt)}({', '.join(params)}):",
                 "    with pl.at(level=pl.Level.CORE_GROUP):"]
        lines += [f"        t{n} = pl.load({n}, [0, 0], [{', '.join(map(str, i.tile or i.shape))}]{i.load_args})"
                  for n, i in self.inputs.items()]
        zero = "False" if dt == "BOOL" else "0"
        lines += [f"        {s.format(dt=dt, zero=zero)}" for s in self.setup]
        for op in ops:
            lines.append(f"        pl.store({op.expr.format(dt=dt, s=scalar_value(dt))}, [0, 0], out_{op.name})")
        lines.append(f"    return {', '.join('out_' + op.name for op in ops)}")
        return "\n".join(lines) + "\n"


def family_cases(family: Family) -> list:
    """One case per op and dtype. The cases of one kernel form an xdist group, so that one worker compiles it (the
    kernels' module lies in each worker's own tmp folder, so the workers' compiles of it are not shared)."""
    cases = []
    for dt in family.dtypes:
        one_worker = pytest.mark.xdist_group(f"op-kernel-{family.kernel_name(dt)}")
        for op in family.ops_for(dt):
            cases.append(pytest.param(family, op, dt, id=f"{family.name}-{op.name}-{dt.lower()}", marks=one_worker))
    return cases


def binary_inputs(rhs: Callable[[str, torch.Generator], torch.Tensor]) -> dict[str, Input]:
    return {"a": Input((R, C), lambda dt, g: random_values(dt, (R, C), g, low=-1000, high=1000)
                       if not is_float(dt) and BITS[dt] > 8 else random_values(dt, (R, C), g)),
            "b": Input((R, C), rhs)}


def float_or_int(f_float: Callable, f_int: Callable) -> Callable[..., torch.Tensor]:
    return lambda *args: f_float(*args[:-1]) if is_float(args[-1]) else f_int(*args[:-1])


def trunc_div(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    return torch.div(a, b, rounding_mode="trunc")


FP_TRANSCENDENTAL = {"FP32": 1e-5, "FP16": 1e-3, "BF16": 8e-3}
FP_ROUNDED = {"FP32": 1e-6, "FP16": 1e-3, "BF16": 8e-3}

BINARY = Family("binary", binary_inputs(lambda dt, g: nonzero_values(dt, (R, C), g)), (
    Op("add", "pl.tile.add(ta, tb)", lambda a, b, dt: a + b),
    Op("sub", "pl.tile.sub(ta, tb)", lambda a, b, dt: a - b),
    Op("mul", "pl.tile.mul(ta, tb)", lambda a, b, dt: a * b),
    Op("div", "pl.tile.div(ta, tb)", float_or_int(lambda a, b: a / b, trunc_div), rtol=FP_ROUNDED),
    Op("maximum", "pl.tile.maximum(ta, tb)", lambda a, b, dt: torch.maximum(a, b)),
    Op("minimum", "pl.tile.minimum(ta, tb)", lambda a, b, dt: torch.minimum(a, b)),
    Op("rem", "pl.tile.rem(ta, tb, tmp)", lambda a, b, dt: torch.remainder(a, b), rtol=FP_ROUNDED),
    Op("fmod", "pl.tile.fmod(ta, tb)", lambda a, b, dt: torch.fmod(a, b), rtol=FP_ROUNDED),
), NUMERIC, setup=("tmp = pl.tile.create([16, 32], dtype=pl.{dt}, target_memory=pl.Mem.Vec)",))




def with_scalar(f: Callable[[torch.Tensor, float | int], torch.Tensor]) -> Callable[..., torch.Tensor]:
    return lambda a, dt: f(a, scalar_value(dt))


SCALAR = Family("scalar", {"a": BINARY.inputs["a"]}, (
    Op("adds", "pl.tile.adds(ta, {s})", with_scalar(lambda a, s: a + s)),
    Op("subs", "pl.tile.subs(ta, {s})", with_scalar(lambda a, s: a - s)),
    Op("muls", "pl.tile.muls(ta, {s})", with_scalar(lambda a, s: a * s)),
    Op("divs", "pl.tile.divs(ta, {s})",
       with_scalar(lambda a, s: a / s if a.is_floating_point() else trunc_div(a, s)), rtol=FP_ROUNDED),
    Op("maximums", "pl.tile.maximums(ta, {s})", with_scalar(lambda a, s: torch.clamp(a, min=s))),
    Op("minimums", "pl.tile.minimums(ta, {s})", with_scalar(lambda a, s: torch.clamp(a, max=s))),
    Op("rems", "pl.tile.rems(ta, {s}, tmp)", with_scalar(torch.remainder), rtol=FP_ROUNDED),
    Op("fmods", "pl.tile.fmods(ta, {s})", with_scalar(torch.fmod), rtol=FP_ROUNDED),
    Op("lrelu", "pl.tile.lrelu(ta, 0.25)", lambda a, dt: torch.where(a > 0, a, 0.25 * a), dtypes=FLOATS),
), NUMERIC, setup=BINARY.setup)

UNARY_FLOAT = Family("unary_float", {
    "a": Input((R, C), lambda dt, g: random_values(dt, (R, C), g, scale=2.0)),
    "p": Input((R, C), lambda dt, g: positive_values(dt, (R, C), g)),
}, (
    Op("exp", "pl.tile.exp(ta)", lambda a, p, dt: torch.exp(a), rtol=FP_TRANSCENDENTAL),
    Op("sin", "pl.tile.sin(ta)", lambda a, p, dt: torch.sin(a), rtol=FP_TRANSCENDENTAL),
    Op("cos", "pl.tile.cos(ta)", lambda a, p, dt: torch.cos(a), rtol=FP_TRANSCENDENTAL),
    Op("log", "pl.tile.log(tp)", lambda a, p, dt: torch.log(p), rtol=FP_TRANSCENDENTAL),
    Op("sqrt", "pl.tile.sqrt(tp)", lambda a, p, dt: torch.sqrt(p), rtol=FP_ROUNDED),
    Op("rsqrt", "pl.tile.rsqrt(tp)", lambda a, p, dt: torch.rsqrt(p), rtol=FP_ROUNDED),
    Op("recip", "pl.tile.recip(tp)", lambda a, p, dt: 1 / p, rtol=FP_ROUNDED),
), FLOATS)

UNARY_SIGNED = Family("unary_signed", {"a": BINARY.inputs["a"]}, (
    Op("neg", "pl.tile.neg(ta)", lambda a, dt: -a),
    Op("abs", "pl.tile.abs(ta)", lambda a, dt: torch.abs(a), dtypes=ABS_DTYPES),
    Op("relu", "pl.tile.relu(ta)", lambda a, dt: torch.relu(a)),
), SIGNED_INTS + FLOATS)


def shift_left(a: torch.Tensor, n: torch.Tensor | int, dt: str) -> torch.Tensor:
    return torch.bitwise_left_shift(a & ((1 << BITS[dt]) - 1) if BITS[dt] < 64 else a, n)


BITWISE = Family("bitwise", {
    "a": Input((R, C), lambda dt, g: random_values(dt, (R, C), g)),
    "b": Input((R, C), lambda dt, g: random_values(dt, (R, C), g)),
    "n": Input((R, C), lambda dt, g: shift_counts(dt, (R, C), g)),
}, (
    Op("and", "pl.and_(ta, tb)", lambda a, b, n, dt: a & b),
    Op("or", "pl.or_(ta, tb)", lambda a, b, n, dt: a | b),
    Op("xor", "pl.tile.xor(ta, tb, tmp)", lambda a, b, n, dt: a ^ b),
    Op("not", "pl.not_(ta)", lambda a, b, n, dt: ~a),
    Op("shl", "pl.tile.shl(ta, tn)", lambda a, b, n, dt: shift_left(a, n, dt)),
    Op("shr", "pl.tile.shr(ta, tn)", lambda a, b, n, dt: a >> n),
    Op("ands", "pl.tile.ands(ta, 90)", lambda a, b, n, dt: a & 90),
    Op("ors", "pl.tile.ors(ta, 5)", lambda a, b, n, dt: a | 5),
    Op("xors", "pl.tile.xors(ta, 6, tmp)", lambda a, b, n, dt: a ^ 6),
    Op("shls", "pl.tile.shls(ta, 3)", lambda a, b, n, dt: shift_left(a, 3, dt)),
    Op("shrs", "pl.tile.shrs(ta, 3)", lambda a, b, n, dt: a >> 3),
), INTS, setup=BINARY.setup)

CMP_MODES = {"eq": (0, torch.eq), "ne": (1, torch.ne), "lt": (2, torch.lt), "le": (3, torch.le),
             "gt": (4, torch.gt), "ge": (5, torch.ge)}


def compare_lhs(dt: str, gen: torch.Generator) -> torch.Tensor:
    """Small values, a quarter of them equal to the scalar the cmps ops compare with."""
    a = small_values(dt, (R, C), gen)
    return torch.where(torch.rand((R, C), generator=gen) < 0.25, torch.tensor(scalar_value(dt)).to(a.dtype), a)


def compare_rhs(dt: str, gen: torch.Generator) -> torch.Tensor:
    return small_values(dt, (R, C), gen)


# The element types of the a2a3 compare and select instructions; the npu backend rejects the others
# (test_ops_pto_isa_lacks_for_a_dtype_name_the_instruction_and_the_fix).
CMP_DTYPES = ("INT32", "FP16", "FP32")
CMPS_DTYPES = ("INT16", "UINT16", "INT32", "FP16", "FP32")
# Every cmp_type on these dtypes; lt and ge on the others, to keep compiles short.
CMP_ALL_MODES = ("INT32", "FP32")
MASK_BYTES = 32  # a packed mask row: C bits, 8 to a byte, padded to 32 bytes


def packed_mask(bits: torch.Tensor) -> torch.Tensor:
    """The mask tile TCMP writes for `bits` ([R, C] bools), as stored into a [R, 32] UINT8 tensor: bit c % 8 of byte
    c // 8; the store writes the mask's valid bytes only, so the rest keep the sentinel."""
    out = torch.full((bits.shape[0], MASK_BYTES), SENTINEL, dtype=torch.int64)
    out[:, :bits.shape[1] // 8] = (bits.to(torch.int64).reshape(bits.shape[0], -1, 8) << torch.arange(8)).sum(-1)
    return out


def cmp_ops() -> tuple[Op, ...]:
    ops = []
    for mode, (code, fn) in CMP_MODES.items():
        every = mode in ("lt", "ge")
        ops.append(Op(f"cmp_{mode}", f"pl.tile.cmp(ta, tb, cmp_type={code})",
                      lambda a, b, dt, fn=fn: packed_mask(fn(a, b)), shape=(R, MASK_BYTES), out_dtype="UINT8",
                      dtypes=CMP_DTYPES if every else CMP_ALL_MODES))
        ops.append(Op(f"cmps_{mode}", f"pl.tile.cmps(ta, {{s}}, cmp_type={code})",
                      lambda a, b, dt, fn=fn: packed_mask(fn(a, scalar_value(dt))), shape=(R, MASK_BYTES),
                      out_dtype="UINT8", dtypes=CMPS_DTYPES if every else CMP_ALL_MODES))
    ops.append(Op("sel", "pl.tile.sel(pl.tile.cmp(ta, tb, cmp_type=2), ta, tb)",
                  lambda a, b, dt: torch.where(a < b, a, b), dtypes=CMP_DTYPES))
    ops.append(Op("sel_cmps", "pl.tile.sel(pl.tile.cmps(ta, {s}, cmp_type=4), ta, tb)",
                  lambda a, b, dt: torch.where(a > scalar_value(dt), a, b), dtypes=CMPS_DTYPES))
    return tuple(ops)


COMPARE = Family("compare", {"a": Input((R, C), compare_lhs), "b": Input((R, C), compare_rhs)}, cmp_ops(), CMPS_DTYPES)



def cast_input(dt: str, gen: torch.Generator) -> torch.Tensor:
    """Floats in [-300, 300] (a third of them ties k + 0.5, so rounding shows), integers over the whole range."""
    if not is_float(dt):
        return random_values(dt, (R, C), gen)
    x = torch.randn((R, C), generator=gen) * 100
    ties = torch.randint(-600, 601, (R, C), generator=gen) / 2
    return torch.where(torch.rand((R, C), generator=gen) < 0.33, ties, x).clamp(-300, 300).to(TORCH_DTYPES[dt])


def cast_reference(x: torch.Tensor, src: str, dst: str) -> torch.Tensor:
    """tile.cast with mode=1 (CAST_RINT): torch's .to(), except float -> integer, which saturates."""
    if dst == "BOOL":
        return x != 0
    if is_float(src) and not is_float(dst):
        lo, hi = int_range(dst)
        return torch.nan_to_num(torch.round(x.double())).clamp(lo, hi).to(torch.int64)
    return x


PLATFORMS = Path(__file__).resolve().parents[3] / "platforms"


def cast_chains(platform: str = "a2a3") -> dict[str, set[str]]:
    """dtype -> the dtypes a chain of the platform's native casts reaches (what LegalizeTileCast accepts)."""
    native = yaml.safe_load((PLATFORMS / f"{platform}.yaml").read_text())["casts"]
    reach = {dt: {dst for src, dst in native if src == dt} for dt in ALL}
    changed = True
    while changed:
        changed = False
        for dt, targets in reach.items():
            more = set().union(*(reach[t] for t in targets)) - targets - {dt}
            if more:
                targets |= more
                changed = True
    return reach


CHAINS = cast_chains()
CAST = Family("cast", {"a": Input((R, C), cast_input)}, tuple(
    Op(f"to_{dst.lower()}", f"pl.tile.cast(ta, target_type=pl.{dst}, mode=1)",
       lambda a, dt, dst=dst: cast_reference(a, dt, dst), out_dtype=dst,
       dtypes=tuple(src for src in ALL if dst in CHAINS[src]))
    for dst in ALL), tuple(dt for dt in ALL if CHAINS[dt]))


def fp16_neighbours(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The FP16 values just below and above each FP32 value (both the value itself when it is exact)."""
    near = x.to(torch.float16)
    down = torch.nextafter(near, torch.tensor(-math.inf, dtype=torch.float16))
    up = torch.nextafter(near, torch.tensor(math.inf, dtype=torch.float16))
    exact = near.float() == x
    lo = torch.where(exact | (near.float() < x), near, down)
    hi = torch.where(exact | (near.float() > x), near, up)
    return lo, hi


def odd_neighbour(lo: torch.Tensor, hi: torch.Tensor, odd: torch.Tensor, exact: torch.Tensor) -> torch.Tensor:
    return torch.where(exact, lo, torch.where(odd, lo, hi))


def round_to_fp16(x: torch.Tensor, mode: int) -> torch.Tensor:
    lo, hi = fp16_neighbours(x)
    exact = lo == hi
    if mode in (0, 1):
        return x.to(torch.float16)
    if mode == 2:
        tie = (x - lo.float()) == (hi.float() - x)
        return torch.where(tie & ~exact, torch.where(x > 0, hi, lo), x.to(torch.float16))
    if mode == 3:
        return lo
    if mode == 4:
        return hi
    if mode == 5:
        return torch.where(x > 0, lo, hi)
    return odd_neighbour(lo, hi, (lo.view(torch.int16) & 1) == 1, exact)


def round_to_int(x: torch.Tensor, mode: int) -> torch.Tensor:
    """pto-isa's TCVT to an integer: CAST_NONE truncates, CAST_ODD is nearest with ties to the odd integer."""
    x = x.double()
    away = torch.sign(x) * torch.floor(torch.abs(x) + 0.5)
    floor, ceil = torch.floor(x), torch.ceil(x)
    fraction = x - floor
    tie_to_odd = torch.where(torch.remainder(floor, 2) == 1, floor, floor + 1)
    nearest_odd = torch.where(fraction > 0.5, floor + 1, torch.where(fraction < 0.5, floor, tie_to_odd))
    by_mode = {0: torch.trunc(x), 1: torch.round(x), 2: away, 3: floor, 4: ceil, 5: torch.trunc(x), 6: nearest_odd}
    return by_mode[mode].to(torch.int64)


def rounding_input(dt: str, gen: torch.Generator) -> torch.Tensor:
    """FP32 values with many ties: halves of integers, and FP32 values halfway between two FP16s."""
    x = cast_input(dt, gen).float()
    halfway = (torch.randint(-2048, 2048, (R, C), generator=gen).float() * 2 + 1) / 8  # k/4 + 1/8 around 256
    return torch.where(torch.rand((R, C), generator=gen) < 0.3, 256 + halfway, x)


CAST_MODES = Family("cast_modes", {"a": Input((R, C), rounding_input)}, tuple(
    Op(f"{dst.lower()}_mode{mode}", f"pl.tile.cast(ta, target_type=pl.{dst}, mode={mode})",
       (lambda a, dt, m=mode: round_to_int(a, m)) if dst == "INT32" else (lambda a, dt, m=mode: round_to_fp16(a, m)),
       out_dtype=dst)
    for dst in ("INT32", "FP16") for mode in range(7)), ("FP32",))


def distinct_values(dt: str, gen: torch.Generator) -> torch.Tensor:
    """Values distinct along every row and every column, so arg reductions have one answer."""
    rows, cols = torch.arange(R)[:, None], torch.arange(C)[None, :]
    x = (cols + 7 * rows) % C - (C // 2)  # 7 and 32 are coprime: distinct in each column too
    x = x[torch.randperm(R, generator=gen)][:, torch.randperm(C, generator=gen)]
    if is_float(dt):
        return (x / 4).to(TORCH_DTYPES[dt])
    return (x if is_signed(dt) else x + C // 2).to(TORCH_DTYPES[dt])


def product_values(dt: str, gen: torch.Generator) -> torch.Tensor:
    if is_float(dt):
        sign = torch.where(torch.rand((R, C), generator=gen) < 0.2, -1.0, 1.0)
        return (sign * (0.8 + 0.4 * torch.rand((R, C), generator=gen))).to(TORCH_DTYPES[dt])
    choices = torch.tensor([-1, 1, 2, 1] if is_signed(dt) else [1, 2, 3, 1])
    return choices[torch.randint(0, 4, (R, C), generator=gen)].to(TORCH_DTYPES[dt])


FP_SUM = {"FP32": 1e-5, "FP16": 2e-3, "BF16": 1e-2}
ROW, COL = (R, 1), (1, C)


def stepwise(x: torch.Tensor, dim: int, combine: Callable[[torch.Tensor, torch.Tensor], torch.Tensor],
             dt: str) -> torch.Tensor:
    """Reduce along `dim` one element at a time, rounding to dtype `dt` after every step, as the ISA keeps
    products and column sums (pto-isa's CPU simulation, pto/cpu/TRowProd.hpp, TColSum.hpp); each step is exact
    in double before it rounds."""
    acc = x.narrow(dim, 0, 1)
    for i in range(1, x.shape[dim]):
        acc = combine(acc.double(), x.narrow(dim, i, 1).double()).to(TORCH_DTYPES[dt]).to(x.dtype)
    return acc


def product(dim: int) -> Callable[..., torch.Tensor]:
    return lambda a, p, dt: stepwise(p, dim, torch.mul, dt) if p.is_floating_point() else p.prod(dim, keepdim=True)

REDUCE = Family("reduce", {"a": Input((R, C), distinct_values), "p": Input((R, C), product_values)}, (
    Op("row_sum", "pl.tile.row_sum(ta, tmp)", lambda a, p, dt: a.sum(1, keepdim=True), ROW, rtol=FP_SUM,
       dtypes=ROW_SUM_DTYPES),
    Op("row_max", "pl.tile.row_max(ta, tmp)", lambda a, p, dt: a.amax(1, keepdim=True), ROW),
    Op("row_min", "pl.tile.row_min(ta, tmp)", lambda a, p, dt: a.amin(1, keepdim=True), ROW),
    Op("row_prod", "pl.tile.row_prod(tp, tmp)", product(1), ROW),
    Op("row_argmax", "pl.tile.row_argmax(ta, tmp)", lambda a, p, dt: a.argmax(1, keepdim=True), ROW, "INT32"),
    Op("row_argmin", "pl.tile.row_argmin(ta, tmp)", lambda a, p, dt: a.argmin(1, keepdim=True), ROW, "INT32"),
    Op("col_sum", "pl.tile.col_sum(ta)", lambda a, p, dt: stepwise(a, 0, torch.add, dt), COL, dtypes=FLOATS),
    Op("col_sum_tree", "pl.tile.col_sum(ta, tmp)", lambda a, p, dt: stepwise(a, 0, torch.add, dt), COL,
       dtypes=FLOATS),
    Op("col_max", "pl.tile.col_max(ta)", lambda a, p, dt: a.amax(0, keepdim=True), COL, dtypes=COL_MAX_DTYPES),
    Op("col_min", "pl.tile.col_min(ta)", lambda a, p, dt: a.amin(0, keepdim=True), COL),
    Op("col_prod", "pl.tile.col_prod(tp)", product(0), COL),
    Op("col_argmax", "pl.tile.col_argmax(ta, tmp)", lambda a, p, dt: a.argmax(0, keepdim=True), COL, "INT32"),
    Op("col_argmin", "pl.tile.col_argmin(ta, tmp)", lambda a, p, dt: a.argmin(0, keepdim=True), COL, "INT32"),
), NUMERIC, setup=BINARY.setup)

EXPAND_OPS = {"add": lambda x, v, dt: x + v, "sub": lambda x, v, dt: x - v, "mul": lambda x, v, dt: x * v,
              "div": lambda x, v, dt: x / v if x.is_floating_point() else trunc_div(x, v),
              "max": lambda x, v, dt: torch.maximum(x, v), "min": lambda x, v, dt: torch.minimum(x, v),
              # The EXPDIF instructions subtract in the tile's dtype, then take the exp (docs/isa.md).
              "expdif": lambda x, v, dt: torch.exp(to_dtype(x - v, dt).to(x.dtype))}


def expand_ops() -> tuple[Op, ...]:
    ops = [Op("row_expand", "pl.tile.row_expand(ta, tr)", lambda a, r, c, dt: r.expand(R, C), dtypes=EXPAND_DTYPES),
           Op("col_expand", "pl.tile.col_expand(ta, tc)", lambda a, r, c, dt: c.expand(R, C), dtypes=EXPAND_DTYPES)]
    for name, fn in EXPAND_OPS.items():
        tol = FP_TRANSCENDENTAL if name == "expdif" else FP_ROUNDED if name == "div" else {}
        only = EXPAND_FLOAT_DTYPES if name in ("div", "expdif") else EXPAND_ARITHMETIC_DTYPES
        ops.append(Op(f"row_expand_{name}", f"pl.tile.row_expand_{name}(ta, tr)",
                      lambda a, r, c, dt, fn=fn: fn(a, r, dt), rtol=tol, dtypes=only))
        ops.append(Op(f"col_expand_{name}", f"pl.tile.col_expand_{name}(ta, tc)",
                      lambda a, r, c, dt, fn=fn: fn(a, c, dt), rtol=tol, dtypes=only))
    return tuple(ops)


EXPAND = Family("expand", {"a": Input((R, C), lambda dt, g: small_values(dt, (R, C), g)),
                           "r": Input(ROW, lambda dt, g: nonzero_values(dt, ROW, g)),
                           "c": Input(COL, lambda dt, g: nonzero_values(dt, COL, g))}, expand_ops(), NUMERIC)


def assembled(b: torch.Tensor) -> torch.Tensor:
    canvas = torch.zeros((R, C), dtype=b.dtype)
    canvas[6:10, 0:16] = b[0:4, 0:16]
    return canvas


def written(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    b = b.clone()
    b[2, 7] = a[3, 5]
    return b


def valid_part(a: torch.Tensor) -> torch.Tensor:
    out = torch.full_like(a, SENTINEL)
    out[:8, :16] = a[:8, :16]
    return out


MOVE = Family("move", {"a": Input((R, C), lambda dt, g: random_values(dt, (R, C), g)),
                       "b": Input((R, C), lambda dt, g: random_values(dt, (R, C), g))}, (
    Op("transpose", "pl.tile.transpose(ta, 0, 1)", lambda a, b, dt: a.T, (C, R)),
    Op("concat", "pl.tile.concat(ta, tb)", lambda a, b, dt: torch.cat([a, b], 1), (R, 2 * C),
       dtypes=CONCAT_DTYPES),
    Op("extract", "pl.tile.extract(ta, 4, 8, [8, 16], target_memory=pl.Mem.Vec)",
       lambda a, b, dt: a[4:12, 8:24], (8, 16)),
    Op("slice", "pl.tile.slice(ta, [8, 16], [8, 0])", lambda a, b, dt: a[8:16, 0:16], (8, 16)),
    Op("reshape", "pl.tile.reshape(ta, [8, 64])", lambda a, b, dt: a.reshape(8, 64), (8, 64)),
    Op("set_validshape", "pl.tile.set_validshape(ta, 8, 16)", lambda a, b, dt: valid_part(a)),
    Op("move", "pl.tile.move(ta, target_memory=pl.Mem.Vec)", lambda a, b, dt: a),
    Op("full", "pl.tile.full([16, 32], {s}, dtype=pl.{dt})",
       lambda a, b, dt: torch.full((R, C), scalar_value(dt))),
    Op("expands", "pl.tile.expands(ta, {s})", lambda a, b, dt: torch.full((R, C), scalar_value(dt))),
    Op("assemble", "pl.tile.assemble(canvas, piece, [6, 0])", lambda a, b, dt: assembled(b)),
    Op("write", "pl.tile.write(tb, [2, 7], v)", lambda a, b, dt: written(a, b)),
), ALL, setup=("canvas = pl.tile.full([16, 32], {zero}, dtype=pl.{dt})", "piece = pl.load(b, [0, 0], [4, 16])",
               "v = pl.tile.read(ta, [3, 5])"))


def padded(a: torch.Tensor, dt: str, pad: str) -> torch.Tensor:
    if pad == "zero":
        value = 0
    elif is_float(dt):
        value = math.inf if pad == "max" else -math.inf
    else:
        value = int_range(dt)[1 if pad == "max" else 0]
    out = torch.full((R, C), value, dtype=a.dtype)
    out[:, :a.shape[1]] = a
    return out


def fillpad_family(cols: int) -> Family:
    """The same kernel for every `cols`: N is dynamic, so the valid shape is read at run time."""
    return Family(f"fillpad{cols}", {
        "a": Input((R, cols), lambda dt, g: random_values(dt, (R, cols), g), annotation=("16", "N"), tile=(R, C),
                   load_args=", valid_shape=[16, pl.tensor.dim(a, 1)]"),
    }, tuple(Op(f"pad_{pad}", f"pl.tile.fillpad(ta, pad_value=pl.PadValue.{pad})",
                lambda a, dt, pad=pad: padded(a, dt, pad)) for pad in ("zero", "max", "min")),
        FILLPAD_DTYPES, header=('N = pl.dynamic("N")',), kernel="fillpad")


FILLPAD_FAMILIES = (fillpad_family(20), fillpad_family(7))

MATMUL_DTYPES = {"FP16": "FP32", "BF16": "FP32", "FP32": "FP32", "INT8": "INT32"}  # operand -> accumulator


def matmul_source(dt: str) -> str:
    acc = MATMUL_DTYPES[dt]
    return f"""
@pl.jit
def matmul_{dt.lower()}(a: pl.Tensor[[16, 32], pl.{dt}], b: pl.Tensor[[32, 32], pl.{dt}],
                        a2: pl.Tensor[[16, 32], pl.{dt}], b2: pl.Tensor[[32, 32], pl.{dt}],
                        bias: pl.Tensor[[1, 32], pl.{acc}], out_matmul: pl.Out[pl.Tensor[[16, 32], pl.{acc}]],
                        out_matmul_acc: pl.Out[pl.Tensor[[16, 32], pl.{acc}]],
                        out_matmul_bias: pl.Out[pl.Tensor[[16, 32], pl.{acc}]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        left = pl.move(pl.load(a, [0, 0], [16, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        right = pl.move(pl.load(b, [0, 0], [32, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        left2 = pl.move(pl.load(a2, [0, 0], [16, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Left)
        right2 = pl.move(pl.load(b2, [0, 0], [32, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Right)
        tbias = pl.move(pl.load(bias, [0, 0], [1, 32], target_memory=pl.Mem.Mat), target_memory=pl.Mem.Bias)
        product = pl.tile.matmul(left, right)
        pl.store(product, [0, 0], out_matmul)
        pl.store(pl.tile.matmul_acc(product, left2, right2), [0, 0], out_matmul_acc)
        pl.store(pl.tile.matmul_bias(left, right, tbias), [0, 0], out_matmul_bias)
    return out_matmul, out_matmul_acc, out_matmul_bias
"""


MATMUL_SOURCES = [matmul_source(dt) for dt in MATMUL_DTYPES]


def matmul_operand(dt: str, shape: tuple[int, ...], gen: torch.Generator) -> torch.Tensor:
    if dt == "INT8":
        return torch.randint(-128, 128, shape, generator=gen).to(torch.int8)
    return torch.randn(shape, generator=gen).to(TORCH_DTYPES[dt])


@pytest.mark.parametrize("dt", list(MATMUL_DTYPES), ids=str.lower)
def test_matmul_matmul_acc_and_matmul_bias(kernels, dt):
    gen = make_gen("matmul", dt)
    acc = TORCH_DTYPES[MATMUL_DTYPES[dt]]
    a, b, a2, b2 = (matmul_operand(dt, shape, gen) for shape in ((16, 32), (32, 32), (16, 32), (32, 32)))
    bias = (torch.randint(-1000, 1000, (1, 32), generator=gen) if dt == "INT8" else torch.randn(1, 32, generator=gen))
    outs = [torch.zeros(16, 32, dtype=acc) for _ in range(3)]
    getattr(kernels, f"matmul_{dt.lower()}")(a, b, a2, b2, bias.to(acc), *outs, config=CONFIG)
    if dt == "INT8":
        product = a.long() @ b.long()
        expected = [product, product + a2.long() @ b2.long(), product + bias.long()]
        for got, want in zip(outs, expected):
            assert torch.equal(got.long(), want)
        return
    product = a.double() @ b.double()
    expected = [product, product + a2.double() @ b2.double(), product + bias.double()]
    for got, want in zip(outs, expected):
        torch.testing.assert_close(got.double(), want, rtol=1e-5, atol=1e-4)


REFUSED = {
    "addc": ("pl.store(pl.tile.addc(ta, ta, ta), [0, 0], out)", "op 'tile.addc'"),
    "subc": ("pl.store(pl.tile.subc(ta, ta, ta), [0, 0], out)", "op 'tile.subc'"),
    "atomic_store": ("pl.store(ta, [0, 0], out, atomic=1)", "atomic=1 (atomic add) has no PTO-ISA store"),
}
REFUSED_SOURCES = [f"""
@pl.jit
def refused_{name}(a: pl.Tensor[[16, 32], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [16, 32])
        {statement}
    return out
""" for name, (statement, _) in REFUSED.items()]


@pytest.mark.parametrize("name", list(REFUSED))
def test_ops_without_an_isa_instruction_are_a_codegen_error(kernels, name):
    a = torch.zeros(16, 32)
    with pytest.raises(pypto.CodegenError, match="backend 'npu'") as info:
        getattr(kernels, f"refused_{name}")(a, a, config=CONFIG)
    assert REFUSED[name][1] in str(info.value)


UNCHAINED_CAST_SOURCE = """
@pl.jit
def cast_int8_to_bool(a: pl.Tensor[[16, 32], pl.INT8], out: pl.Out[pl.Tensor[[16, 32], pl.BOOL]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.tile.cast(pl.load(a, [0, 0], [16, 32]), target_type=pl.BOOL), [0, 0], out)
    return out
"""


def test_a_cast_no_chain_of_native_casts_reaches_is_refused_by_legalize_tile_cast(kernels):
    assert "BOOL" not in CHAINS["INT8"]
    with pytest.raises(pypto.InvalidValueError, match="no chain of its native casts"):
        kernels.cast_int8_to_bool(torch.zeros(16, 32, dtype=torch.int8), torch.zeros(16, 32, dtype=torch.bool),
                                  config=CONFIG)


def test_a_bf16_argument_runs_through_a_plain_call(kernels):
    a = torch.randn(16, 32).to(torch.bfloat16)
    out = torch.zeros(16, 32, dtype=torch.bfloat16)
    kernels.plain_bf16_copy(a, out, config=CONFIG)
    assert torch.equal(out, a)


PLAIN_BF16_SOURCE = """
@pl.jit
def plain_bf16_copy(a: pl.Tensor[[16, 32], pl.BF16], out: pl.Out[pl.Tensor[[16, 32], pl.BF16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.load(a, [0, 0], [16, 32]), [0, 0], out)
    return out
"""

VALID_SHAPE_FROM_THE_DIM_SOURCE = """
@pl.jit
def fillpad_valid_shape_n(a: pl.Tensor[[16, N], pl.FP32], out: pl.Out[pl.Tensor[[16, 32], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        pl.store(pl.tile.fillpad(pl.load(a, [0, 0], [16, 32], valid_shape=[16, N])), [0, 0], out)
    return out
"""


def test_a_valid_shape_may_name_the_dynamic_dim_itself(kernels):
    a, out = torch.randn(16, 20), torch.full((16, 32), 7.0)
    kernels.fillpad_valid_shape_n(a, out, config=CONFIG)
    assert torch.equal(out[:, :20], a) and (out[:, 20:] == 0).all()


EXTRA_SOURCES = [VALID_SHAPE_FROM_THE_DIM_SOURCE] + MATMUL_SOURCES + REFUSED_SOURCES + [UNCHAINED_CAST_SOURCE, PLAIN_BF16_SOURCE]


ELEMENTWISE_FAMILIES = (BINARY, SCALAR, UNARY_FLOAT, UNARY_SIGNED, BITWISE, COMPARE)
FAMILIES = ELEMENTWISE_FAMILIES + (CAST, CAST_MODES, REDUCE, EXPAND, MOVE) + FILLPAD_FAMILIES


# ----------------------------------------------------------------- running


@pytest.fixture(scope="session")
def kernels(tmp_path_factory):
    """The module of generated kernels, written once per session."""
    folder = tmp_path_factory.mktemp("op_kernels")
    header = dict.fromkeys(line for f in FAMILIES for line in f.header)
    sources = ["import pypto.language as pl\n" + "".join(line + "\n" for line in header)]
    written = set()
    for family in FAMILIES:
        for dt in family.dtypes:
            if family.kernel_name(dt) not in written:
                written.add(family.kernel_name(dt))
                sources.append(family.source(dt))
    sources += EXTRA_SOURCES
    path = folder / "op_kernels.py"
    path.write_text("\n\n".join(sources))
    spec = importlib.util.spec_from_file_location("op_kernels", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session", autouse=True)
def build_root(tmp_path_factory):
    """Compile output folders go to the session's tmp folder, not into the repository."""
    previous = os.environ.get("PYPTO_PROG_BUILD_DIR")
    os.environ["PYPTO_PROG_BUILD_DIR"] = str(tmp_path_factory.mktemp("build_output"))
    yield
    if previous is None:
        os.environ.pop("PYPTO_PROG_BUILD_DIR", None)
    else:
        os.environ["PYPTO_PROG_BUILD_DIR"] = previous


_RUNS: dict[tuple[str, str], tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]] | Exception] = {}


def run_family(kernels, family: Family, dt: str) -> tuple[dict[str, torch.Tensor], dict[str, torch.Tensor]]:
    """Runs a family's kernel for one dtype once; later tests of the family read the same outputs."""
    key = (family.name, dt)
    if key not in _RUNS:
        gen = make_gen(family.name, dt)
        inputs = {n: i.make(i.dtype or dt, gen) for n, i in family.inputs.items()}
        ops = family.ops_for(dt)
        outputs = {op.name: torch.full(op.shape, SENTINEL).to(TORCH_DTYPES[op.result_dtype(dt)]) for op in ops}
        try:
            getattr(kernels, family.kernel_name(dt))(*inputs.values(), *outputs.values(), config=CONFIG)
            _RUNS[key] = inputs, outputs
        except pypto.Error as error:  # every test of the family reports it, the kernel compiles once
            _RUNS[key] = error
    if isinstance(_RUNS[key], Exception):
        raise _RUNS[key]
    return _RUNS[key]


def assert_matches(actual: torch.Tensor, expected: torch.Tensor, rtol: float = 0.0) -> None:
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    if actual.is_floating_point():
        torch.testing.assert_close(actual.float(), expected.float(), rtol=rtol, atol=rtol, equal_nan=True)
    else:
        mismatch = actual.to(torch.int64) != expected.to(torch.int64)
        assert not mismatch.any(), (f"{int(mismatch.sum())} of {mismatch.numel()} elements differ; first at "
                                    f"{mismatch.nonzero()[0].tolist()}: got {actual[mismatch][:8].tolist()}, "
                                    f"expected {expected[mismatch][:8].tolist()}")


def check_op(kernels, family: Family, op: Op, dt: str) -> None:
    inputs, outputs = run_family(kernels, family, dt)
    expected = to_dtype(op.ref(*(wide(x) for x in inputs.values()), dt), op.result_dtype(dt))
    assert_matches(outputs[op.name], expected, op.rtol.get(dt, 0.0))


@pytest.mark.parametrize("family, op, dt", [c for f in ELEMENTWISE_FAMILIES for c in family_cases(f)])
def test_elementwise(kernels, family, op, dt):
    check_op(kernels, family, op, dt)


@pytest.mark.parametrize("family, op, dt", family_cases(CAST) + family_cases(CAST_MODES))
def test_cast(kernels, family, op, dt):
    check_op(kernels, family, op, dt)


@pytest.mark.parametrize("family, op, dt", family_cases(REDUCE) + family_cases(EXPAND))
def test_reduction_and_broadcast(kernels, family, op, dt):
    check_op(kernels, family, op, dt)


@pytest.mark.parametrize("family, op, dt", family_cases(MOVE))
def test_data_movement(kernels, family, op, dt):
    check_op(kernels, family, op, dt)


@pytest.mark.parametrize("family, op, dt", [c for f in FILLPAD_FAMILIES for c in family_cases(f)])
def test_fillpad_with_a_dynamic_valid_shape(kernels, family, op, dt):
    check_op(kernels, family, op, dt)


@pytest.mark.parametrize("expr, dt, instruction", [
    ("pl.tile.col_sum(t)", "INT32", "TCOLSUM takes FP16, BF16, FP32 tiles only, and this input is INT32"),
    ("pl.tile.row_sum(t, pl.tile.create([16, 32], dtype=pl.INT8))", "INT8",
     "TROWSUM takes FP16, BF16, FP32, INT16, INT32 tiles only, and this input is INT8"),
    ("pl.tile.col_max(t)", "INT32", "TCOLMAX takes INT8, UINT8, FP16, BF16, FP32 tiles only, and this input is INT32"),
    ("pl.tile.concat(pl.tile.slice(t, [16, 16], [0, 0]), pl.tile.slice(t, [16, 16], [0, 16]))", "INT64",
     "TCONCAT takes INT8, UINT8, INT16, UINT16, INT32, UINT32, FP16, BF16, FP32 tiles only, and this input is INT64"),
    ("pl.tile.row_expand(t, pl.tile.slice(t, [16, 1], [0, 0]))", "INT64",
     "TROWEXPAND takes INT8, UINT8, INT16, UINT16, INT32, UINT32, FP16, BF16, FP32 tiles only, and this input is INT64"),
    ("pl.tile.row_expand_add(t, pl.tile.slice(t, [16, 1], [0, 0]))", "UINT16",
     "TROWEXPANDADD takes INT16, INT32, FP16, FP32 tiles only, and this input is UINT16"),
    ("pl.tile.col_expand_div(t, pl.tile.slice(t, [1, 32], [0, 0]))", "BF16",
     "TCOLEXPANDDIV takes FP16, FP32 tiles only, and this input is BF16"),
    ("pl.tile.abs(t)", "INT64", "TABS takes INT8, INT16, INT32, FP16, BF16, FP32 tiles only, and this input is INT64"),
    ("pl.tile.fillpad(t, pad_value=pl.PadValue.max)", "INT64", "TFILLPAD takes BOOL, INT8, UINT8, INT16, UINT16, "
                                                                "INT32, UINT32, FP16, BF16, FP32 tiles only"),
    ("pl.tile.sel(pl.tile.cmp(t, t, cmp_type=2), t, t)", "INT16",
     "TCMP takes INT32, FP16, FP32 tiles only, and this input is INT16"),
    ("pl.tile.sel(pl.tile.cmps(t, 3, cmp_type=2), t, t)", "INT8",
     "TCMPS takes INT16, UINT16, INT32, FP16, FP32 tiles only, and this input is INT8"),
    ("pl.tile.sel(pl.tile.cmps(pl.tile.cast(t, target_type=pl.FP16), 3.0, cmp_type=2), t, t)", "INT8",
     "TSEL takes INT16, UINT16, FP16, BF16, INT32, UINT32, FP32 tiles only, and this input is INT8"),
])
def test_ops_pto_isa_lacks_for_a_dtype_name_the_instruction_and_the_fix(tmp_path, expr, dt, instruction):
    source = textwrap.dedent(f"""
        import pypto.language as pl

        @pl.jit
        def kernel(x: pl.Tensor[[16, 32], pl.{dt}], out: pl.Out[pl.Tensor[[16, 32], pl.{dt}]]):
            with pl.at(level=pl.Level.CORE_GROUP):
                t = pl.load(x, [0, 0], [16, 32])
                r = {expr}
                out = pl.store(r, [0, 0], out)
            return out
        """)
    path = tmp_path / "lacking.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("lacking", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    x = torch.zeros(16, 32, dtype=TORCH_DTYPES[dt])
    with pytest.raises(pypto.Error, match=re.escape(instruction)) as info:
        module.kernel(x, x.clone(), config=CONFIG)
    assert "cast it to one of them first (pl.cast)" in str(info.value)
    assert "lacking.py:8" in str(info.value)


@pl.jit
def tensor_compare(x: pl.Tensor[[16, 64], pl.FP32], y: pl.Tensor[[16, 64], pl.FP32],
                   lt: pl.Out[pl.Tensor[[16, 64], pl.FP32]], pos: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        lt = pl.assemble(lt, pl.tensor.cmp(x, y, cmp_type=2), [0, 0])
        pos = pl.assemble(pos, pl.tensor.cmp(x, 0.0, cmp_type=4), [0, 0])
    return lt, pos


def test_tensor_cmp_is_one_where_true_and_zero_elsewhere_in_the_compared_dtype():
    """tensor.cmp lowers to a packed TCMP / TCMPS mask that TSEL turns into ones and zeros."""
    gen = torch.Generator().manual_seed(3)
    x, y = torch.randn(16, 64, generator=gen), torch.randn(16, 64, generator=gen)
    x[0, :8] = 0.0
    lt, pos = tensor_compare(x, y, torch.full((16, 64), 7.0), torch.full((16, 64), 7.0), config=CONFIG)
    assert torch.equal(lt, (x < y).float())
    assert torch.equal(pos, (x > 0).float())
