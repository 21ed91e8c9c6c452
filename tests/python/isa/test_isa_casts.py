"""The tile ISA's half/bfloat16 conversions against torch's casts, bit for bit.

A small C++ driver (cast_driver.cpp) is compiled with g++ against the SDK
headers; it runs TCVT on the simulated core over ~300k float32 values chosen
to hit every rounding boundary (ties, subnormals, overflow, inf, NaN).
"""

import pathlib
import shutil
import subprocess

import numpy as np
import pytest
import torch

HERE = pathlib.Path(__file__).resolve().parent
SDK_INCLUDE = HERE.parents[2] / "sdk" / "include"

MODES = {"none": 0, "rint": 1, "round": 2, "floor": 3, "ceil": 4, "trunc": 5, "odd": 6}


# Portable code converts half with integer bit operations; -march=native takes
# the F16C instructions where the CPU has them. Both must agree with torch.
@pytest.fixture(scope="module", params=[[], ["-march=native"]], ids=["portable", "native"])
def driver(request, tmp_path_factory):
    gxx = shutil.which("g++")
    if gxx is None:
        pytest.fail("g++ is not installed: run scripts/setup.sh (Debian package g++)")
    exe = tmp_path_factory.mktemp("isa") / "cast_driver"
    subprocess.run([gxx, "-std=c++20", "-O2", "-Wall", "-Wextra", "-Werror", *request.param, f"-I{SDK_INCLUDE}",
                    str(HERE / "cast_driver.cpp"), "-o", str(exe)], check=True)
    return exe


def boundary_values():
    """float32 values around every half and bfloat16 rounding boundary, plus random bits."""
    rng = np.random.default_rng(7)
    halves = np.arange(0, 0x7C00, dtype=np.uint32)
    lo = torch.from_numpy(halves.astype(np.int16)).view(torch.float16).float().numpy()
    hi = torch.from_numpy((halves + 1).astype(np.int16)).view(torch.float16).float().numpy()
    mid = (lo.astype(np.float64) + hi.astype(np.float64)) / 2
    ties = mid.astype(np.float32)
    near = np.concatenate([ties, np.nextafter(ties, np.float32(np.inf)), np.nextafter(ties, np.float32(0))])
    bf_bits = rng.integers(0, 1 << 16, 20000, dtype=np.uint32) << 16
    bf = np.concatenate([bf_bits | 0x8000, bf_bits | 0x8001, bf_bits | 0x7FFF]).view(np.float32)
    random_bits = rng.integers(0, 1 << 32, 100000, dtype=np.uint64).astype(np.uint32).view(np.float32)
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -np.nan, 65504, 65520, 65519.996, -65520,
                        2.0 ** -24, 2.0 ** -25, 2.0 ** -26, 3 * 2.0 ** -26, 2.0 ** -149, 3.4028235e38],
                       dtype=np.float32)
    small = rng.uniform(-70000, 70000, 30000).astype(np.float32)
    values = np.concatenate([near, -near, bf, random_bits, special, small]).astype(np.float32)
    return values


def run(driver, tmp_path, mode, values):
    inp = tmp_path / "in.f32"
    values.astype(np.float32).tofile(inp)
    outs = [tmp_path / name for name in ("h.bin", "b.bin", "i.bin", "bh.bin", "bb.bin")]
    subprocess.run([str(driver), str(MODES[mode]), str(inp), *map(str, outs)], check=True)
    n = len(values)
    return (np.fromfile(outs[0], np.uint16)[:n], np.fromfile(outs[1], np.uint16)[:n],
            np.fromfile(outs[2], np.int32)[:n], np.fromfile(outs[3], np.float32)[:n],
            np.fromfile(outs[4], np.float32)[:n])


def mismatches(got, want, values):
    bad = np.nonzero(got != want)[0]
    return [(hex(values[i:i + 1].view(np.uint32)[0]), hex(int(got[i])), hex(int(want[i]))) for i in bad[:5]]


@pytest.mark.parametrize("mode", ["none", "rint"])
def test_nearest_even_casts_match_torch_bit_for_bit(driver, tmp_path, mode):
    values = boundary_values()
    h, b, _, back_h, back_b = run(driver, tmp_path, mode, values)
    t = torch.from_numpy(values)
    want_h = t.to(torch.float16).view(torch.int16).numpy().view(np.uint16)
    want_b = t.to(torch.bfloat16).view(torch.int16).numpy().view(np.uint16)
    nan = np.isnan(values)
    # NaN payloads are not part of torch's contract; a NaN must stay a NaN of the same sign.
    assert mismatches(h[~nan], want_h[~nan], values[~nan]) == []
    assert mismatches(b[~nan], want_b[~nan], values[~nan]) == []
    assert np.all((h[nan] & 0x7C00) == 0x7C00) and np.all((h[nan] & 0x3FF) != 0)
    assert np.all((b[nan] & 0x7F80) == 0x7F80) and np.all((b[nan] & 0x7F) != 0)
    # And back to float exactly as torch widens.
    want_back_h = torch.from_numpy(h.view(np.int16)).view(torch.float16).float().numpy()
    want_back_b = torch.from_numpy(b.view(np.int16)).view(torch.bfloat16).float().numpy()
    ok = ~np.isnan(want_back_h)
    assert np.array_equal(back_h[ok].view(np.uint32), want_back_h[ok].view(np.uint32))
    assert np.all(np.isnan(back_h[~ok]))
    ok = ~np.isnan(want_back_b)
    assert np.array_equal(back_b[ok].view(np.uint32), want_back_b[ok].view(np.uint32))


@pytest.mark.parametrize("mode", ["none", "rint", "round", "floor", "ceil", "trunc", "odd"])
def test_float_to_int32_rounds_by_mode(driver, tmp_path, mode):
    rng = np.random.default_rng(3)
    halves = np.arange(-400, 400) / 2.0
    values = np.concatenate([halves, rng.uniform(-1e6, 1e6, 20000), [3e9, -3e9, np.nan, np.inf]]).astype(np.float32)
    _, _, got, _, _ = run(driver, tmp_path, mode, values)
    x = torch.from_numpy(values.astype(np.float64))
    if mode == "rint":
        r = torch.round(x)  # torch.round rounds half to even
    elif mode == "round":
        r = torch.sign(x) * torch.floor(torch.abs(x) + 0.5)
    elif mode == "odd":  # nearest, a tie to the odd neighbour
        low = torch.floor(x)
        tie_up = torch.remainder(low, 2) == 0
        r = torch.where(x - low > 0.5, low + 1, torch.where(x - low < 0.5, low, torch.where(tie_up, low + 1, low)))
    else:  # none: the plain C++ conversion, toward zero
        r = torch.trunc(x) if mode == "none" else getattr(torch, mode)(x)
    r = torch.nan_to_num(r, nan=0.0).clamp(-2 ** 31, 2 ** 31 - 1)
    want = r.to(torch.int64).numpy().astype(np.int32)
    assert mismatches(got, want, values) == []


@pytest.mark.parametrize("mode", ["floor", "ceil", "trunc", "round", "odd"])
def test_directed_half_rounding_picks_the_neighbour_the_mode_names(driver, tmp_path, mode):
    """x lies between two adjacent halves lower < x < upper (or is one); the mode picks one."""
    values = boundary_values()
    values = values[np.isfinite(values) & (np.abs(values) < 65504)]
    h, _, _, _, _ = run(driver, tmp_path, mode, values)
    x = values.astype(np.float64)
    nearest = torch.from_numpy(values).to(torch.float16).numpy()
    n64 = nearest.astype(np.float64)
    with np.errstate(over="ignore"):  # the unused neighbour of +-65504 is inf
        below = np.nextafter(nearest, np.float16(-np.inf))
        above = np.nextafter(nearest, np.float16(np.inf))
    lower = np.where(n64 <= x, nearest, below).astype(np.float64)
    upper = np.where(n64 >= x, nearest, above).astype(np.float64)
    if mode == "floor":
        want = lower
    elif mode == "ceil":
        want = upper
    elif mode == "trunc":
        want = np.where(x > 0, lower, upper)
    elif mode == "round":
        tie = (x - lower) == (upper - x)
        want = np.where(tie & (lower != upper), np.where(x > 0, upper, lower), n64)
    else:
        lower_bits = lower.astype(np.float16).view(np.uint16)
        want = np.where(lower == upper, lower, np.where(lower_bits & 1, lower, upper))
    want_bits = want.astype(np.float16).view(np.uint16)
    # Zero results keep the sign of x.
    want_bits = np.where(want == 0, np.where(np.signbit(values), 0x8000, 0), want_bits).astype(np.uint16)
    assert mismatches(h, want_bits, values) == []
