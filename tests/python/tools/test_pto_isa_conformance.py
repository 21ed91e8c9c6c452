"""pypto.tools.pto_isa_conformance: launch recording (PYPTO_RECORD_LAUNCHES), the record format, the replay harness
and the comparison, end to end on a few examples. --self compiles the harness against PyPTO's own headers, so it
runs everywhere; the check against the real PTO-ISA headers runs where PTO_ISA_ROOT names a checkout."""

import contextlib
import io
import os
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from pypto.tools import pto_isa_conformance as conformance

# The recording fixture runs the examples once per worker: one worker takes the module's tests.
pytestmark = pytest.mark.xdist_group("pto_isa_conformance")

EXAMPLES = ("beginner/01_hello_world.py", "beginner/02_elementwise.py", "beginner/05_matmul.py")
EXPECTED_PASSES = ("PASS hello_world_incore_0 (1 launch)", "PASS add_mul_incore_0 (8 launches)",
                   "PASS matmul_incore_0 (1 launch)")


def run_tool(capsys, *args):
    status = conformance.main([*args, "-q", "-j", "2"])
    return status, capsys.readouterr().out


def example_args():
    return [a for e in EXAMPLES for a in ("--examples", f"examples/{e}")]


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    return tmp_path_factory.mktemp("conformance_cache")


@pytest.fixture(scope="module")
def self_run(tmp_path_factory, cache):
    """The tool's --self run over the examples, recording into a folder it keeps."""
    records = tmp_path_factory.mktemp("conformance") / "records"
    out = io.StringIO()  # capsys is function-scoped
    with contextlib.redirect_stdout(out):
        status = conformance.main(["--self", "--suite", "examples", *example_args(), "--keep-records", str(records),
                                   "--cache-dir", str(cache), "-q", "-j", "2"])
    return records, status, out.getvalue()


def test_self_check_replays_every_recorded_launch_and_matches(self_run):
    records, status, out = self_run
    lines = out.splitlines()
    assert status == 0, out
    for line in EXPECTED_PASSES:
        assert line in lines, out
    assert lines[-2] == "0 skipped"
    assert lines[-1] == "3 passed, 0 failed"


def hello_record(records: Path) -> conformance.LaunchRecord:
    kernels = conformance.load_records(records)
    (hello,) = [k for k in kernels.values() if k.function == "hello_world_incore_0"]
    assert hello.meta["core"] == "aiv" and hello.meta["user_location"].endswith("01_hello_world.py:19")
    assert "kernel_entry" in hello.text and hello.meta["platform"] == "a2a3sim"
    (launch,) = hello.launches
    return conformance.read_record(launch.path, with_bytes=True)


def test_a_recorded_launch_holds_the_context_the_scalars_and_the_bytes_around_the_kernel(self_run, tmp_path):
    records, _, _ = self_run
    record = hello_record(records)
    assert (record.function, record.not_replayable) == ("hello_world_incore_0", "")
    assert (record.block_idx, record.block_num, record.subblock_idx, record.core_type) == (0, 1, 0, 1)
    assert record.label == "examples/beginner/01_hello_world.py"
    a, b, out = [s for _, s in record.tensors()]
    for slot in (a, b, out):
        assert (slot.dtype_name, slot.shape, slot.strides, slot.nbytes) == ("FP32", (128, 128), (128, 1), 65536)
        assert slot.data == slot.lo
    assert a.before == a.after and b.before == b.after
    assert not np.frombuffer(out.before, np.float32).any()  # out = torch.zeros
    expected = np.frombuffer(a.before, np.float32) + np.frombuffer(b.before, np.float32)
    assert np.frombuffer(out.after, np.float32).tobytes() == expected.tobytes()
    # The format round-trips through the writer.
    conformance.write_record(record, tmp_path / "copy.rec")
    assert (tmp_path / "copy.rec").read_bytes() == record.path.read_bytes()


def test_a_differing_element_is_reported_with_its_index_values_and_ulps(self_run, cache, tmp_path, capsys):
    records, _, _ = self_run
    changed = tmp_path / "records"
    shutil.copytree(records, changed)
    record = hello_record(changed)
    out = record.slots[2]
    after = bytearray(out.after)
    index = 3 * 128 + 17
    (value,) = struct.unpack_from("<I", after, 4 * index)
    struct.pack_into("<I", after, 4 * index, value + 2)  # two ulps off
    out.after = bytes(after)
    conformance.write_record(record, record.path)
    status, text = run_tool(capsys, "--self", "--records", str(changed), "--cache-dir", str(cache), "--select",
                            "hello_world*")
    assert status == 1
    assert ("FAIL hello_world_incore_0: tensor out (slot 2, out_existing, FP32[128, 128]) differs (1 of 1 launches)"
            in text)
    assert "differs at [3, 17]" in text and "1 of 16384 elements differ, max 2 ulp" in text
    assert "stored at " in text and "01_hello_world.py:22" in text
    assert text.splitlines()[-1] == "0 passed, 1 failed"


def test_records_say_which_launches_cannot_be_replayed_alone(tmp_path, cache, capsys):
    source = tmp_path / "records" / "kernels"
    source.mkdir(parents=True)
    (source / "00000000000000aa.cpp").write_text("// a cluster kernel\n")
    (source / "00000000000000aa.json").write_text('{"function": "pipe_kernel"}')
    (tmp_path / "records" / "launches").mkdir()
    record = conformance.LaunchRecord(tmp_path, "00000000000000aa", "pipe_kernel",
                                      "a member of a cluster task: its kernels exchange tiles", "", 0, 1, 0, 0,
                                      [conformance.ScalarSlot(-5)])
    conformance.write_record(record, tmp_path / "records" / "launches" / "1-0.rec")
    back = conformance.read_record(tmp_path / "records" / "launches" / "1-0.rec")
    assert back.slots == [conformance.ScalarSlot(-5)] and back.not_replayable.startswith("a member of a cluster")
    status, text = run_tool(capsys, "--self", "--records", str(tmp_path / "records"), "--cache-dir", str(cache))
    assert status == 0
    assert text.splitlines()[0].startswith("SKIP pipe_kernel: not replayable yet: a member of a cluster task")
    assert text.splitlines()[-2:] == ["1 skipped (not replayable yet: 1)", "0 passed, 0 failed"]


@pytest.mark.skipif(not os.environ.get("PTO_ISA_ROOT"), reason="PTO_ISA_ROOT is not set")
def test_the_kernels_compile_and_match_against_the_real_pto_isa(self_run, cache, capsys):
    records, _, _ = self_run
    status, text = run_tool(capsys, "--pto-isa-root", os.environ["PTO_ISA_ROOT"], "--records", str(records),
                            "--cache-dir", str(cache))
    assert status == 0, text
    for line in EXPECTED_PASSES:
        assert line in text.splitlines(), text
    assert text.splitlines()[-1] == "3 passed, 0 failed"


def test_kernels_compiled_for_pto_isa_see_half_limits(tmp_path, cache):
    """pto-isa pads a half tile's PadValue::Max with numeric_limits<_Float16>::infinity(), which is 0 in a C++
    library without the specialization: the flags the tool compiles kernels with provide it where it is missing."""
    cxx = os.environ.get("CXX", "g++")
    root = tmp_path / "pto-isa"
    (root / "include" / "pto").mkdir(parents=True)
    (root / "include" / "pto" / "pto-inst.hpp").write_text("#pragma once\n#include <limits>\n")
    target, applied = conformance.real_target(root, cache, cxx, [])
    assert any("numeric_limits<_Float16>" in a for a in applied) == conformance.lacks_float16_limits(cxx)
    program = tmp_path / "limits.cpp"
    program.write_text("#include <cstdio>\n#include <pto/pto-inst.hpp>\nint main() {\n"
                       "  using L = std::numeric_limits<_Float16>;\n"
                       "  std::printf(\"%d %g %g %g %d\\n\", L::has_infinity, (double)L::infinity(), (double)L::max(),"
                       " (double)L::lowest(), (int)sizeof(int64_t));\n}\n")
    includes = [f"-I{d}" for d in target.include_dirs]
    built = subprocess.run([cxx, *target.kernel_flags, *includes, str(program), "-o", str(tmp_path / "limits")],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stderr
    ran = subprocess.run([str(tmp_path / "limits")], capture_output=True, text=True, check=True)
    assert ran.stdout.split() == ["1", "inf", "65504", "-65504", "8"]


def test_every_known_divergence_of_the_cpu_simulation_has_its_define_in_the_simulator():
    """A divergence's define must change what PyPTO's simulator computes, or the check it backs proves nothing."""
    isa = (Path(__file__).resolve().parents[3] / "sdk" / "include" / "pypto" / "isa" / "instructions.h").read_text()
    assert conformance.CPU_SIM_DIVERGENCES
    for divergence in conformance.CPU_SIM_DIVERGENCES:
        assert f"#ifdef {divergence.define}" in isa, divergence
        assert divergence.instruction and divergence.why
