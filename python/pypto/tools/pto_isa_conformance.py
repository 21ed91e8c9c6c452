"""PTO-ISA conformance: the kernels PyPTO generates, compiled unchanged against the real PTO-ISA headers, compute
the same bytes as on PyPTO's simulator.

    python -m pypto.tools.pto_isa_conformance --pto-isa-root DIR [--records DIR] [--select PATTERN] [-j N]
    python -m pypto.tools.pto_isa_conformance --self [...]

Without --records, it first runs the suite with launch recording on (PYPTO_RECORD_LAUNCHES, see
core/include/pypto/backend/launch_recorder.h): every example script under examples/ and the op end-to-end suite
(tests/python/e2e/test_ops.py), each kernel launch on a2a3sim writing its kernel source, its block's context, its
scalars and every tensor's bytes before and after. Then, per distinct kernel source, it compiles one replay binary
(the kernel as generated + pto_isa_replay.cpp) with g++ -std=c++20 -D__CPU_SIM against DIR/include (hw-native-sys/
pto-isa; a scratch copy with the GCC 12 fix, never DIR itself), replays every recorded launch of it and compares
each tensor's bytes after the kernel, bit for bit, with what the simulator wrote.

Where pto-isa's CPU simulation computes an instruction otherwise than the chip (CPU_SIM_DIVERGENCES: TCVT from
float to half ignores its rounding mode there), PyPTO's simulator follows the chip. A kernel that differs and uses
such an instruction is rebuilt against PyPTO's own headers with the divergence's define, which makes that one
instruction compute the CPU simulation's way; when that build gives pto-isa's bytes exactly, the kernel passes,
with a note naming the divergence, and the report counts those passes.

One line per kernel: PASS / FAIL / COMPILE-ERROR / SKIP, a count of the skips by reason, and last
``N passed, M failed``; the exit status is 1 when M > 0. --self compiles against PyPTO's own headers (sdk/include)
instead: a check of the recorder and the harness that needs no PTO-ISA checkout.
"""

from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import fnmatch
import hashlib
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

__all__ = ["TensorSlot", "ScalarSlot", "LaunchRecord", "KernelSource", "read_record", "write_record",
           "load_records", "IsaTarget", "real_target", "self_target", "main"]

REPO_ROOT = Path(__file__).resolve().parents[3]
HARNESS_SOURCE = Path(__file__).with_name("pto_isa_replay.cpp")
RECORD_MAGIC = b"PPTOREC1"
MAX_DIMS = 8
# The element types of the runtime's dtype codes (core/include/pypto/ir/dtype.h): name, numpy type of the bits,
# kind (f float, i signed, u unsigned, b bool, x compared as raw bits only).
DTYPES = {
    0x00: ("BOOL", np.uint8, "b"), 0x11: ("INT8", np.int8, "i"), 0x12: ("INT16", np.int16, "i"),
    0x13: ("INT32", np.int32, "i"), 0x14: ("INT64", np.int64, "i"), 0x15: ("INDEX", np.int64, "i"),
    0x21: ("UINT8", np.uint8, "u"), 0x22: ("UINT16", np.uint16, "u"), 0x23: ("UINT32", np.uint32, "u"),
    0x24: ("UINT64", np.uint64, "u"), 0x31: ("FP8E4M3FN", np.uint8, "x"), 0x32: ("FP8E5M2", np.uint8, "x"),
    0x33: ("FP16", np.float16, "f"), 0x34: ("FP32", np.float32, "f"), 0x35: ("FP64", np.float64, "f"),
    0x36: ("FP8E8M0", np.uint8, "x"), 0x40: ("BF16", np.uint16, "bf16"), 0x42: ("HF8", np.uint8, "x"),
    0x10: ("INT4", None, "x"), 0x20: ("UINT4", None, "x"), 0x30: ("FP4", None, "x"), 0x41: ("HF4", None, "x"),
}
BF16 = 0x40
DIRECTIONS = ("in", "out", "inout", "out_existing", "no_dep", "scalar")
CORE_TYPES = ("AIC", "AIV")
# The GCC 12 fix the scratch copy of PTO-ISA gets: a static_assert(false) in a template that GCC before 13 rejects
# even when the template is never instantiated (P2593), made dependent on the template's parameter.
GCC12_PATCHES = (("pto/cpu/TReduceIdx.hpp", 'static_assert(false, "Unsupported element cmp.")',
                  'static_assert(sizeof(DType) == 0, "Unsupported element cmp.")'),)
# What libstdc++ before GCC 13 lacks and pto-isa's CPU simulation relies on, force-included into its kernels
# where the compiler's C++ library lacks it.
GCC12_FLOAT16_LIMITS = Path(__file__).with_name("pto_isa_float16_limits.h")
SUITE_TIMEOUT_S = 900
REPLAY_TIMEOUT_S = 300
COMPILE_TIMEOUT_S = 300
LAUNCHES_PER_RUN = 64


# ---------------------------------------------------------------- records


@dataclasses.dataclass
class ScalarSlot:
    value: int  # the slot's 64 bits, signed


@dataclasses.dataclass
class TensorSlot:
    direction: int
    dtype: int
    shape: tuple[int, ...]
    strides: tuple[int, ...]
    data: int  # the simulator's address of element [0, ...]
    lo: int  # the lowest byte any element occupies
    nbytes: int
    before_offset: int = 0  # where the bytes lie in the record file
    after_offset: int = 0
    before: bytes | None = None  # when read with the bytes
    after: bytes | None = None

    @property
    def dtype_name(self) -> str:
        return DTYPES.get(self.dtype, (f"dtype {self.dtype:#x}",))[0]

    def describe(self) -> str:
        return f"{self.dtype_name}[{', '.join(map(str, self.shape))}]"


@dataclasses.dataclass
class LaunchRecord:
    path: Path
    kernel_hash: str
    function: str
    not_replayable: str
    label: str
    block_idx: int
    block_num: int
    subblock_idx: int
    core_type: int
    slots: list[ScalarSlot | TensorSlot]

    def tensors(self) -> list[tuple[int, TensorSlot]]:
        return [(i, s) for i, s in enumerate(self.slots) if isinstance(s, TensorSlot)]

    def where(self) -> str:
        core = CORE_TYPES[self.core_type] if 0 <= self.core_type < 2 else str(self.core_type)
        lane = f" lane {self.subblock_idx}" if self.core_type == 1 else ""
        return f"block {self.block_idx}/{self.block_num} {core}{lane}" + (f" ({self.label})" if self.label else "")


def read_record(path: Path | str, with_bytes: bool = False) -> LaunchRecord:
    """A launch record (format: core/include/pypto/backend/launch_recorder.h); the tensors' bytes only with_bytes."""
    path = Path(path)
    with open(path, "rb") as f:
        def take(n: int) -> bytes:
            data = f.read(n)
            if len(data) != n:
                raise ValueError(f"{path}: the launch record ends early")
            return data

        def get(fmt: str):
            return struct.unpack("<" + fmt, take(struct.calcsize("<" + fmt)))[0]

        def text() -> str:
            return take(get("I")).decode("utf-8", "replace")

        if take(8) != RECORD_MAGIC:
            raise ValueError(f"{path} is not a launch record")
        kernel_hash, function, not_replayable, label = text(), text(), text(), text()
        block_idx, block_num, subblock_idx, core_type = struct.unpack("<4i", take(16))
        slots: list[ScalarSlot | TensorSlot] = []
        for _ in range(get("I")):
            if get("I") == 0:
                slots.append(ScalarSlot(get("q")))
                continue
            direction, dtype, ndim = struct.unpack("<3i", take(12))
            shape = struct.unpack(f"<{MAX_DIMS}q", take(8 * MAX_DIMS))[:ndim]
            strides = struct.unpack(f"<{MAX_DIMS}q", take(8 * MAX_DIMS))[:ndim]
            data, lo, nbytes = struct.unpack("<3Q", take(24))
            slot = TensorSlot(direction, dtype, tuple(shape), tuple(strides), data, lo, nbytes)
            slot.before_offset = f.tell()
            slot.after_offset = slot.before_offset + nbytes
            if with_bytes:
                slot.before, slot.after = take(nbytes), take(nbytes)
            else:
                f.seek(2 * nbytes, os.SEEK_CUR)
            slots.append(slot)
    return LaunchRecord(path, kernel_hash, function, not_replayable, label, block_idx, block_num, subblock_idx,
                        core_type, slots)


def write_record(record: LaunchRecord, path: Path | str) -> None:
    """Writes `record` (its tensors must hold their bytes) in the recorder's format."""
    def text(s: str) -> bytes:
        data = s.encode()
        return struct.pack("<I", len(data)) + data

    out = [RECORD_MAGIC, text(record.kernel_hash), text(record.function), text(record.not_replayable),
           text(record.label), struct.pack("<4i", record.block_idx, record.block_num, record.subblock_idx,
                                           record.core_type), struct.pack("<I", len(record.slots))]
    for slot in record.slots:
        if isinstance(slot, ScalarSlot):
            out.append(struct.pack("<Iq", 0, slot.value))
            continue
        pad = MAX_DIMS - len(slot.shape)
        out.append(struct.pack("<I3i", 1, slot.direction, slot.dtype, len(slot.shape)))
        out.append(struct.pack(f"<{MAX_DIMS}q", *slot.shape, *([0] * pad)))
        out.append(struct.pack(f"<{MAX_DIMS}q", *slot.strides, *([0] * pad)))
        out.append(struct.pack("<3Q", slot.data, slot.lo, slot.nbytes))
        assert slot.before is not None and slot.after is not None and len(slot.before) == len(slot.after) == slot.nbytes
        out += [slot.before, slot.after]
    Path(path).write_bytes(b"".join(out))


def slot_bytes(slot: TensorSlot, record_path: Path, which: str) -> bytes:
    cached = slot.before if which == "before" else slot.after
    if cached is not None:
        return cached
    with open(record_path, "rb") as f:
        f.seek(slot.before_offset if which == "before" else slot.after_offset)
        return f.read(slot.nbytes)


@dataclasses.dataclass
class KernelSource:
    hash: str
    path: Path  # records/kernels/<hash>.cpp
    meta: dict
    launches: list[LaunchRecord] = dataclasses.field(default_factory=list)
    name: str = ""

    @property
    def function(self) -> str:
        return self.meta.get("function", self.hash)

    @property
    def text(self) -> str:
        return self.path.read_text()


def load_records(records: Path) -> dict[str, KernelSource]:
    """The kernels of a record folder by source hash, each with its launches (bytes not read)."""
    kernels: dict[str, KernelSource] = {}
    for source in sorted((records / "kernels").glob("*.cpp")):
        meta_path = source.with_suffix(".json")
        meta = json.loads(meta_path.read_text()) if meta_path.exists() else {}
        kernels[source.stem] = KernelSource(source.stem, source, meta)
    for path in sorted((records / "launches").glob("*.rec"), key=_record_order):
        record = read_record(path)
        kernel = kernels.get(record.kernel_hash)
        if kernel is not None:
            kernel.launches.append(record)
    by_function = Counter(k.function for k in kernels.values())
    for k in kernels.values():
        k.name = k.function if by_function[k.function] == 1 else f"{k.function}[{k.hash[:8]}]"
    return kernels


def _record_order(path: Path):
    pid, _, seq = path.stem.partition("-")
    return (int(pid) if pid.isdigit() else 0, int(seq) if seq.isdigit() else 0, path.name)


# ---------------------------------------------------------------- the headers a kernel compiles against


@dataclasses.dataclass
class IsaTarget:
    """What the replay binaries compile against."""
    name: str  # "pto-isa" or "pypto (self)"
    include_dirs: list[Path]
    kernel_flags: list[str]
    harness_flags: list[str]
    identity: str  # enters the cache key
    real: bool


def _tree_hash(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        h.update(str(path.relative_to(root)).encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _compiler_identity(cxx: str) -> str:
    try:
        return subprocess.run([cxx, "--version"], capture_output=True, text=True, timeout=30).stdout.splitlines()[0]
    except (OSError, IndexError, subprocess.SubprocessError):
        return cxx


def _gcc_major(cxx: str) -> int | None:
    try:
        out = subprocess.run([cxx, "-dumpfullversion", "-dumpversion"], capture_output=True, text=True, timeout=30)
        ident = _compiler_identity(cxx)
        if "clang" in ident.lower():
            return None
        return int(out.stdout.strip().split(".")[0])
    except (OSError, ValueError, subprocess.SubprocessError):
        return None


def abi_include_dir(cache: Path) -> Path:
    """A folder holding only pypto/runtime/kernel_args.h and c_api.h (the kernel ABI), so that the real
    <pto/pto-inst.hpp> is not shadowed by PyPTO's own under the same name."""
    headers = {}
    for base in _pypto_include_dirs():
        for name in ("kernel_args.h", "c_api.h"):
            p = base / "pypto" / "runtime" / name
            if p.exists() and name not in headers:
                headers[name] = p.read_bytes()
    if len(headers) != 2:
        raise SystemExit("pto_isa_conformance: cannot find pypto/runtime/kernel_args.h and c_api.h")
    key = hashlib.sha256(headers["kernel_args.h"] + headers["c_api.h"]).hexdigest()[:16]
    out = cache / f"abi-{key}"
    if not (out / "pypto" / "runtime" / "c_api.h").exists():
        tmp = Path(tempfile.mkdtemp(dir=cache, prefix="abi-tmp"))
        (tmp / "pypto" / "runtime").mkdir(parents=True)
        for name, data in headers.items():
            (tmp / "pypto" / "runtime" / name).write_bytes(data)
        _rename_into_place(tmp, out)
    return out


def _pypto_include_dirs() -> list[Path]:
    """PyPTO's kernel headers: the source tree's sdk/include and core/include, else the installed include folder."""
    source = [REPO_ROOT / "sdk" / "include", REPO_ROOT / "core" / "include"]
    if all(d.is_dir() for d in source) and (source[0] / "pto" / "pto-inst.hpp").exists():
        return source
    installed = Path(__file__).resolve().parents[1] / "include"
    return [installed]


def _rename_into_place(tmp: Path, final: Path) -> None:
    try:
        tmp.rename(final)
    except OSError:  # another process made it first
        shutil.rmtree(tmp, ignore_errors=True)


def pto_isa_include(root: Path) -> Path:
    for candidate in (root / "include", root):
        if (candidate / "pto" / "pto-inst.hpp").is_file():
            return candidate
    raise SystemExit(f"pto_isa_conformance: {root} holds no include/pto/pto-inst.hpp; --pto-isa-root (or "
                     "PTO_ISA_ROOT) must name a checkout of hw-native-sys/pto-isa")


def scratch_pto_isa(root: Path, cache: Path, cxx: str) -> tuple[Path, list[str]]:
    """A copy of root's include folder under `cache`, with the GCC 12 fix where the compiler needs it; `root` is
    never written. Returns the copy's include folder and the patches applied."""
    include = pto_isa_include(root)
    gcc = _gcc_major(cxx)
    patch = gcc is not None and gcc < 13
    key = _tree_hash(include) + ("-gcc12" if patch else "")
    out = cache / f"pto-isa-{key}"
    applied = []
    if patch:
        for rel, old, new in GCC12_PATCHES:
            if (include / rel).is_file() and old in (include / rel).read_text(errors="replace"):
                applied.append(f"{rel}: {old} -> {new}")
    if not (out / "include").is_dir():
        tmp = Path(tempfile.mkdtemp(dir=cache, prefix="pto-isa-tmp"))
        shutil.copytree(include, tmp / "include", symlinks=False)
        if patch:
            for rel, old, new in GCC12_PATCHES:
                p = tmp / "include" / rel
                if p.exists():
                    p.write_text(p.read_text(errors="replace").replace(old, new))
        _rename_into_place(tmp, out)
    return out / "include", applied


def lacks_float16_limits(cxx: str) -> bool:
    """Whether cxx's C++ library has no std::numeric_limits<_Float16> (libstdc++ before 13, with g++ or clang++)."""
    probe = "#include <limits>\nstatic_assert(std::numeric_limits<_Float16>::is_specialized);\n"
    try:
        done = subprocess.run([cxx, "-std=c++20", "-fsyntax-only", "-x", "c++", "-"], input=probe, capture_output=True,
                              text=True, timeout=COMPILE_TIMEOUT_S)
    except (OSError, subprocess.SubprocessError):
        return False
    return done.returncode != 0


def real_target(root: Path, cache: Path, cxx: str, cxxflags: list[str]) -> tuple[IsaTarget, list[str]]:
    include, applied = scratch_pto_isa(root, cache, cxx)
    abi = abi_include_dir(cache)
    forced = ["-include", "cstdint"]
    if lacks_float16_limits(cxx):
        forced += ["-include", str(GCC12_FLOAT16_LIMITS)]
        applied.append(f"std::numeric_limits<_Float16> (which {cxx}'s C++ library lacks) from "
                       f"{GCC12_FLOAT16_LIMITS.name}")
    kernel_flags = ["-std=c++20", "-O1", "-D__CPU_SIM", *forced, *cxxflags]
    return IsaTarget("pto-isa", [include, abi], kernel_flags, ["-std=c++20", "-O1"],
                     f"{include.parent.name}|{_compiler_identity(cxx)}", True), applied


def self_target(cache: Path, cxx: str, cxxflags: list[str]) -> IsaTarget:
    dirs = _pypto_include_dirs()
    identity = hashlib.sha256()
    for d in dirs:
        for sub in ("pto", "pypto/isa", "pypto/runtime"):
            if (d / sub).is_dir():
                identity.update(_tree_hash(d / sub).encode())
    # What the simulator's in-process Clang does (jit/cxx_compiler.cpp, backend/toolchain.cpp): -march=native and
    # Clang's default contraction of a * b + c into an FMA, which g++ in ISO mode only does with -ffp-contract=fast.
    kernel_flags = ["-std=c++20", "-O2", "-march=native", "-ffp-contract=fast", "-fno-math-errno", *cxxflags]
    return IsaTarget("pypto (self)", dirs, kernel_flags, ["-std=c++20", "-O1", "-DPYPTO_REPLAY_SELF"],
                     f"self-{identity.hexdigest()[:16]}|{_compiler_identity(cxx)}", False)


# ---------------------------------------------------------------- compiling


@dataclasses.dataclass
class Build:
    binary: Path | None = None
    object_only: bool = False
    error: str = ""  # the first error line
    log: Path | None = None


def _first_error(log: str) -> str:
    for line in log.splitlines():
        if "error:" in line or "error :" in line:
            return line.strip()
    lines = [l for l in log.splitlines() if l.strip()]
    return lines[0].strip() if lines else "the compiler failed without a message"


def _run(command: list[str], timeout: int, cwd: Path | None = None) -> subprocess.CompletedProcess:
    try:
        return subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=cwd)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(command, 124, e.stdout or "", f"timed out after {timeout} s\n")


def harness_object(target: IsaTarget, cache: Path, cxx: str) -> Path:
    text = HARNESS_SOURCE.read_bytes()
    key = hashlib.sha256(text + target.identity.encode() + " ".join(target.harness_flags).encode()).hexdigest()[:16]
    obj = cache / "harness" / f"replay-{key}.o"
    if obj.exists():
        return obj
    obj.parent.mkdir(parents=True, exist_ok=True)
    tmp = obj.with_suffix(f".{os.getpid()}.o")
    includes = [f"-I{d}" for d in target.include_dirs]
    result = _run([cxx, *target.harness_flags, *includes, "-c", str(HARNESS_SOURCE), "-o", str(tmp)],
                  COMPILE_TIMEOUT_S)
    if result.returncode != 0:
        raise SystemExit(f"pto_isa_conformance: the replay harness does not compile:\n{result.stderr}")
    os.replace(tmp, obj)
    return obj


def compile_kernel(kernel: KernelSource, target: IsaTarget, cache: Path, cxx: str, harness: Path,
                   link: bool) -> Build:
    """The kernel's replay binary (or, link=False, only its object: a kernel that cannot be replayed still shows
    whether it compiles), cached by everything that goes into it."""
    extra = [Path(d) for d in kernel.meta.get("include_dirs", [])]
    includes = [f"-I{d}" for d in [*target.include_dirs, *extra]]
    key = hashlib.sha256("\0".join([kernel.text, target.identity, " ".join(target.kernel_flags), *includes,
                                    harness.name, str(link)]).encode()).hexdigest()[:20]
    folder = cache / "kernels" / key
    binary = folder / ("replay" if link else "kernel.o")
    log = folder / "compile.log"
    if binary.exists():
        return Build(binary, not link, log=log)
    if log.exists():  # a cached failure
        return Build(None, not link, _first_error(log.read_text()), log)
    folder.mkdir(parents=True, exist_ok=True)
    obj = folder / f"kernel.{os.getpid()}.o"
    result = _run([cxx, *target.kernel_flags, *includes, "-fdiagnostics-color=never", "-c", str(kernel.path),
                   "-o", str(obj)], COMPILE_TIMEOUT_S)
    if result.returncode == 0 and link:
        linked = _run([cxx, str(obj), str(harness), "-lpthread", "-o", str(folder / f"replay.{os.getpid()}")],
                      COMPILE_TIMEOUT_S)
        result = subprocess.CompletedProcess(result.args, linked.returncode, result.stdout,
                                             result.stderr + linked.stderr)
        if linked.returncode == 0:
            os.replace(folder / f"replay.{os.getpid()}", binary)
    elif result.returncode == 0:
        os.replace(obj, binary)
    obj.unlink(missing_ok=True)
    if result.returncode != 0:
        log.write_text(result.stderr + result.stdout)
        return Build(None, not link, _first_error(result.stderr + result.stdout), log)
    return Build(binary, not link, log=log)


def compile_error_instruction(kernel: KernelSource, log: str) -> str:
    """The ISA instruction on the kernel line a compile error points at (the first one naming the kernel file)."""
    lines = kernel.text.splitlines()
    for m in re.finditer(re.escape(kernel.path.name) + r":(\d+):", log):
        n = int(m.group(1))
        if 0 < n <= len(lines):
            found = re.findall(r"\b([A-Z][A-Z0-9_]{2,})\s*(?:<[^;]*?>)?\s*\(", lines[n - 1])
            if found:
                return found[0]
            found = re.findall(r"\b(Tile|GlobalTensor|TileLeft|TileRight|TileAcc|Shape|Stride)\b", lines[n - 1])
            if found:
                return found[0]
    return "?"


# ---------------------------------------------------------------- replaying and comparing


def instructions_of(text: str) -> set[str]:
    return set(re.findall(r"\b(T[A-Z][A-Z0-9_]*)\s*(?:<[^;()]*>)?\s*\(", text))


def slot_names(text: str) -> dict[int, str]:
    """The kernel's name for each argument slot, from its kernel_entry's unpacking."""
    names = {}
    for m in re.finditer(r"(\w+)\s*=\s*reinterpret_cast<[^>]*>\(args\[(\d+)\]\)", text):
        names[int(m.group(2))] = m.group(1).removesuffix("_tensor")
    for m in re.finditer(r"(\w+)\s*=\s*\(?[\w ]*\)?\s*args\[(\d+)\]", text):
        names.setdefault(int(m.group(2)), m.group(1))
    return names


def store_lines(text: str, tensor: str) -> list[str]:
    """The user's source lines of the kernel's TSTOREs into `tensor` (their trailing '// file:line' comments)."""
    decl = {}
    for line in text.splitlines():
        m = re.search(r">\s+(\w+)\((.*)$", line)
        if m:
            decl[m.group(1)] = m.group(2)
    out = []
    for line in text.splitlines():
        m = re.search(r"\bTSTORE\(\s*(\w+)\s*,.*//\s*(\S+:\d+)", line)
        if not m:
            continue
        src = decl.get(m.group(1), "")
        if re.search(rf"\b{re.escape(tensor)}(\.data\(\)|_tensor\b)", src) or m.group(1) == tensor:
            out.append(m.group(2))
    return sorted(set(out))


def element_offsets(slot: TensorSlot, itemsize: int) -> np.ndarray:
    """Each element's offset from `lo` in elements, in row-major order of the view."""
    offset = (slot.data - slot.lo) // itemsize
    idx = np.zeros((1,) * len(slot.shape), dtype=np.int64) + offset
    for d, (n, s) in enumerate(zip(slot.shape, slot.strides)):
        shape = [1] * len(slot.shape)
        shape[d] = n
        idx = idx + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    return idx.reshape(-1) if len(slot.shape) else idx.reshape(1)


def _ordered(bits: np.ndarray, width: int) -> np.ndarray:
    """Float bit patterns as integers whose difference counts ulps."""
    signed = bits.astype(np.int64)
    signed = np.where(signed >= 1 << (width - 1), signed - (1 << width), signed)
    return np.where(signed < 0, -(1 << (width - 1)) - signed, signed)


def _value(bits: int, kind: str, np_type) -> str:
    if kind == "f":
        v = np.array([bits], dtype=np.uint64).astype(np.dtype(np_type).str.replace("f", "u"))
        return f"{v.view(np_type)[0]} ({bits:#0{2 + 2 * np.dtype(np_type).itemsize}x})"
    if kind == "bf16":
        f = np.array([bits << 16], dtype=np.uint32).view(np.float32)[0]
        return f"{f} ({bits:#06x})"
    if kind == "x":
        return f"{bits:#x}"
    unsigned = np.dtype(f"u{np.dtype(np_type).itemsize}")
    return str(np.array([bits], dtype=unsigned).view(np_type)[0])  # the bits as the (signed) integer type


def compare_tensor(slot: TensorSlot, expected: bytes, actual: bytes) -> str | None:
    """None when the bytes are the same; else what differs: the first differing element (row-major index of the
    view), both values, how many elements differ and by how many ulps at most."""
    if expected == actual:
        return None
    name, np_type, kind = DTYPES.get(slot.dtype, (f"dtype {slot.dtype:#x}", None, "x"))
    if np_type is None or len(expected) != len(actual) or len(expected) % np.dtype(np_type).itemsize:
        a, b = np.frombuffer(expected, np.uint8), np.frombuffer(actual, np.uint8)
        n = min(len(a), len(b))
        first = int(np.argmax(a[:n] != b[:n])) if n and (a[:n] != b[:n]).any() else n
        return f"byte {first} of its extent differs ({len(expected)} vs {len(actual)} bytes)"
    itemsize = np.dtype(np_type).itemsize
    unsigned = np.dtype(f"u{itemsize}")
    sim = np.frombuffer(expected, unsigned)
    rep = np.frombuffer(actual, unsigned)
    offsets = element_offsets(slot, itemsize)
    a, b = sim[offsets], rep[offsets]
    differ = a != b
    if not differ.any():
        first = int(np.argmax(sim != rep))
        return f"bytes between the view's elements changed (element {first} of its extent)"
    flat = int(np.argmax(differ))
    index = list(np.unravel_index(flat, slot.shape)) if slot.shape else []
    count = int(differ.sum())
    text = (f"differs at [{', '.join(map(str, map(int, index)))}]: a2a3sim {_value(int(a[flat]), kind, np_type)} vs "
            f"replay {_value(int(b[flat]), kind, np_type)}; {count} of {differ.size} elements differ")
    if kind in ("f", "bf16"):
        ulp = np.abs(_ordered(a[differ], itemsize * 8) - _ordered(b[differ], itemsize * 8))
        text += f", max {int(ulp.max())} ulp"
    elif kind in ("i", "u"):
        va = a[differ].view(np.dtype(np_type)).astype(np.float64)
        vb = b[differ].view(np.dtype(np_type)).astype(np.float64)
        text += f", max |difference| {int(np.abs(va - vb).max())}"
    return text


@dataclasses.dataclass
class Result:
    kernel: KernelSource
    status: str  # PASS FAIL COMPILE-ERROR SKIP
    reason: str = ""
    details: list[str] = dataclasses.field(default_factory=list)
    replayed: int = 0
    not_replayable: int = 0
    skip_kind: str = ""  # "not replayable yet", "not comparable", "never launched"
    error_instruction: str = ""
    differing: list[str] = dataclasses.field(default_factory=list)  # the tensors that differ (FAIL)
    divergence: str = ""  # PASS: the known divergence of pto-isa's CPU simulation that explains every difference


def replay_outputs(kernel: KernelSource, build: Build, launches: list[LaunchRecord],
                   work: Path) -> tuple[list[bytes], list[str]] | Result:
    """What the replay binary writes for each launch (its tensors' bytes, in slot order) and the notes it prints,
    or the FAIL Result of a replay that crashed."""
    out_root = Path(tempfile.mkdtemp(dir=work, prefix=f"replay-{kernel.hash[:8]}-"))
    try:
        outputs: list[bytes] = []
        notes: list[str] = []
        for start in range(0, len(launches), LAUNCHES_PER_RUN):
            batch = launches[start:start + LAUNCHES_PER_RUN]
            out = out_root / str(start)
            out.mkdir()
            result = _run([str(build.binary), str(out), *(str(r.path) for r in batch)], REPLAY_TIMEOUT_S)
            begun = [int(m) for m in re.findall(r"^BEGIN (\d+)$", result.stdout, re.M)]
            ended = {int(m) for m in re.findall(r"^END (\d+)$", result.stdout, re.M)}
            notes += [f"{batch[int(m.group(1))].where()}: {m.group(2)}"
                      for m in re.finditer(r"^NOTE (\d+) (.*)$", result.stdout, re.M)]
            if result.returncode != 0:
                k = begun[-1] if begun and begun[-1] not in ended else None
                how = (f"signal {-result.returncode}" if result.returncode < 0 else
                       "timed out" if result.returncode == 124 else f"exit status {result.returncode}")
                at = f" replaying {batch[k].where()} ({batch[k].path.name})" if k is not None else ""
                err = result.stderr.strip().splitlines()
                return Result(kernel, "FAIL", f"the replay crashed ({how}){at}",
                              [f"stderr: {err[-1]}"] if err else [])
            outputs += [(out / f"{k}.out").read_bytes() for k in range(len(batch))]
        return outputs, notes
    finally:
        shutil.rmtree(out_root, ignore_errors=True)


def compare_replay(kernel: KernelSource, launches: list[LaunchRecord], outputs: list[bytes],
                   notes: list[str]) -> Result:
    """PASS when every launch's replayed tensors are the recorded a2a3sim bytes; else FAIL naming them."""
    names = slot_names(kernel.text)
    failures: list[tuple[LaunchRecord, str, str]] = []
    for record, produced in zip(launches, outputs):
        at = 0
        for slot_index, slot in record.tensors():
            actual = produced[at:at + slot.nbytes]
            at += slot.nbytes
            expected = slot_bytes(slot, record.path, "after")
            diff = compare_tensor(slot, expected, actual)
            if diff is not None:
                name = names.get(slot_index, f"slot {slot_index}")
                stores = store_lines(kernel.text, name)
                where = f"; stored at {', '.join(stores)}" if stores else ""
                failures.append((record, name, f"tensor {name} (slot {slot_index}, "
                                     f"{DIRECTIONS[slot.direction] if 0 <= slot.direction < 6 else '?'}, "
                                     f"{slot.describe()}) {diff}{where}"))
    if not failures:
        return Result(kernel, "PASS", "", [f"note: {n}" for n in notes[:3]], replayed=len(launches))
    differing_launches = len({id(record) for record, _, _ in failures})
    details = [f"kernel {kernel.path}" + (f" (from {kernel.meta['user_location']})"
                                          if kernel.meta.get("user_location") else "")]
    tensors: dict[str, int] = {}
    for record, name, text in failures:  # each differing tensor once, from the first launch it differs in
        if name not in tensors:
            tensors[name] = 0
            details += [text, f"  in launch {record.where()}, record {record.path}"]
        tensors[name] += 1
    details += [f"note: {n}" for n in notes[:3]]
    first = failures[0][2]
    short = first.split(" differs at ")[0] if " differs at " in first else first
    more = f" and {len(tensors) - 1} more tensor{'s' if len(tensors) > 2 else ''}" if len(tensors) > 1 else ""
    return Result(kernel, "FAIL", f"{short}{more} differ{'s' if not more else ''} ({differing_launches} of "
                                  f"{len(launches)} launches)", details, replayed=len(launches),
                  differing=list(tensors))


# ---------------------------------------------------------------- known divergences of pto-isa's CPU simulation


@dataclasses.dataclass(frozen=True)
class CpuSimDivergence:
    """An instruction that pto-isa's CPU simulation computes otherwise than the chip, where PyPTO's simulator
    follows the chip. Built with `define`, PyPTO's simulator computes it the CPU simulation's way instead: a kernel
    whose replay against pto-isa then matches that build byte for byte differs from a2a3sim only there."""
    instruction: str
    define: str
    what: str
    why: str


CPU_SIM_DIVERGENCES = (
    CpuSimDivergence(
        "TCVT", "PYPTO_TCVT_FLOAT_MODES_AS_PTO_ISA_CPU_SIM",
        "TCVT from float to half rounds to nearest even whatever its RoundMode",
        "pto/cpu/TCvt.hpp converts between float types with a plain cast; the chip applies the mode "
        "(pto/npu/a2a3/TCvt.hpp: vconv_f322f16a/f/c/z/o for ROUND, FLOOR, CEIL, TRUNC, ODD), and so does a2a3sim"),
)


@dataclasses.dataclass
class DivergenceCheck:
    """PyPTO's own headers, to rebuild a differing kernel with a divergence's define (see CpuSimDivergence)."""
    target: IsaTarget
    harness: Path


def explaining_divergence(kernel: KernelSource, theirs: list[bytes], launches: list[LaunchRecord],
                          check: DivergenceCheck, cache: Path, cxx: str, work: Path) -> CpuSimDivergence | None:
    """The known divergence, if any, under which PyPTO's simulator computes exactly `theirs`, pto-isa's bytes."""
    candidates = [d for d in CPU_SIM_DIVERGENCES if d.instruction in instructions_of(kernel.text)]
    for divergence in candidates:
        target = dataclasses.replace(check.target,
                                     kernel_flags=[*check.target.kernel_flags, f"-D{divergence.define}=1"])
        ours_build = compile_kernel(kernel, target, cache, cxx, check.harness, link=True)
        if ours_build.binary is None:
            continue
        ours = replay_outputs(kernel, ours_build, launches, work)
        if not isinstance(ours, Result) and ours[0] == theirs:
            return divergence
    return None


def uses_bf16(kernel: KernelSource) -> bool:
    if any(isinstance(s, TensorSlot) and s.dtype == BF16 for r in kernel.launches for s in r.slots):
        return True
    return bool(re.search(r"\bbfloat16_t\b|\bbfloat16\b|\bbf16\b", kernel.text))


def check_kernel(kernel: KernelSource, target: IsaTarget, cache: Path, cxx: str, harness: Path,
                 work: Path, divergences: DivergenceCheck | None = None) -> Result:
    replayable = [r for r in kernel.launches if not r.not_replayable]
    skipped = len(kernel.launches) - len(replayable)
    skip = ""
    if not kernel.launches:
        skip, kind = "never launched (only compiled)", "never launched"
    elif not replayable:
        skip, kind = f"not replayable yet: {kernel.launches[0].not_replayable}", "not replayable yet"
    elif target.real and uses_bf16(kernel):
        skip, kind = ("not comparable: BF16 (pto-isa's CPU simulation, C++20, takes bfloat16_t for a half-precision "
                      "float, so its results are not the BF16 ones)"), "not comparable"
    build = compile_kernel(kernel, target, cache, cxx, harness, link=not skip)
    if build.binary is None:
        log = build.log.read_text() if build.log and build.log.exists() else ""
        instr = compile_error_instruction(kernel, log)
        details = [f"kernel {kernel.path}" + (f" (from {kernel.meta['user_location']})"
                                              if kernel.meta.get("user_location") else ""),
                   f"instruction: {instr}", f"log: {build.log}"]
        if skip:
            return Result(kernel, "SKIP", f"{skip}; and it does not compile: {build.error}", details,
                          not_replayable=skipped, skip_kind=kind, error_instruction=instr)
        return Result(kernel, "COMPILE-ERROR", build.error, details, not_replayable=skipped, error_instruction=instr)
    if skip:
        return Result(kernel, "SKIP", skip + " (it compiles)", not_replayable=skipped, skip_kind=kind)
    replayed = replay_outputs(kernel, build, replayable, work)
    if isinstance(replayed, Result):
        replayed.not_replayable = skipped
        return replayed
    result = compare_replay(kernel, replayable, *replayed)
    if result.status == "FAIL" and divergences is not None:
        divergence = explaining_divergence(kernel, replayed[0], replayable, divergences, cache, cxx, work)
        if divergence is not None:
            result = Result(kernel, "PASS", details=[
                f"note: differs from a2a3sim only where pto-isa's CPU simulation departs from the chip: "
                f"{divergence.what} ({divergence.why}); a2a3sim built with -D{divergence.define} computes "
                f"pto-isa's bytes exactly", *result.details], replayed=result.replayed, divergence=divergence.what)
    result.not_replayable = skipped
    return result


# ---------------------------------------------------------------- running the suite with recording on


def _matches(text: str, patterns: list[str]) -> bool:
    if not patterns:
        return True
    return any(fnmatch.fnmatchcase(text, p if any(c in p for c in "*?[") else f"*{p}*") for p in patterns)


def selected_kernel(kernel: KernelSource, patterns: list[str]) -> bool:
    """Whether --select keeps the kernel: its function name, its user source or a launch's label matches."""
    if not patterns:
        return True
    return (_matches(kernel.function, patterns) or _matches(kernel.meta.get("user_location", ""), patterns)
            or any(_matches(r.label, patterns) for r in kernel.launches))


def example_scripts(root: Path) -> list[Path]:
    return sorted(p for p in (root / "examples").rglob("*.py") if not p.name.startswith("_"))


def record_suite(records: Path, work: Path, args) -> list[str]:
    """Runs the examples and the op suite with recording on; returns notes on what did not run cleanly."""
    records.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYPTO_RECORD_LAUNCHES=str(records),
               PYPTO_RECORD_MAX_PER_KERNEL=str(args.max_launches),
               PYPTO_PROG_BUILD_DIR=str(work / "build_output"))
    env.pop("PYTEST_CURRENT_TEST", None)
    notes: list[str] = []
    jobs = []
    root = args.repo
    if "examples" in args.suite:
        for script in example_scripts(root):
            rel = script.relative_to(root).as_posix()
            if _matches(rel, args.examples or []) or _matches(rel.removeprefix("examples/"), args.examples or []):
                jobs.append(("example", rel, [sys.executable, str(script)]))
    if "ops" in args.suite:
        command = [sys.executable, "-m", "pytest", str(root / "tests" / "python" / "e2e" / "test_ops.py"), "-q",
                   "-p", "no:cacheprovider"]
        if args.ops_k:
            command += ["-k", args.ops_k]
        if args.jobs > 1:
            command += ["-n", str(args.jobs)]
        jobs.append(("ops", "tests/python/e2e/test_ops.py", command))

    def run(job):
        kind, name, command = job
        start = time.monotonic()
        job_env = dict(env, PYPTO_RECORD_LABEL=name)
        cwd = root if kind == "ops" else Path(tempfile.mkdtemp(dir=work, prefix="run-"))
        try:
            result = subprocess.run(command, cwd=cwd, env=job_env, capture_output=True, text=True,
                                    timeout=SUITE_TIMEOUT_S)
            status = result.returncode
            tail = (result.stdout + result.stderr).strip().splitlines()[-1:] if status else []
        except subprocess.TimeoutExpired:
            status, tail = 124, [f"timed out after {SUITE_TIMEOUT_S} s"]
        took = time.monotonic() - start
        if not args.quiet:
            print(f"  recorded {name} ({took:.0f} s{'' if status == 0 else f', exit status {status}'})",
                  file=sys.stderr, flush=True)
        return None if status == 0 else f"{name} exited with status {status}: {' '.join(tail)[:300]}"

    # The op suite runs its own workers; the examples share the rest.
    ops_jobs = [j for j in jobs if j[0] == "ops"]
    example_jobs = [j for j in jobs if j[0] != "ops"]
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = [pool.submit(run, j) for j in example_jobs]
        notes += [n for n in (f.result() for f in futures) if n]
    for j in ops_jobs:
        note = run(j)
        if note:
            notes.append(note)
    return notes


# ---------------------------------------------------------------- the report


def _failure_table(results: list[Result]) -> list[str]:
    lines = []
    compile_errors = Counter()
    skipped = Counter()
    for r in results:
        if r.status == "COMPILE-ERROR" or (r.status == "SKIP" and r.error_instruction):
            msg = re.sub(r"^.*?error:\s*", "", r.reason.split("; and it does not compile: ")[-1])
            msg = re.sub(r"[‘'][^’']*[’']", "'…'", msg)  # the types and names in quotes
            msg = re.sub(r"\(.*", "(…)", msg)[:120]
            compile_errors[(r.error_instruction, msg)] += 1
            if r.status == "SKIP":
                skipped[(r.error_instruction, msg)] += 1
    if compile_errors:
        lines.append("compile errors by instruction (kernels; of them skipped):")
        for (instr, msg), n in compile_errors.most_common():
            of_skipped = f" ({skipped[(instr, msg)]} skipped)" if skipped[(instr, msg)] else ""
            lines.append(f"  {n:4d}  {instr}: {msg}{of_skipped}")
    failing = [r for r in results if r.status == "FAIL"]
    passing = [r for r in results if r.status == "PASS"]
    if failing:
        used_ok = Counter(i for r in passing for i in instructions_of(r.kernel.text))
        only_failing = Counter(i for r in failing for i in instructions_of(r.kernel.text) if not used_ok[i])
        lines.append("instructions of the differing kernels that no passing kernel uses:")
        if only_failing:
            for instr, n in only_failing.most_common():
                lines.append(f"  {n:4d}  {instr}")
        else:
            lines.append("     (none: every instruction of a differing kernel also appears in a passing one)")
    return lines


def print_report(results: list[Result], target: IsaTarget, notes: list[str], out=None) -> int:
    out = out or sys.stdout
    for r in sorted(results, key=lambda r: r.kernel.name):
        if r.status == "PASS":
            extra = f"; {r.not_replayable} not replayable" if r.not_replayable else ""
            extra += "; up to a known divergence of pto-isa's CPU simulation" if r.divergence else ""
            print(f"PASS {r.kernel.name} ({r.replayed} launch{'es' if r.replayed != 1 else ''}{extra})", file=out)
        else:
            print(f"{r.status} {r.kernel.name}: {r.reason}", file=out)
        if r.status != "SKIP" or r.error_instruction:
            for d in r.details:
                print(f"    {d}", file=out)
    for n in notes:
        print(f"NOTE {n}", file=out)
    table = _failure_table(results)
    for line in table:
        print(line, file=out)
    skips = Counter(r.skip_kind for r in results if r.status == "SKIP")
    by_kind = ", ".join(f"{k}: {n}" for k, n in sorted(skips.items()))
    print(f"{sum(skips.values())} skipped" + (f" ({by_kind})" if by_kind else ""), file=out)
    passed = sum(r.status == "PASS" for r in results)
    failed = sum(r.status in ("FAIL", "COMPILE-ERROR") for r in results)
    for what, n in Counter(r.divergence for r in results if r.divergence).most_common():
        print(f"{n} of the passes differ from a2a3sim only where pto-isa's CPU simulation departs from the chip: "
              f"{what}", file=out)
    print(f"{passed} passed, {failed} failed", file=out, flush=True)
    return failed


def default_cache() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "pypto" / "pto_isa_conformance"


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m pypto.tools.pto_isa_conformance", description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pto-isa-root", type=Path, default=os.environ.get("PTO_ISA_ROOT") or None,
                   help="a hw-native-sys/pto-isa checkout (its include/ is used); default $PTO_ISA_ROOT")
    p.add_argument("--self", dest="self_check", action="store_true",
                   help="compile against PyPTO's own <pto/pto-inst.hpp> (sdk/include) instead of PTO-ISA")
    p.add_argument("--records", type=Path, help="replay the launches recorded in this folder instead of running "
                                                "the suite (a PYPTO_RECORD_LAUNCHES folder)")
    p.add_argument("--keep-records", type=Path,
                   help="record into this folder (default: CACHE_DIR/last-records, replaced by the next run)")
    p.add_argument("--select", action="append", default=[], metavar="PATTERN",
                   help="only kernels whose function name, user source or recording label matches (a glob, or a "
                        "substring); repeatable")
    p.add_argument("--suite", default="examples,ops", help="what to record: examples, ops or both (default)")
    p.add_argument("--examples", action="append", metavar="GLOB",
                   help="only example scripts whose path (examples/...) matches; repeatable")
    p.add_argument("--ops-k", metavar="EXPR", help="a pytest -k expression selecting the op suite's tests")
    p.add_argument("--max-launches", type=int, default=16,
                   help="launches recorded per kernel source and process (default 16; 0: all)")
    p.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1, help="parallel compiles and runs")
    p.add_argument("--cxx", default=os.environ.get("CXX", "g++"), help="the C++ compiler (default $CXX or g++)")
    p.add_argument("--cxxflag", action="append", default=[], help="an extra flag for compiling kernels; repeatable")
    p.add_argument("--cache-dir", type=Path, default=None, help=f"compiled binaries (default {default_cache()})")
    p.add_argument("--work-dir", type=Path, default=None, help="temporary files (default: a new temporary folder)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    args = p.parse_args(argv)
    if not args.self_check and args.pto_isa_root is None:
        p.error("--pto-isa-root (or PTO_ISA_ROOT) is required, unless --self")
    args.suite = {s.strip() for s in args.suite.split(",") if s.strip()}
    args.repo = REPO_ROOT
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    cache = (args.cache_dir or default_cache()).resolve()
    cache.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="pto-isa-conformance-", dir=args.work_dir))
    try:
        if args.self_check:
            target = self_target(cache, args.cxx, args.cxxflag)
            patches = []
        else:
            target, patches = real_target(args.pto_isa_root.resolve(), cache, args.cxx, args.cxxflag)
        if not args.quiet:
            print(f"target: {target.name}: {' '.join(map(str, target.include_dirs))}", file=sys.stderr)
            for patch in patches:
                print(f"  scratch copy patched for GCC 12: {patch}", file=sys.stderr)
        notes: list[str] = []
        if args.records is not None:
            records = args.records
        else:
            # Kept (the report names its files; --records replays it again), replaced by the next run.
            records = args.keep_records or cache / "last-records"
            if args.keep_records is None:
                shutil.rmtree(records, ignore_errors=True)
            if not args.quiet:
                print(f"recording launches into {records}", file=sys.stderr, flush=True)
            notes = record_suite(records, work, args)
        kernels = load_records(records)
        selected = [k for k in kernels.values() if selected_kernel(k, args.select)]
        if not args.quiet:
            print(f"{len(selected)} kernels, {sum(len(k.launches) for k in selected)} launches", file=sys.stderr,
                  flush=True)
        if not selected:
            for n in notes:
                print(f"NOTE {n}")
            print(f"pto_isa_conformance: no kernel to check in {records}" +
                  (" matches --select" if args.select else " (nothing was recorded)"), file=sys.stderr)
            return 2
        harness = harness_object(target, cache, args.cxx)
        divergences = None
        if target.real:
            ours = self_target(cache, args.cxx, args.cxxflag)
            divergences = DivergenceCheck(ours, harness_object(ours, cache, args.cxx))
        with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
            results = list(pool.map(lambda k: check_kernel(k, target, cache, args.cxx, harness, work, divergences),
                                    selected))
        failed = print_report(results, target, notes)
        return 1 if failed else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
