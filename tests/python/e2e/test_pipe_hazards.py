"""The simulator's pipe-hazard checker (RunConfig.check_pipe_hazards) on whole programs: a hand-written kernel
that forgets an event, and kernels lowered by a pipeline without InsertPipeSync, fault naming the hazard; the
default pipeline's kernels run hazard-free, also when more events are live than a pipe pair has."""

import os
from pathlib import Path

import pytest
import torch
import yaml

import pypto
import pypto.language as pl
from pypto.runtime import RunConfig

DEFAULT_PIPELINE = Path(pypto.__file__).resolve().parents[2] / "pipelines" / "default.yaml"

# out = a + b, 64 x 64 FP32: `{wait}` is where the add waits for the loads.
KERNEL = """\
#include <stdint.h>
#include <pto/pto-inst.hpp>
#include "pypto/runtime/kernel_args.h"
#ifndef PYPTO_LOC
#define PYPTO_LOC(line)
#endif
using namespace pto;
using Block = Tile<TileType::Vec, float, 64, 64>;
using Window = GlobalTensor<float, Shape<1, 1, 1, 64, 64>, Stride<1, 1, 1, DYNAMIC, DYNAMIC>>;
static __aicore__ Window WindowAt(__gm__ int64_t* args, int slot) {{
  __gm__ PyptoRtTensorDesc* t = reinterpret_cast<__gm__ PyptoRtTensorDesc*>(args[slot]);
  return Window(reinterpret_cast<__gm__ float*>(t->data), Window::Shape(), Window::Stride(t->strides[0], 1));
}}
extern "C" __aicore__ void kernel_entry(__gm__ int64_t* args) {{
  Window a = WindowAt(args, 0), b = WindowAt(args, 1), out = WindowAt(args, 2);
  Block ta, tb;
  TASSIGN(ta, 0x0);
  TASSIGN(tb, 0x4000);
  PYPTO_LOC(__LINE__);
  TLOAD(ta, a);
  TLOAD(tb, b);
  set_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);
{wait}
  PYPTO_LOC(__LINE__);
  TADD(ta, ta, tb);
  set_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  wait_flag(PIPE_V, PIPE_MTE3, EVENT_ID0);
  PYPTO_LOC(__LINE__);
  TSTORE(out, ta);
}}
"""


def _external_add(tmp_path: Path, wait: str):
    source = tmp_path / "add.cpp"
    source.write_text(KERNEL.format(wait=wait))

    @pl.jit.extern(core_type="aiv", source=str(source))
    def add(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
            out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]) -> pl.Tensor[[64, 64], pl.FP32]: ...

    @pl.jit
    def add_once(a: pl.Tensor[[64, 64], pl.FP32], b: pl.Tensor[[64, 64], pl.FP32],
                 out: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
        out = add(a, b, out)
        return out

    return add_once, source


def test_a_hand_written_kernel_that_forgets_a_wait_faults_at_the_instruction_naming_the_event(tmp_path):
    add_once, source = _external_add(tmp_path, wait="")
    a, b, out = torch.randn(64, 64), torch.randn(64, 64), torch.zeros(64, 64)
    with pytest.raises(pypto.KernelFault) as fault:
        add_once(a, b, out, config=RunConfig(check_pipe_hazards=True))
    message = str(fault.value)
    # PYPTO_LOC(__LINE__) names its own line, the one before the add.
    add_line = next(i for i, line in enumerate(source.read_text().splitlines(), 1) if "TADD(" in line) - 1
    assert f"faulted in TADD at {source}:{add_line}" in message, message
    assert f"TADD (line {add_line}, PIPE_V) reads Vec bytes [0x0, 0x4000) that TLOAD" in message, message
    assert "put set_flag(PIPE_MTE2, PIPE_V, EVENT_IDn) after the TLOAD and wait_flag(PIPE_MTE2, PIPE_V, EVENT_IDn) " \
           "before the TADD" in message, message
    assert fault.value.lineno == add_line


def test_without_the_check_the_same_kernel_computes_the_right_numbers_as_the_vendor_simulation_would(tmp_path):
    add_once, _ = _external_add(tmp_path, wait="")
    a, b, out = torch.randn(64, 64), torch.randn(64, 64), torch.zeros(64, 64)
    add_once(a, b, out, config=RunConfig(check_pipe_hazards=False))
    torch.testing.assert_close(out, a + b, rtol=0, atol=0)


def test_the_kernel_with_its_wait_passes_the_check(tmp_path):
    add_once, _ = _external_add(tmp_path, wait="  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);")
    a, b, out = torch.randn(64, 64), torch.randn(64, 64), torch.zeros(64, 64)
    add_once(a, b, out, config=RunConfig(check_pipe_hazards=True))
    torch.testing.assert_close(out, a + b, rtol=0, atol=0)


def test_a_wait_for_an_event_nobody_set_would_hang_the_chip(tmp_path):
    add_once, _ = _external_add(tmp_path, wait="  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID0);\n"
                                             "  wait_flag(PIPE_MTE2, PIPE_V, EVENT_ID1);")
    a, b, out = torch.randn(64, 64), torch.randn(64, 64), torch.zeros(64, 64)
    with pytest.raises(pypto.KernelFault, match=r"wait_flag\(PIPE_MTE2, PIPE_V, EVENT_ID1\) with no set_flag before "
                                                r"it: on the chip PIPE_V would wait for ever"):
        add_once(a, b, out, config=RunConfig(check_pipe_hazards=True))


@pl.jit
def scale_rows(x: pl.Tensor[[64, 64], pl.FP32], out: pl.Out[pl.Tensor[[64, 64], pl.FP16]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        for i in pl.range(0, 64, 16):
            t = pl.load(x, [i, 0], [16, 64])
            u = pl.cast(pl.mul(t, t), pl.FP16)
            out = pl.store(u, [i, 0], out)
    return out


def test_kernels_of_a_pipeline_without_insert_pipe_sync_race_and_the_check_says_where(tmp_path):
    pipeline = yaml.safe_load(DEFAULT_PIPELINE.read_text())
    pipeline["name"] = "no_pipe_sync"
    pipeline["passes"] = [p for p in pipeline["passes"] if p != "InsertPipeSync"]
    path = tmp_path / "no_pipe_sync.yaml"
    path.write_text(yaml.safe_dump(pipeline))
    x, out = torch.randn(64, 64), torch.zeros(64, 64, dtype=torch.float16)
    with pytest.raises(pypto.KernelFault, match=r"reads Vec bytes .* that TLOAD \(line \d+, PIPE_MTE2\) wrote before "
                                                r"it, and no event orders the two"):
        scale_rows(x, out, config=RunConfig(pipeline=str(path), check_pipe_hazards=True))


def test_the_default_pipeline_double_buffers_the_same_loop_hazard_free():
    # Whole numbers whose squares fp16 holds exactly: pl.cast rounds half away from zero (CAST_ROUND) and
    # Tensor.half() half to even, so random reals would tie differently in about one run in two.
    x = torch.randint(-32, 33, (64, 64)).float()
    out = torch.zeros(64, 64, dtype=torch.float16)
    scale_rows(x, out, config=RunConfig(check_pipe_hazards=True))
    torch.testing.assert_close(out, (x * x).half(), rtol=0, atol=0)
    kernel = scale_rows.compile(x, out, config=RunConfig(check_pipe_hazards=True)).kernel_files[0].read_text()
    assert "set_flag(PIPE_MTE2, PIPE_V, " in kernel and "wait_flag(PIPE_V, PIPE_MTE3, " in kernel, kernel


@pl.jit
def ten_blocks(x: pl.Tensor[[160, 64], pl.FP32], out: pl.Out[pl.Tensor[[160, 64], pl.FP32]]):
    """Ten loads before ten adds: ten MTE2 -> V events live at once, two more than a pipe pair has."""
    with pl.at(level=pl.Level.CORE_GROUP):
        t0 = pl.load(x, [0, 0], [16, 64])
        t1 = pl.load(x, [16, 0], [16, 64])
        t2 = pl.load(x, [32, 0], [16, 64])
        t3 = pl.load(x, [48, 0], [16, 64])
        t4 = pl.load(x, [64, 0], [16, 64])
        t5 = pl.load(x, [80, 0], [16, 64])
        t6 = pl.load(x, [96, 0], [16, 64])
        t7 = pl.load(x, [112, 0], [16, 64])
        t8 = pl.load(x, [128, 0], [16, 64])
        t9 = pl.load(x, [144, 0], [16, 64])
        out = pl.store(pl.add(t0, 1.0), [0, 0], out)
        out = pl.store(pl.add(t1, 1.0), [16, 0], out)
        out = pl.store(pl.add(t2, 1.0), [32, 0], out)
        out = pl.store(pl.add(t3, 1.0), [48, 0], out)
        out = pl.store(pl.add(t4, 1.0), [64, 0], out)
        out = pl.store(pl.add(t5, 1.0), [80, 0], out)
        out = pl.store(pl.add(t6, 1.0), [96, 0], out)
        out = pl.store(pl.add(t7, 1.0), [112, 0], out)
        out = pl.store(pl.add(t8, 1.0), [128, 0], out)
        out = pl.store(pl.add(t9, 1.0), [144, 0], out)
    return out


def test_more_live_events_than_a_pipe_pair_has_still_run_hazard_free():
    x, out = torch.randn(160, 64), torch.zeros(160, 64)
    ten_blocks(x, out, config=RunConfig(check_pipe_hazards=True))
    torch.testing.assert_close(out, x + 1.0, rtol=0, atol=0)


def test_the_check_is_off_for_users_unless_asked_for(monkeypatch):
    monkeypatch.delenv("PYPTO_CHECK_PIPE_HAZARDS", raising=False)
    assert RunConfig().check_pipe_hazards is False
    monkeypatch.setenv("PYPTO_CHECK_PIPE_HAZARDS", "1")
    assert RunConfig().check_pipe_hazards is True
    assert RunConfig(check_pipe_hazards=False).check_pipe_hazards is False
    with pytest.raises(TypeError, match="check_pipe_hazards"):
        RunConfig(check_pipe_hazards="yes")


def test_the_suite_runs_with_the_check_on():
    assert os.environ.get("PYPTO_CHECK_PIPE_HAZARDS") == "1"
    assert RunConfig().check_pipe_hazards is True
