# ---- PyPTO torch prelude: the semantics of the IR's ops on torch tensors ----
# Tensors (GM) are torch tensors, changed in place by stores and assembles as
# on the device. A tile is a Tile: its whole static block (`data`, in the
# tile's dtype), the extents of its valid region and its pad value. A tensor
# whose type has a smaller valid region (a TensorView's valid_shape) reaches
# the tensor ops as valid_view(tensor, valid, pad): a Tile over the tensor
# itself, so the op reads only the valid region and writes reach the tensor.
# Every op computes the destination's valid region; elements outside it get
# the pad value (PadValue null: they are unspecified on the device, here they
# keep what the computation gave). Arithmetic on FP16/BF16 is done in FP32 and
# rounded once per op; integer division and remainder never trap (x / 0 = 0,
# MIN / -1 = MIN, x % 0 = 0), as sdk/include/pypto/isa/instructions.h defines.
import argparse
import collections
import math
import struct
import sys
import threading
from dataclasses import dataclass

import numpy as np
import torch

DTYPES = {
    "BOOL": torch.bool, "INT8": torch.int8, "INT16": torch.int16, "INT32": torch.int32, "INT64": torch.int64,
    "INDEX": torch.int64, "UINT8": torch.uint8, "UINT16": torch.uint16, "UINT32": torch.uint32,
    "UINT64": torch.uint64, "FP16": torch.float16, "BF16": torch.bfloat16, "FP32": torch.float32,
    "FP64": torch.float64, "FP8E4M3FN": torch.float8_e4m3fn, "FP8E5M2": torch.float8_e5m2,
}
HALF_TYPES = (torch.float16, torch.bfloat16)
NARROW_FLOATS = (torch.float16, torch.bfloat16, torch.float8_e4m3fn, torch.float8_e5m2)


@dataclass
class TileSpec:
    """A tile result type: static shape, dtype, valid extents (one per dim) and pad value."""
    shape: list
    dtype: torch.dtype
    valid: list
    pad: str = "null"


@dataclass
class TensorSpec:
    """A tensor result type: shape, dtype and, for a view valid only in part, its valid extents and pad value."""
    shape: list
    dtype: torch.dtype
    valid: list = None
    pad: str = "null"


@dataclass
class Tile:
    data: torch.Tensor
    valid: list
    pad: str = "null"

    @property
    def dtype(self):
        return self.data.dtype

    def region(self):
        """The valid region of the data (a view)."""
        return self.data[tuple(slice(0, int(v)) for v in self.valid)]

    def __repr__(self):
        return f"Tile({list(self.data.shape)}, {self.data.dtype}, valid={self.valid}, pad={self.pad})"


class ModelError(RuntimeError):
    """An op met a case the script does not model (the message names the op)."""


# ---------------------------------------------------------------- dtypes and scalars

def compute_dtype(dtype):
    """The dtype the simulator computes in: FP32 for 16-bit floats, else the dtype itself."""
    return torch.float32 if dtype in NARROW_FLOATS else dtype


def computed(x):
    """A tile's or tensor's data in its compute dtype."""
    data = x.data if isinstance(x, Tile) else x
    return data.to(compute_dtype(data.dtype))


def scalar_tensor(value, dtype):
    """A scalar operand as the simulator sees it: converted to the compute dtype of `dtype`."""
    return torch.tensor(value, dtype=compute_dtype(dtype))


def wrap_int(value, bits, signed):
    value &= (1 << bits) - 1
    return value - (1 << bits) if signed and value >= 1 << (bits - 1) else value


def f32(value):
    """A Python float rounded to FP32 (scalar FP32 arithmetic of the host code)."""
    return struct.unpack("f", struct.pack("f", value))[0] if math.isfinite(value) else value


def scalar(value, dtype_name):
    """A scalar result in its IR dtype: integers wrap to their width, floats round to it."""
    if dtype_name == "BOOL":
        return bool(value)
    if dtype_name in ("INDEX", "INT64"):
        return wrap_int(int(value), 64, True)
    if dtype_name.startswith("INT") or dtype_name.startswith("UINT"):
        bits = int(dtype_name.lstrip("UINT"))
        return wrap_int(int(value), bits, not dtype_name.startswith("U"))
    if dtype_name == "FP32":
        return f32(float(value))
    if dtype_name in ("FP16", "BF16"):
        return torch.tensor(float(value)).to(DTYPES[dtype_name]).item()
    return float(value)


def cast_scalar(value, dtype_name):
    """A scalar cast: float -> integer truncates (fptosi), integers wrap, -> BOOL is x != 0."""
    if dtype_name == "BOOL":
        return value != 0
    if isinstance(value, float) and not (dtype_name.startswith("FP") or dtype_name == "BF16"):
        value = math.trunc(value)
    return scalar(value, dtype_name)


def floordiv(a, b):
    return a // b if isinstance(a, int) and isinstance(b, int) else float(math.floor(a / b))


def floormod(a, b):
    return a % b if isinstance(a, int) and isinstance(b, int) else a - math.floor(a / b) * b


# ---------------------------------------------------------------- pad and results

def pad_fill(dtype, pad):
    """The value PadValue `pad` writes in `dtype`; None for null."""
    if pad == "null":
        return None
    if pad == "zero":
        return 0
    if dtype.is_floating_point:
        return math.inf if pad == "max" else -math.inf
    if dtype == torch.bool:
        return pad == "max"
    info = torch.iinfo(dtype)
    return info.max if pad == "max" else info.min


def apply_pad(data, valid, pad):
    """Writes the pad value outside the valid region `valid` of `data` (in place)."""
    fill = pad_fill(data.dtype, pad)
    if fill is None:
        return data
    inside = torch.zeros(data.shape, dtype=torch.bool)
    inside[tuple(slice(0, int(v)) for v in valid)] = True
    data.masked_fill_(~inside, fill)
    return data


def fresh(spec):
    """A new block for a tile of `spec`: zeros (the device leaves a new buffer unspecified)."""
    return torch.zeros([int(d) for d in spec.shape], dtype=spec.dtype)


def result(spec, values):
    """The tile of `spec` holding `values` (broadcast to its shape, rounded to its dtype), padded."""
    data = fresh(spec)
    data.copy_(torch.broadcast_to(values, data.shape).to(spec.dtype))
    return Tile(apply_pad(data, spec.valid, spec.pad), list(spec.valid), spec.pad)


def result_in_region(spec, values, region):
    """The tile of `spec` with `values` written at the top-left corner (extents `region`), padded."""
    data = fresh(spec)
    data[tuple(slice(0, int(v)) for v in region)] = values.to(spec.dtype)
    return Tile(apply_pad(data, spec.valid, spec.pad), list(spec.valid), spec.pad)


# ---------------------------------------------------------------- rounding

def round_to_integral(x, mode):
    """Rounds a float64 tensor to integral values under a tile.cast mode (0..6), as TCVT to an integer does:
    0 (none) truncates, 6 (odd) is nearest with ties to the odd integer."""
    if mode == 0:
        return torch.trunc(x)
    if mode == 1:
        return torch.round(x)
    if mode == 2:
        return torch.sign(x) * torch.floor(torch.abs(x) + 0.5)
    if mode == 3:
        return torch.floor(x)
    if mode == 4:
        return torch.ceil(x)
    if mode == 5:
        return torch.trunc(x)
    if mode == 6:
        below = torch.floor(x)
        fraction = x - below
        tie = torch.where(torch.remainder(below, 2.0) != 0, below, below + 1)
        return torch.where(fraction > 0.5, below + 1, torch.where(fraction < 0.5, below, tie))
    raise ModelError(f"tile.cast: unknown round mode {mode}; modes are 0..6")


def step16(bits, up):
    """The next 16-bit float toward +inf (up) or -inf, on sign-magnitude bit patterns (int32 tensor)."""
    negative = (bits & 0x8000) != 0
    if up:
        return torch.where(bits == 0x8000, 1, torch.where(negative, bits - 1, bits + 1))
    return torch.where(bits == 0, 0x8001, torch.where(negative, bits + 1, bits - 1))


def from_bits16(bits, dtype):
    return bits.to(torch.int16).view(dtype)


def narrow_float(x, dtype, mode):
    """float32 -> FP16/BF16 under a round mode: the nearest-even result or the neighbour the mode picks."""
    nearest = x.to(dtype)
    if mode in (0, 1):
        return nearest
    back = nearest.to(torch.float32)
    bits = nearest.view(torch.int16).to(torch.int32) & 0xFFFF
    above = back > x
    lower = torch.where(above, step16(bits, up=False), bits)
    upper = torch.where(above, bits, step16(bits, up=True))
    if mode == 3:
        pick = lower
    elif mode == 4:
        pick = upper
    elif mode == 5:
        pick = torch.where(x > 0, lower, upper)
    elif mode == 2:
        lo = from_bits16(lower, dtype).to(torch.float64)
        hi = from_bits16(upper, dtype).to(torch.float64)
        dx = x.to(torch.float64)
        tie = (dx - lo) == (hi - dx)
        pick = torch.where(tie, torch.where(x > 0, upper, lower), bits)
    elif mode == 6:
        pick = torch.where((lower & 1) != 0, lower, upper)
    else:
        raise ModelError(f"tile.cast: unknown round mode {mode}; modes are 0..6")
    exact_or_nan = (back == x) | torch.isnan(x)
    return torch.where(exact_or_nan, nearest, from_bits16(pick, dtype))


def convert(data, dtype, mode):
    """TCVT of a whole block: see docs/isa.md "Conversion"."""
    source = data.dtype
    if source == dtype:
        return data.clone()
    if dtype == torch.bool:
        return computed(data) != 0
    if dtype in HALF_TYPES:
        as_float = computed(data).to(torch.float32)
        return narrow_float(as_float, dtype, mode if source.is_floating_point else 1)
    if dtype.is_floating_point:
        return computed(data).to(dtype)
    if source.is_floating_point:
        info = torch.iinfo(dtype)
        rounded = round_to_integral(computed(data).to(torch.float64), mode)
        rounded = torch.nan_to_num(rounded, nan=0.0).clamp(info.min, info.max)
        return saturated_to_int(rounded, dtype)
    return data.to(dtype)


def saturated_to_int(rounded, dtype):
    """float64 integral values already clamped to `dtype`'s range -> `dtype` (64-bit ends exact)."""
    if dtype in (torch.int64, torch.uint64):
        info = torch.iinfo(dtype)
        top = rounded >= float(info.max)
        values = torch.where(top, 0.0, rounded).to(dtype)
        return torch.where(top, torch.tensor(info.max, dtype=dtype), values)
    return rounded.to(dtype)


# ---------------------------------------------------------------- integer-safe arithmetic

def divide(a, b):
    """TDIV: float division, or integer division truncating toward zero with x / 0 = 0 and MIN / -1 = MIN."""
    if a.dtype.is_floating_point:
        return a / b
    a, b = torch.broadcast_tensors(a, b)
    safe = torch.where((b == 0) | (b == -1), torch.ones_like(b), b)
    quotient = torch.div(a, safe, rounding_mode="trunc")
    quotient = torch.where(b == -1, -a, quotient) if a.dtype.is_signed else quotient
    return torch.where(b == 0, torch.zeros_like(a), quotient)


def fmod(a, b):
    """TFMOD: remainder with the dividend's sign; integer x % 0 and x % -1 are 0."""
    if a.dtype.is_floating_point:
        return torch.fmod(a, b)
    a, b = torch.broadcast_tensors(a, b)
    safe = torch.where((b == 0) | (b == -1), torch.ones_like(b), b)
    return torch.where((b == 0) | (b == -1), torch.zeros_like(a), torch.fmod(a, safe))


def remainder(a, b):
    """TREM: remainder with the divisor's sign (torch.remainder); integer x % 0 is 0."""
    r = fmod(a, b)
    a, b = torch.broadcast_tensors(a, b)
    if not a.dtype.is_floating_point and not a.dtype.is_signed:
        return r
    adjust = (r != 0) & ((r < 0) != (b < 0))
    return torch.where(adjust, r + b, r)


def shift(a, count, left):
    """TSHL/TSHR: counts outside [0, bits) give 0, or the sign fill for a signed right shift."""
    bits = a.element_size() * 8
    count = torch.broadcast_to(torch.as_tensor(count), a.shape).to(torch.int64)
    in_range = (count >= 0) & (count < bits)
    safe = torch.where(in_range, count, torch.zeros_like(count)).to(a.dtype)
    shifted = torch.bitwise_left_shift(a, safe) if left else torch.bitwise_right_shift(a, safe)
    if left or not a.dtype.is_signed:
        overflow = torch.zeros_like(a)
    else:
        overflow = torch.where(a < 0, torch.full_like(a, -1), torch.zeros_like(a))
    return torch.where(in_range, shifted, overflow)


# ---------------------------------------------------------------- element-wise tile ops

def binary(fn):
    def op(out, lhs, rhs, *_scratch, **_options):
        return result(out, fn(computed(lhs), computed(rhs)))
    return op


def with_scalar(fn):
    def op(out, lhs, rhs, *_scratch, **_options):
        return result(out, fn(computed(lhs), scalar_tensor(rhs, lhs.dtype)))
    return op


def unary(fn):
    def op(out, x, *_scratch, **_options):
        return result(out, fn(computed(x)))
    return op


tile_add = binary(torch.add)
tile_sub = binary(torch.sub)
tile_mul = binary(torch.mul)
tile_div = binary(divide)
tile_maximum = binary(torch.maximum)
tile_minimum = binary(torch.minimum)
tile_fmod = binary(fmod)
tile_rem = binary(remainder)
tile_and = binary(torch.bitwise_and)
tile_or = binary(torch.bitwise_or)
tile_xor = binary(torch.bitwise_xor)
tile_shl = binary(lambda a, b: shift(a, b, left=True))
tile_shr = binary(lambda a, b: shift(a, b, left=False))
tile_adds = with_scalar(torch.add)
tile_subs = with_scalar(torch.sub)
tile_muls = with_scalar(torch.mul)
tile_divs = with_scalar(divide)
tile_maximums = with_scalar(torch.maximum)
tile_minimums = with_scalar(torch.minimum)
tile_fmods = with_scalar(fmod)
tile_rems = with_scalar(remainder)
tile_ands = with_scalar(torch.bitwise_and)
tile_ors = with_scalar(torch.bitwise_or)
tile_xors = with_scalar(torch.bitwise_xor)
tile_shls = with_scalar(lambda a, s: shift(a, s, left=True))
tile_shrs = with_scalar(lambda a, s: shift(a, s, left=False))


def in_double(f):
    """f computed in float64 and rounded once to the compute dtype, as the ISA computes TEXP, TLOG, TSQRT and
    TRSQRT (torch's own float32 sqrt can be one unit off the correctly rounded result)."""
    return lambda x: f(x.double()).to(x.dtype)


tile_exp = unary(in_double(torch.exp))
tile_log = unary(in_double(torch.log))
tile_sqrt = unary(in_double(torch.sqrt))
tile_rsqrt = unary(in_double(torch.rsqrt))
tile_recip = unary(lambda x: divide(torch.ones_like(x), x))
tile_sin = unary(torch.sin)
tile_cos = unary(torch.cos)
tile_abs = unary(torch.abs)
tile_neg = unary(torch.neg)
tile_not = unary(torch.bitwise_not)
tile_relu = unary(lambda x: torch.where(x > 0, x, torch.zeros_like(x)))


def tile_addc(out, lhs, rhs, rhs2):
    return result(out, computed(lhs) + computed(rhs) + computed(rhs2))


def tile_subc(out, lhs, rhs, rhs2):
    return result(out, computed(lhs) - computed(rhs) - computed(rhs2))


def tile_lrelu(out, x, slope):
    data = computed(x)
    return result(out, torch.where(data > 0, data, data * scalar_tensor(slope, x.dtype)))


CMP_MODES = {0: torch.eq, 1: torch.ne, 2: torch.lt, 3: torch.le, 4: torch.gt, 5: torch.ge}


def compare(mode):
    if mode not in CMP_MODES:
        raise ModelError(f"tile.cmp: unknown cmp_type {mode}; 0 EQ, 1 NE, 2 LT, 3 LE, 4 GT, 5 GE")
    return CMP_MODES[mode]


def compared(lhs, rhs, cmp_type):
    """lhs <cmp_type> rhs (rhs a tile or a scalar) as bools over lhs's whole block."""
    rhs_value = computed(rhs) if isinstance(rhs, Tile) else scalar_tensor(rhs, lhs.dtype)
    return compare(cmp_type)(computed(lhs), rhs_value)


def packed_mask(spec, bits, valid):
    """The mask tile TCMP writes: bit c % 8 of byte c // 8 of a row is bits[..., c] inside `valid`, zero elsewhere."""
    region = bits[tuple(slice(0, int(v)) for v in valid)].to(torch.int64)
    cols = region.shape[-1]
    padded = torch.zeros(region.shape[:-1] + (-(-cols // 8) * 8,), dtype=torch.int64)
    padded[..., :cols] = region
    packed = (padded.reshape(*padded.shape[:-1], -1, 8) << torch.arange(8)).sum(-1).to(torch.uint8)
    data = fresh(spec)
    data[tuple(slice(0, n) for n in packed.shape)] = packed
    return Tile(data, list(spec.valid), spec.pad)


def mask_bits(mask, cols):
    """The first `cols` bits of each row of a packed mask tile, as bools."""
    data = mask.data.to(torch.int64)
    bits = (data.unsqueeze(-1) >> torch.arange(8)) & 1
    return bits.reshape(*data.shape[:-1], -1)[..., :cols] != 0


def tile_cmp(out, lhs, rhs, cmp_type=0):
    return packed_mask(out, compared(lhs, rhs, cmp_type), lhs.valid)


tile_cmps = tile_cmp


def tile_sel(out, mask, lhs, rhs, tmp=None):
    return result(out, torch.where(mask_bits(mask, int(out.shape[-1])), computed(lhs), computed(rhs)))


def tensor_cmp(out, lhs, rhs, cmp_type=0):
    return result(tile_spec_of(out), compared(as_tile(lhs), as_tile(rhs), cmp_type)).data


def tile_cast(out, x, target_type=None, mode=2):
    return result(out, convert(x.data, out.dtype, mode))


# ---------------------------------------------------------------- reductions and broadcasts

def in_order(region, dim, combine, step_dtype):
    """`region` reduced along `dim` one element at a time, in order, each step rounded to `step_dtype`: the ISA's
    order and rounding (pto-isa's CPU simulation, pto/cpu/TRowSum.hpp, TColSum.hpp, TRowProd.hpp, TColProd.hpp)."""
    acc = region.select(dim, 0).to(step_dtype).to(region.dtype)
    for i in range(1, region.shape[dim]):
        acc = combine(acc, region.select(dim, i)).to(step_dtype).to(region.dtype)
    return acc.unsqueeze(dim)


def reduced(x, dim, how, out_dtype):
    """The reduction of x's valid region along `dim` into `out_dtype`, accumulated as the simulator does: float
    sums and products in order; a row sum kept in float, a column sum and every product rounded to `out_dtype`
    after each step; integers in int64 (they wrap alike)."""
    region = computed(x.region())
    if how in ("sum", "prod") and not region.dtype.is_floating_point:
        wide = region.to(torch.int64)
        return wide.sum(dim=dim, keepdim=True) if how == "sum" else wide.prod(dim=dim, keepdim=True)
    if how == "sum":
        return in_order(region, dim, torch.add, torch.float32 if dim == 1 else out_dtype)
    if how == "prod":
        return in_order(region, dim, torch.mul, out_dtype)
    if how == "max":
        return region.amax(dim=dim, keepdim=True)
    if how == "min":
        return region.amin(dim=dim, keepdim=True)
    if how == "argmax":
        return region.argmax(dim=dim, keepdim=True)
    return region.argmin(dim=dim, keepdim=True)


def row_reduction(how):
    def op(out, x, *_scratch):
        values = reduced(x, 1, how, out.dtype)
        return result_in_region(out, values, [values.shape[0], 1])
    return op


def col_reduction(how):
    def op(out, x, *_scratch):
        values = reduced(x, 0, how, out.dtype)
        return result_in_region(out, values, [1, values.shape[1]])
    return op


tile_row_sum = row_reduction("sum")
tile_row_max = row_reduction("max")
tile_row_min = row_reduction("min")
tile_row_prod = row_reduction("prod")
tile_row_argmax = row_reduction("argmax")
tile_row_argmin = row_reduction("argmin")
tile_col_sum = col_reduction("sum")
tile_col_max = col_reduction("max")
tile_col_min = col_reduction("min")
tile_col_prod = col_reduction("prod")
tile_col_argmax = col_reduction("argmax")
tile_col_argmin = col_reduction("argmin")

EXPAND_OPS = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": divide, "max": torch.maximum,
    "min": torch.minimum,
}


def row_vector(vec):
    return computed(vec)[:, :1]


def col_vector(vec):
    return computed(vec)[:1, :]


def expand_with(name, vector_of):
    fn = EXPAND_OPS[name]

    def op(out, x, vec):
        return result(out, fn(computed(x), vector_of(vec)))
    return op


def expand_exp_of_difference(vector_of):
    """TROWEXPANDEXPDIF / TCOLEXPANDEXPDIF: they subtract in the tile's dtype, then take the exp."""
    def op(out, x, vec):
        difference = (computed(x) - vector_of(vec)).to(out.dtype)
        return result(out, in_double(torch.exp)(computed(difference)))
    return op


tile_row_expand_add = expand_with("add", row_vector)
tile_row_expand_sub = expand_with("sub", row_vector)
tile_row_expand_mul = expand_with("mul", row_vector)
tile_row_expand_div = expand_with("div", row_vector)
tile_row_expand_max = expand_with("max", row_vector)
tile_row_expand_min = expand_with("min", row_vector)
tile_row_expand_expdif = expand_exp_of_difference(row_vector)
tile_col_expand_add = expand_with("add", col_vector)
tile_col_expand_sub = expand_with("sub", col_vector)
tile_col_expand_mul = expand_with("mul", col_vector)
tile_col_expand_div = expand_with("div", col_vector)
tile_col_expand_max = expand_with("max", col_vector)
tile_col_expand_min = expand_with("min", col_vector)
tile_col_expand_expdif = expand_exp_of_difference(col_vector)


def tile_row_expand(out, target, row_vec):
    return result(out, row_vector(row_vec))


def tile_col_expand(out, target, col_vec):
    return result(out, col_vector(col_vec))


def tile_expands(out, target, value):
    return result(out, scalar_tensor(value, out.dtype))


# ---------------------------------------------------------------- matmul

def accumulator_dtype(dtype):
    return torch.int32 if dtype in (torch.int8, torch.uint8) else torch.float32


def product(lhs, rhs, m, n):
    """lhs[:m, :K] @ rhs[:K, :n] with K = lhs's valid columns, summed as the ISA sums it (pto-isa's CPU simulation,
    pto/cpu/TMatmul.hpp): from zero in order of k, each step one fused multiply-add in FP32 (a float product is
    exact in float64, so a step there rounds once); INT32 for 8-bit integers."""
    k = int(lhs.valid[1])
    a, b = lhs.data[:m, :k], rhs.data[:k, :n]
    if accumulator_dtype(lhs.dtype) == torch.int32:
        return (a.to(torch.int64) @ b.to(torch.int64)).to(torch.int32)
    a, b = a.to(torch.float32).double(), b.to(torch.float32).double()
    total = torch.zeros(m, n, dtype=torch.float32)
    for i in range(k):
        total = (total.double() + a[:, i:i + 1] * b[i:i + 1, :]).to(torch.float32)
    return total


def tile_matmul(out, lhs, rhs, out_dtype=None):
    m, n = (int(v) for v in out.valid)
    return result_in_region(out, product(lhs, rhs, m, n), [m, n])


def tile_matmul_acc(out, acc, lhs, rhs, init_cond=None):
    m, n = (int(v) for v in out.valid)
    total = product(lhs, rhs, m, n)
    if not init_cond:
        total = acc.data[:m, :n] + total
    data = acc.data.clone().to(out.dtype)
    data[:m, :n] = total.to(out.dtype)
    return Tile(apply_pad(data, out.valid, out.pad), list(out.valid), out.pad)


def tile_matmul_bias(out, lhs, rhs, bias):
    m, n = (int(v) for v in out.valid)
    return result_in_region(out, product(lhs, rhs, m, n) + bias.data[:1, :n], [m, n])


# ---------------------------------------------------------------- data movement

def window(offsets, extents):
    return tuple(slice(int(o), int(o) + int(e)) for o, e in zip(offsets, extents))


def tile_load(out, tensor, offsets, shapes, valid_shape=None, target_memory=None):
    """TLOAD: the valid region comes from the tensor window; the rest is the pad value (zeros when null)."""
    data = fresh(out)
    region = tuple(slice(0, int(v)) for v in out.valid)
    data[region] = tensor[window(offsets, out.valid)].to(out.dtype)
    return Tile(apply_pad(data, out.valid, out.pad), list(out.valid), out.pad)


def tile_store(out, tile, offsets, output_tensor, atomic=0):
    """TSTORE: writes the tile's valid region (converted nearest-even) into the tensor; returns the tensor."""
    target = output_tensor[window(offsets, tile.valid)]
    values = tile.region().to(torch.float32) if tile.dtype in HALF_TYPES else tile.region()
    if atomic:
        values = computed(target) + computed(tile.region())
    target.copy_(values.to(output_tensor.dtype))
    return output_tensor


def tile_move(out, tile, target_memory=None):
    return result(out, convert(tile.data, out.dtype, 1))


def tile_create(out, shape, dtype=None, target_memory=None):
    return Tile(fresh(out), list(out.valid), out.pad)


def tile_full(out, shape, value, dtype=None):
    return result(out, scalar_tensor(value, out.dtype))


def tile_alloc(out, size, memory_space=None):
    """An on-chip allocation's base address: storage is not modelled, every tile is its own value."""
    return None


def tile_slice(out, x, shape, offset, valid_shape=None):
    values = x.data[window(offset, out.shape)]
    return Tile(apply_pad(values.clone(), out.valid, out.pad), list(out.valid), out.pad)


def tile_extract(out, src, index_row, index_col, shape, target_memory=None):
    values = src.data[window([index_row, index_col], out.shape)]
    return result(out, values)


def tile_assemble(out, target, source, offset):
    data = target.data.clone()
    data[window(offset, source.valid)] = source.region().to(data.dtype)
    return Tile(data, list(out.valid), out.pad)


def tile_reshape(out, x, shape):
    return Tile(x.data.reshape([int(d) for d in out.shape]).clone(), list(out.valid), out.pad)


def tile_transpose(out, x, axis1, axis2, tmp=None):
    return result(out, x.data.transpose(int(axis1), int(axis2)))


def tile_concat(out, src0, src1):
    """TCONCAT along the last axis: src0's valid columns, then src1's."""
    left, right = src0.region(), src1.region()
    rows = min(left.shape[0], right.shape[0])
    values = torch.cat([left[:rows], right[:rows]], dim=-1)
    return result_in_region(out, values, list(values.shape))


def tile_set_validshape(out, x, valid_rows, valid_cols):
    return Tile(x.data.clone(), [int(valid_rows), int(valid_cols)], out.pad)


def tile_fillpad(out, x, pad_value="zero"):
    """TFILLPAD: the source's valid region, the pad value elsewhere; the whole result is valid."""
    data = x.data.clone().to(out.dtype)
    apply_pad(data, x.valid, pad_value)
    return Tile(data, list(out.valid), out.pad)


def tile_read(out, x, indices):
    return x.data[tuple(int(i) for i in indices)].item()


def tile_write(out, x, indices, value):
    data = x.data.clone()
    data[tuple(int(i) for i in indices)] = scalar_tensor(value, data.dtype).to(data.dtype)
    return Tile(data, list(x.valid), x.pad)


# ---------------------------------------------------------------- blocks (pl.spmd, split_aiv)

class Block:
    """The block index and count of the task that runs now (pl.spmd)."""
    index = 0
    count = 1


# Per thread: the Cluster its kernel runs in and its member (0 the AIC, 1 + lane an AIV lane); unset outside a Group.
CURRENT = threading.local()


def tile_get_block_idx(out):
    return Block.index


def tile_get_block_num(out):
    return Block.count


def tile_get_subblock_idx(out):
    """The AIV lane the calling kernel runs on, or the lane a pl.split_aiv region runs for now (split_aiv_lanes);
    0 on the AIC and outside both."""
    return max(getattr(CURRENT, "member", 0) - 1, 0)


tensor_get_block_idx = tile_get_block_idx
tensor_get_block_num = tile_get_block_num
tensor_get_subblock_idx = tile_get_subblock_idx


def spmd_blocks(core_num):
    """Iterates the blocks of an SPMD task in order, with get_block_idx() = 0 .. core_num - 1."""
    saved = (Block.index, Block.count)
    try:
        Block.count = int(core_num)
        for index in range(int(core_num)):
            Block.index = index
            yield index
    finally:
        Block.index, Block.count = saved


AIV_LANES = 2  # the AIV lanes of a cluster, which both run a pl.split_aiv region


def split_aiv_lanes():
    """Iterates the lanes of a pl.split_aiv region, lane 0 then lane 1, with get_subblock_idx() = the lane during
    each pass over the body. In order is right before ExpandMixedKernel: nothing in a region waits on the cube
    work, which is all outside it (the values tile.aic_gather joins are recorded per lane by the region)."""
    saved = getattr(CURRENT, "member", None)
    try:
        for lane in range(AIV_LANES):
            CURRENT.member = 1 + lane
            yield lane
    finally:
        if saved is None:
            del CURRENT.member
        else:
            CURRENT.member = saved


def tile_aiv_shard(out, tile, split=0):
    """In a pl.split_aiv region: a copy of this lane's part of the cube tile (the whole tile under split 0), cut
    and valid as the pipe's split cuts a pushed tile."""
    values, _ = lane_part(tile, split, tile_get_subblock_idx(None))
    return placed(out, values)


def tile_aic_gather(out, lanes, split=0):
    """After a pl.split_aiv region: one of its tiles as each lane left it (`lanes`, lane 0's first) joined as the
    AIC's pop joins the lanes' pushes (UP_DOWN stacked, LEFT_RIGHT side by side, NONE lane 0's)."""
    return joined(out, [lane_part(tile, SPLIT_NONE, 0)[0] for tile in lanes], split)


# ---------------------------------------------------------------- clusters and the cross-core pipe (Group functions)
# A Group is one cluster task: its kernels (the AIC, AIV lanes 0 and 1 in call order) run at once, one thread
# each, as on the simulator, and hand tiles to each other through the pipe (docs/mixed-kernels.md): per
# direction and lane a FIFO ring of slot_num slots; a push waits for a free slot, a pop for a pushed tile, and
# a popped tile keeps its slot until the free. The rings and the kernels' states share one condition, and a
# kernel that must wait records what for: once no kernel can go on (each waits in vain or has finished), the
# wait raises a ModelError with the simulator's report instead of hanging. Nothing here depends on timing.

C2V, V2C = "C2V", "V2C"
SPLIT_NONE, SPLIT_UP_DOWN, SPLIT_LEFT_RIGHT = 0, 1, 2
DIR_BITS = {C2V: 1, V2C: 2}
SLOTS_ONE_DIRECTION = 8  # the hardware's flags per direction and Vector-Cube pair; two directions share them
POP_OPS = {C2V: "tile.tpop_from_aic", V2C: "tile.tpop_from_aiv"}
FREE_OPS = {C2V: "system.tfree_to_aic", V2C: "system.tfree_to_aiv"}


class Ring:
    """One direction's ring of one AIV lane: the tiles pushed and not yet popped, and its counts."""

    def __init__(self):
        self.tiles = collections.deque()
        self.pushed = self.popped = self.freed = 0
        self.producer_ready = self.consumer_ready = False


@dataclass
class Direction:
    slot_size: int
    slot_num: int
    rings: list


@dataclass
class Wait:
    """What a blocked kernel waits for: its op, at its end (producer or consumer) of ring (direction, lane)."""
    op: str
    direction: str
    lane: int
    producer: bool


def producer_of(direction, lane):
    return 0 if direction == C2V else 1 + lane


def consumer_of(direction, lane):
    return 1 + lane if direction == C2V else 0


def init_op(member):
    return "system.aic_initialize_pipe" if member == 0 else "system.aiv_initialize_pipe"


class Cluster:
    """One run of a Group: its kernels by member (0 the AIC, 1 + lane the AIV lanes), their states and the pipe."""

    def __init__(self, group, kernels):
        self.group = group
        self.kernels = kernels  # member -> kernel name
        self.lanes = sum(1 for member in kernels if member > 0)
        self.condition = threading.Condition()
        self.waits = {}  # member -> Wait, while it is blocked
        self.finished = set()
        self.directions = {}  # C2V / V2C -> Direction, once an init named it
        self.broken = None  # the report of the wait that failed: every later pipe op raises it
        self.error = None  # the first exception of a kernel, which run_cluster raises

    def name(self, member):
        core = "the AIC" if member == 0 else f"AIV lane {member - 1}"
        return f"'{self.kernels[member]}' on {core}" if member in self.kernels else f"{core} (no kernel)"

    def fault(self, op, text):
        return ModelError(f"{op} on {self.name(CURRENT.member)} in Group '{self.group}': {text}")

    def require_lanes(self, op):
        if self.lanes == 0:
            raise self.fault(op, "the Group runs no AIV kernel to exchange with")

    # ---- the ops (each under the condition)

    def init(self, op, dir_mask, slot_size, slot_num):
        with self.condition:
            if dir_mask not in (1, 2, 3):
                raise self.fault(op, f"dir_mask {dir_mask} names no direction; use 1 (C2V), 2 (V2C) or 3 (both)")
            depth = SLOTS_ONE_DIRECTION // 2 if dir_mask == 3 else SLOTS_ONE_DIRECTION
            slot_num = slot_num or depth
            if not 1 <= slot_num <= depth:
                raise self.fault(op, f"slot_num {slot_num} is outside 1..{depth}")
            if slot_size <= 0:
                raise self.fault(op, f"slot_size {slot_size} is not a positive number of bytes")
            for direction, bit in DIR_BITS.items():
                if dir_mask & bit:
                    self.bind(op, direction, slot_size, slot_num)
            self.condition.notify_all()

    def bind(self, op, direction, slot_size, slot_num):
        """Sets up the calling kernel's ends of `direction`; the consumer's frees every slot."""
        d = self.directions.setdefault(direction, Direction(slot_size, slot_num, [Ring(), Ring()]))
        if (d.slot_size, d.slot_num) != (slot_size, slot_num):
            raise self.fault(op, f"the ends of {direction} disagree: the other end set {d.slot_num} slots of "
                                 f"{d.slot_size} bytes, this one {slot_num} of {slot_size}; give both inits the "
                                 "same dir_mask, slot_size and slot_num")
        for lane, ring in enumerate(d.rings):
            ring.producer_ready |= producer_of(direction, lane) == CURRENT.member
            ring.consumer_ready |= consumer_of(direction, lane) == CURRENT.member

    def push(self, op, direction, lane, values, box_bytes, split):
        """Waits for a free slot of ring (direction, lane), then puts a part's valid elements in it."""
        with self.condition:
            d, ring = self.ring(op, direction, lane, producer=True)
            if box_bytes > d.slot_size:
                raise self.fault(op, f"a tile of {box_bytes} bytes does not fit a slot of {d.slot_size} bytes of "
                                     f"{direction}; make slot_size (the init's) the size of the largest tile that "
                                     "crosses")
            self.wait(Wait(op, direction, lane, producer=True))
            ring.tiles.append((values, split))
            ring.pushed += 1
            self.condition.notify_all()

    def pop(self, op, direction, lane):
        """Waits for the next tile of ring (direction, lane) and takes it: (its valid elements, its split)."""
        with self.condition:
            _, ring = self.ring(op, direction, lane, producer=False)
            self.wait(Wait(op, direction, lane, producer=False))
            ring.popped += 1
            return ring.tiles.popleft()

    def free(self, op, direction, lane):
        with self.condition:
            _, ring = self.ring(op, direction, lane, producer=False)
            if ring.freed >= ring.popped:
                raise self.fault(op, f"frees a slot of ring {direction} lane {lane} it never popped (popped "
                                     f"{ring.popped}, freed {ring.freed}); free once per {POP_OPS[direction]}")
            ring.freed += 1
            self.condition.notify_all()

    def ring(self, op, direction, lane, producer):
        """Ring (direction, lane) and its direction, once the calling kernel's init set up its end of it."""
        if self.broken is not None:
            raise ModelError(self.broken)
        d = self.directions.get(direction)
        if d is None or not (d.rings[lane].producer_ready if producer else d.rings[lane].consumer_ready):
            raise self.fault(op, f"before its {init_op(CURRENT.member)} set up {direction}; initialize the pipe "
                                 f"with {direction} in dir_mask first")
        return d, d.rings[lane]

    # ---- waits and their end

    def wait(self, wait):
        """Blocks (the condition held) until `wait` can end; a ModelError with the report once it never can."""
        me = CURRENT.member
        self.waits[me] = wait
        self.condition.notify_all()  # a waiting peer re-checks whether every kernel is stuck
        try:
            while not self.can_go(wait):
                if self.broken is None and self.stuck():
                    self.broken = self.report()
                    self.condition.notify_all()
                if self.broken is not None:
                    raise ModelError(self.broken)
                self.condition.wait()
        finally:
            del self.waits[me]

    def can_go(self, wait):
        d = self.directions[wait.direction]
        ring = d.rings[wait.lane]
        if wait.producer:
            return ring.consumer_ready and ring.pushed - ring.freed < d.slot_num
        return ring.popped < ring.pushed

    def stuck(self):
        """No kernel can go on: each has finished or waits for what no other kernel is left to give."""
        return all(m in self.finished or (m in self.waits and not self.can_go(self.waits[m])) for m in self.kernels)

    def finish(self, member):
        with self.condition:
            self.finished.add(member)
            self.condition.notify_all()

    def fail(self, error):
        with self.condition:
            self.error = self.error or error

    # ---- the deadlock report, in the simulator's words (core/src/backend/sim_pipe.cpp)

    def report(self):
        return " ".join([f"cross-core pipe deadlock in Group '{self.group}': every kernel of the cluster is waiting "
                         "on the pipe or has finished, so no wait can end."] +
                        [self.describe(m) for m in sorted(self.kernels)])

    def describe(self, member):
        if member not in self.waits:
            return f"{self.name(member)}: finished."
        wait = self.waits[member]
        d = self.directions[wait.direction]
        ring = d.rings[wait.lane]
        return (f"{self.name(member)}: waits in {wait.op} for {'a free slot' if wait.producer else 'a tile'} of "
                f"ring {wait.direction} lane {wait.lane} (pushed {ring.pushed}, popped {ring.popped}, freed "
                f"{ring.freed}, {ring.pushed - ring.freed} of {d.slot_num} slots in use): "
                f"{self.cause(wait, ring, d.slot_num)}")

    def cause(self, wait, ring, slot_num):
        """Why `wait` cannot end, from its ring's counts and its peer's state."""
        direction = wait.direction
        peer = (consumer_of if wait.producer else producer_of)(direction, wait.lane)
        peer_name, peer_done = self.name(peer), peer not in self.waits
        if wait.producer and not ring.consumer_ready:
            return (f"the consumer ({peer_name}) has not initialized its end of {direction} ({init_op(peer)} with "
                    f"{direction} in dir_mask), which frees the slots.")
        if wait.producer and ring.freed < ring.popped:
            return (f"the consumer ({peer_name}) popped {ring.popped} tiles but freed {ring.freed}: a "
                    f"{POP_OPS[direction]} without its {FREE_OPS[direction]} keeps its slot, and the ring fills up; "
                    "free every popped tile once it is used.")
        if wait.producer and peer_done:
            return (f"the consumer ({peer_name}) finished after popping {ring.popped} tiles, and this is push "
                    f"{ring.pushed + 1}: the push and pop counts differ.")
        if wait.producer:
            return (f"the consumer ({peer_name}) waits elsewhere before popping: the producer runs more than the "
                    f"ring's {slot_num} slots ahead of a consumer that first waits on it; pop before that wait, or "
                    f"make the ring deeper (slot_num, at most {SLOTS_ONE_DIRECTION} for one direction).")
        if peer_done:
            return (f"the producer ({peer_name}) finished after pushing {ring.pushed} tiles, and this is pop "
                    f"{ring.popped + 1}: the push and pop counts differ.")
        return f"the producer ({peer_name}) waits elsewhere before pushing; see its wait."


def run_cluster(group, kernels):
    """Runs a Group's kernels at once, one thread each: `kernels` are (core, function, arguments) in call order,
    the AIV ones lanes 0 and 1. Once all have returned: their results in that order, or the first exception
    one of them raised."""
    members, lanes = [], 0
    for core, _, _ in kernels:
        members.append(0 if core == "AIC" else 1 + lanes)
        lanes += core != "AIC"
    cluster = Cluster(group, {m: function.__name__ for m, (_, function, _) in zip(members, kernels)})
    results = [None] * len(kernels)

    def run(k, function, args):
        CURRENT.cluster, CURRENT.member = cluster, members[k]
        try:
            results[k] = function(*args)
        except BaseException as error:  # raised again in the caller's thread
            cluster.fail(error)
        finally:
            cluster.finish(members[k])

    threads = [threading.Thread(target=run, args=(k, function, args), name=f"{group}:{function.__name__}")
               for k, (_, function, args) in enumerate(kernels)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if cluster.error is not None:
        raise cluster.error
    return results


def cluster_of(op, on_aic):
    """The Cluster the calling kernel runs in, once it is sure that `op` runs on the kernel's core."""
    cluster = getattr(CURRENT, "cluster", None)
    if cluster is None:
        raise ModelError(f"{op}: a cross-core pipe op in a kernel that does not run as part of a Group; the AIC and "
                         "AIV kernels of a mixed kernel must be called by one Group function")
    if (CURRENT.member == 0) != on_aic:
        raise cluster.fault(op, f"it runs on {'the AIC' if on_aic else 'an AIV lane'}; the AIC pushes with "
                                "tile.tpush_to_aiv and pops with tile.tpop_from_aiv, an AIV lane pushes with "
                                "tile.tpush_to_aic and pops with tile.tpop_from_aic")
    return cluster


def pipe_part(box, valid, split, lane):
    """The window of a tile (static box, valid extents) that `lane` owns under `split`: origin, box, valid extents."""
    rows, cols = (int(v) for v in box)
    valid_rows, valid_cols = (int(v) for v in valid)
    if split == SPLIT_UP_DOWN:
        half = rows // 2
        return (lane * half, 0), (half, cols), (min(max(valid_rows - lane * half, 0), half), valid_cols)
    if split == SPLIT_LEFT_RIGHT:
        half = cols // 2
        return (0, lane * half), (rows, half), (valid_rows, min(max(valid_cols - lane * half, 0), half))
    return (0, 0), (rows, cols), (valid_rows, valid_cols)


def check_split(cluster, op, split, box):
    """A split halves the box between the two lanes: it needs both, and an even extent along its axis."""
    if split == SPLIT_NONE:
        return
    if cluster.lanes != 2:
        raise cluster.fault(op, f"split {split} shares the tile between two AIV lanes, but the Group runs "
                                f"{cluster.lanes}; use split 0 (none) or call the AIV kernel twice in the Group")
    extent = int(box[0 if split == SPLIT_UP_DOWN else 1])
    if extent % 2:
        raise cluster.fault(op, f"split {split} halves the tile's box, but its extent along the split axis is "
                                f"{extent}, odd; pad the box to an even extent and narrow the valid shape instead")


def lane_part(tile, split, lane):
    """What a push puts in lane `lane`'s slot: the valid elements of its part of `tile`, and the part's box bytes."""
    (row, col), (box_rows, box_cols), (rows, cols) = pipe_part(tile.data.shape, tile.valid, split, lane)
    values = tile.data[row:row + rows, col:col + cols].clone(memory_format=torch.contiguous_format)
    return values, box_rows * box_cols * tile.data.element_size()


def received(cluster, op, slot, split, dtype, box):
    """A popped slot's elements as `dtype` (the bytes reinterpreted, as the simulator copies them), checked: the
    push's split, its element size and its extents within `box`."""
    values, pushed_split = slot
    if pushed_split != split:
        raise cluster.fault(op, f"the producer pushed this tile with split {pushed_split}, the pop names split "
                                f"{split}; both ends of a transfer must use the same split")
    if values.element_size() != torch.empty(0, dtype=dtype).element_size():
        raise cluster.fault(op, f"the producer pushed {values.dtype} elements, the popped tile is {dtype}; push and "
                                "pop the same dtype")
    if values.shape[0] > box[0] or values.shape[1] > box[1]:
        raise cluster.fault(op, f"the pushed tile's valid shape {list(values.shape)} does not fit the popped tile's "
                                f"box {list(box)} (its half under the split); give both ends the same tile shape")
    return values.view(dtype)


def system_aic_initialize_pipe(out, dir_mask, slot_size, slot_num=0):
    cluster_of("system.aic_initialize_pipe", on_aic=True).init(
        "system.aic_initialize_pipe", int(dir_mask), int(slot_size), int(slot_num))


def system_aiv_initialize_pipe(out, dir_mask, slot_size, slot_num=0):
    cluster_of("system.aiv_initialize_pipe", on_aic=False).init(
        "system.aiv_initialize_pipe", int(dir_mask), int(slot_size), int(slot_num))


def system_reserve_buffer(out, name, size, base=-1):
    """The address of bytes a consumer keeps for a ring (AllocateMemoryAddr places them); the rings are modelled
    here, so only the address is returned."""
    return int(base)


def system_import_peer_buffer(out, name, peer, base=-1):
    """The address the peer kernel reserved under `name`, as AllocateMemoryAddr filled it in."""
    return int(base)


def tile_tpush_to_aiv(out, tile, split=0):
    """TPUSH_TO_AIV: each lane's part of the tile (the whole tile under split 0) into its C2V ring, lane 0 first."""
    op = "tile.tpush_to_aiv"
    cluster = cluster_of(op, on_aic=True)
    cluster.require_lanes(op)
    check_split(cluster, op, split, tile.data.shape)
    for lane in range(cluster.lanes):
        cluster.push(op, C2V, lane, *lane_part(tile, split, lane), split)


def tile_tpush_to_aic(out, tile, split=0):
    """TPUSH_TO_AIC: this lane's tile into its V2C ring; `split` says where the AIC's pop places it."""
    op = "tile.tpush_to_aic"
    cluster = cluster_of(op, on_aic=False)
    cluster.push(op, V2C, CURRENT.member - 1, *lane_part(tile, SPLIT_NONE, 0), split)


def tile_tpop_from_aic(out, shape, dtype=None, split=0):
    """TPOP_FROM_AIC: this lane's next tile; the result is valid where the pushed part was. Keeps its slot."""
    op = "tile.tpop_from_aic"
    cluster = cluster_of(op, on_aic=False)
    box = [int(d) for d in out.shape]
    return placed(out, received(cluster, op, cluster.pop(op, C2V, CURRENT.member - 1), split, out.dtype, box))


def tile_tpop_from_aiv(out, shape, dtype=None, split=0):
    """TPOP_FROM_AIV: every lane's next tile, each in its part of the result (split 0: lane 0's, lane 1's slot
    consumed alongside); valid up to where the last non-empty part ends. Keeps the slots."""
    op = "tile.tpop_from_aiv"
    cluster = cluster_of(op, on_aic=True)
    cluster.require_lanes(op)
    check_split(cluster, op, split, out.shape)
    parts = []
    for lane in range(cluster.lanes):
        _, box, _ = pipe_part(out.shape, [0, 0], split, lane)
        parts.append(received(cluster, op, cluster.pop(op, V2C, lane), split, out.dtype, box))
    return joined(out, parts, split)


def placed(spec, values):
    """A tile of `spec` holding `values` (one part's valid elements) at its top-left corner, valid there, padded."""
    data = fresh(spec)
    rows, cols = values.shape
    data[:rows, :cols] = values
    return Tile(apply_pad(data, [rows, cols], spec.pad), [rows, cols], spec.pad)


def joined(spec, parts, split):
    """A tile of `spec` with each lane's part (its valid elements, lane 0's first) in the lane's window under
    `split` (NONE: lane 0's alone); valid up to where the last non-empty part ends."""
    data = fresh(spec)
    valid = [0, 0]
    for lane, values in enumerate(parts[:1] if split == SPLIT_NONE else parts):
        origin, _, _ = pipe_part(data.shape, [0, 0], split, lane)
        rows, cols = values.shape
        data[origin[0]:origin[0] + rows, origin[1]:origin[1] + cols] = values
        for axis, extent in enumerate((rows, cols)):
            if split != axis + 1 or extent > 0:  # a split axis ends at the last non-empty part
                valid[axis] = origin[axis] + extent
    return Tile(apply_pad(data, valid, spec.pad), valid, spec.pad)


def system_tfree_to_aic(out, tile):
    """TFREE_TO_AIC: gives the oldest slot this lane popped back to the AIC."""
    op = "system.tfree_to_aic"
    cluster_of(op, on_aic=False).free(op, C2V, CURRENT.member - 1)


def system_tfree_to_aiv(out, tile):
    """TFREE_TO_AIV: gives the oldest slot popped from every lane back."""
    op = "system.tfree_to_aiv"
    cluster = cluster_of(op, on_aic=True)
    cluster.require_lanes(op)
    for lane in range(cluster.lanes):
        cluster.free(op, V2C, lane)


# ---------------------------------------------------------------- tensor-level ops (before ConvertTensorToTileOps)

def valid_view(tensor, valid, pad="null"):
    """A tensor whose type is valid only on `valid`: a Tile sharing the tensor's storage (no copy)."""
    return Tile(tensor, list(valid), pad)


def data_of(x):
    """The tensor itself, whether it came as a plain tensor or as a valid_view."""
    return x.data if isinstance(x, Tile) else x


def as_tile(x):
    return Tile(x, list(x.shape)) if isinstance(x, torch.Tensor) else x


def tile_spec_of(spec):
    """The TileSpec of a tensor result: its valid extents (all of it unless the type says less) and pad."""
    if not isinstance(spec, TensorSpec):
        return spec
    return TileSpec(spec.shape, spec.dtype, list(spec.shape if spec.valid is None else spec.valid), spec.pad)


def on_tiles(tile_op):
    """The tensor op computing as `tile_op` over whole tensors (each tensor a fully valid tile)."""
    def op(out, *args, **kwargs):
        value = tile_op(tile_spec_of(out), *(as_tile(a) for a in args), **kwargs)
        return value.data if isinstance(value, Tile) else value
    return op


# Tensor ops that compute exactly as their tile op on whole tensors. Each op
# is one top-level name: the codegen reads these names to know what is modelled.
tensor_abs = on_tiles(tile_abs)
tensor_add = on_tiles(tile_add)
tensor_adds = on_tiles(tile_adds)
tensor_and = on_tiles(tile_and)
tensor_ands = on_tiles(tile_ands)
tensor_cast = on_tiles(tile_cast)
tensor_col_argmax = on_tiles(tile_col_argmax)
tensor_col_argmin = on_tiles(tile_col_argmin)
tensor_col_expand = on_tiles(tile_col_expand)
tensor_col_max = on_tiles(tile_col_max)
tensor_col_min = on_tiles(tile_col_min)
tensor_col_prod = on_tiles(tile_col_prod)
tensor_col_sum = on_tiles(tile_col_sum)
tensor_concat = on_tiles(tile_concat)
tensor_cos = on_tiles(tile_cos)
tensor_div = on_tiles(tile_div)
tensor_divs = on_tiles(tile_divs)
tensor_exp = on_tiles(tile_exp)
tensor_expands = on_tiles(tile_expands)
tensor_fillpad = on_tiles(tile_fillpad)
tensor_fmod = on_tiles(tile_fmod)
tensor_fmods = on_tiles(tile_fmods)
tensor_full = on_tiles(tile_full)
tensor_log = on_tiles(tile_log)
tensor_maximum = on_tiles(tile_maximum)
tensor_minimum = on_tiles(tile_minimum)
tensor_mul = on_tiles(tile_mul)
tensor_muls = on_tiles(tile_muls)
tensor_neg = on_tiles(tile_neg)
tensor_not = on_tiles(tile_not)
tensor_or = on_tiles(tile_or)
tensor_ors = on_tiles(tile_ors)
tensor_recip = on_tiles(tile_recip)
tensor_relu = on_tiles(tile_relu)
tensor_row_argmax = on_tiles(tile_row_argmax)
tensor_row_argmin = on_tiles(tile_row_argmin)
tensor_row_expand = on_tiles(tile_row_expand)
tensor_row_max = on_tiles(tile_row_max)
tensor_row_min = on_tiles(tile_row_min)
tensor_row_prod = on_tiles(tile_row_prod)
tensor_row_sum = on_tiles(tile_row_sum)
tensor_rsqrt = on_tiles(tile_rsqrt)
tensor_shl = on_tiles(tile_shl)
tensor_shls = on_tiles(tile_shls)
tensor_shr = on_tiles(tile_shr)
tensor_shrs = on_tiles(tile_shrs)
tensor_sin = on_tiles(tile_sin)
tensor_sqrt = on_tiles(tile_sqrt)
tensor_sub = on_tiles(tile_sub)
tensor_subs = on_tiles(tile_subs)
tensor_xor = on_tiles(tile_xor)
tensor_xors = on_tiles(tile_xors)
tensor_row_expand_add = on_tiles(tile_row_expand_add)
tensor_row_expand_sub = on_tiles(tile_row_expand_sub)
tensor_row_expand_mul = on_tiles(tile_row_expand_mul)
tensor_row_expand_div = on_tiles(tile_row_expand_div)
tensor_row_expand_max = on_tiles(tile_row_expand_max)
tensor_row_expand_min = on_tiles(tile_row_expand_min)
tensor_row_expand_expdif = on_tiles(tile_row_expand_expdif)
tensor_col_expand_add = on_tiles(tile_col_expand_add)
tensor_col_expand_sub = on_tiles(tile_col_expand_sub)
tensor_col_expand_mul = on_tiles(tile_col_expand_mul)
tensor_col_expand_div = on_tiles(tile_col_expand_div)
tensor_col_expand_max = on_tiles(tile_col_expand_max)
tensor_col_expand_min = on_tiles(tile_col_expand_min)
tensor_col_expand_expdif = on_tiles(tile_col_expand_expdif)


def tensor_create(out, shape, dtype=None, layout=None, manual_dep=None, init_value=None):
    """A new GM tensor: zeros, or init_value (the device leaves it unspecified without one)."""
    data = torch.zeros([int(d) for d in out.shape], dtype=out.dtype)
    return data.fill_(init_value) if init_value is not None else data


def tensor_slice(out, x, shape, offset, valid_shape=None):
    """A view of a window of x: writes through it reach x, as on the device. Its valid extents are in its type."""
    return data_of(x)[window(offset, shape)]


def tensor_assemble(out, target, source, offset, atomic=0):
    """Writes the source's valid region into a window of target (in place) and returns target."""
    target = data_of(target)
    source = as_tile(source)
    region = target[window(offset, source.valid)]
    values = computed(region) + computed(source.region()) if atomic else source.region()
    region.copy_(values.to(target.dtype))
    return target


def tensor_reshape(out, x, shape, valid_shape=None):
    return data_of(x).reshape([int(d) for d in out.shape])


def tensor_transpose(out, x, axis1, axis2, valid_shape=None):
    return data_of(x).transpose(int(axis1), int(axis2)).contiguous()


def tensor_dim(out, x, axis):
    return int(data_of(x).shape[int(axis)])


def tensor_read(out, x, indices):
    return data_of(x)[tuple(int(i) for i in indices)].item()


def tensor_write(out, x, indices, value):
    x = data_of(x)
    x[tuple(int(i) for i in indices)] = scalar_tensor(value, x.dtype).to(x.dtype)
    return x


def matrix_operand(x, transposed):
    """A matmul operand as a Tile, its last two axes swapped when `transposed` (valid extents too)."""
    x = as_tile(x)
    if not transposed:
        return x
    return Tile(x.data.transpose(-1, -2), [*x.valid[:-2], x.valid[-1], x.valid[-2]], x.pad)


def tensor_product(out, lhs, rhs, a_trans, b_trans):
    """The valid `M x K x N` product of two tensors, summed as tile.matmul sums, in a fresh block of `out`'s
    shape (zeros outside the valid region): M, N are `out`'s valid extents, K the valid columns of lhs."""
    a, b = matrix_operand(lhs, a_trans), matrix_operand(rhs, b_trans)
    spec = tile_spec_of(out)
    m, n = (int(v) for v in spec.valid[-2:])
    k = int(a.valid[-1])
    left, right = a.data[..., :m, :k], b.data[..., :k, :n]
    if accumulator_dtype(a.dtype) == torch.int32:
        values = (left.to(torch.int64) @ right.to(torch.int64)).to(torch.int32)
    else:
        values = left.to(torch.float32) @ right.to(torch.float32)
    total = torch.zeros([int(d) for d in spec.shape], dtype=values.dtype)
    total[..., :m, :n] = values
    return total


def tensor_matmul(out, lhs, rhs, out_dtype=None, a_trans=False, b_trans=False):
    """lhs @ rhs over the valid M x K x N, summed in FP32 (INT32 for 8-bit integers), then converted."""
    return result(tile_spec_of(out), tensor_product(out, lhs, rhs, a_trans, b_trans)).data


def tensor_matmul_acc(out, acc, lhs, rhs, init_cond=None, a_trans=False, b_trans=False):
    total = tensor_product(out, lhs, rhs, a_trans, b_trans)
    if not init_cond:
        total = computed(as_tile(acc).data) + total
    return result(tile_spec_of(out), total).data


# ---------------------------------------------------------------- arrays, tasks and synchronization

def array_create(out, extent, dtype=None):
    return [0] * int(extent)


def array_get_element(out, array, index):
    return array[int(index)]


def array_update_element(out, array, index, value):
    array[int(index)] = value
    return array


def no_effect(*_args, **_kwargs):
    """A barrier, flag or fence: tasks run one after another here, and a Group's kernels meet only in the pipe."""
    return None


system_bar_all = system_bar_m = system_bar_v = system_fence = no_effect
system_sync_src = system_sync_dst = system_syncall = system_task_dummy = no_effect
tensor_dump_tag = no_effect  # the argument dump is the runtime's; the script computes the same without it


def system_available_aiv_count(out):
    return 2


def system_available_cluster_count(out):
    return 1


class Tasks:
    """Task ids handed out by submits (pl.submit): tasks run at their submit, in program order."""
    next_id = 0


def submit(results, count):
    """The value of a submit: the call's `count` results followed by a new task id."""
    Tasks.next_id += 1
    if count == 0:
        return (Tasks.next_id,)
    if count == 1:
        return (results, Tasks.next_id)
    return (*results, Tasks.next_id)


# ---------------------------------------------------------------- running the entry

def random_input(shape, dtype):
    if dtype == torch.bool:
        return torch.rand(shape) > 0.5
    if dtype.is_floating_point:
        return torch.randn(shape).to(dtype)
    return torch.randint(-8 if dtype.is_signed else 0, 9, shape, dtype=torch.int64).to(dtype)


def load_input(saved, name, shape, dtype):
    if name not in saved:
        raise ModelError(f"the input file has no array '{name}'; it has {sorted(saved)}")
    array = saved[name]
    if isinstance(array, np.ndarray) and array.shape == ():
        return array.item()
    return torch.from_numpy(np.ascontiguousarray(array)).to(dtype).reshape(shape)


def make_inputs(params, path=None, seed=0):
    """The entry's arguments: from the .npz at `path` (one array per parameter name) or random."""
    torch.manual_seed(seed)
    saved = dict(np.load(path)) if path else None
    inputs = []
    for name, kind, shape, dtype in params:
        if saved is not None:
            inputs.append(load_input(saved, name, shape, dtype))
        elif kind == "tensor":
            inputs.append(random_input(shape, dtype))
        else:
            raise ModelError(f"scalar parameter '{name}' has no random value; give it in --inputs file.npz")
    return inputs


def summarize(name, value):
    if isinstance(value, torch.Tensor):
        data = value.to(torch.float64) if value.dtype != torch.bool else value.to(torch.float64)
        print(f"{name}: {list(value.shape)} {value.dtype} sum={data.sum().item():.6g} "
              f"mean_abs={data.abs().mean().item():.6g} first={data.flatten()[:4].tolist()}")
    else:
        print(f"{name}: {value!r}")


def run_main(entry, params, argv=None):
    parser = argparse.ArgumentParser(description=f"Run {entry.__name__} on saved or random inputs.")
    parser.add_argument("--inputs", help=".npz with one array per parameter of the entry")
    parser.add_argument("--save", help="write the arguments after the run (outputs included) to this .npz")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random inputs")
    options = parser.parse_args(argv)
    inputs = make_inputs(params, options.inputs, options.seed)
    returned = entry(*inputs)
    for (name, *_), value in zip(params, inputs):
        summarize(name, value)
    summarize("return", returned)
    if options.save:
        np.savez(options.save, **{name: (v.float() if isinstance(v, torch.Tensor) and v.dtype == torch.bfloat16
                                         else v).numpy() if isinstance(v, torch.Tensor) else np.array(v)
                                  for (name, *_), v in zip(params, inputs)})
    return 0
# ---- end of prelude ----
