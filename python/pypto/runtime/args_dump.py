"""The argument dump of a traced run: ``dfx_outputs/args_dump/``.

``RunConfig(enable_dump_args=N)`` copies tensor arguments of tasks as the
runtime binds them: inputs when the task becomes ready (what its kernels
read), outputs when its last block has finished (what they wrote); an InOut
or no-dep argument both times.

* level 1: only arguments viewing a tensor the orchestration tagged with
  ``pl.dump_tag(t)``;
* level 2: every tensor argument of every task. This copies every byte
  every task touches; keep the program small.

``True`` means level 1.

Files:

* ``args_dump.bin``: the dumped bytes, one record after another;
* ``args_dump.json``: ``{"entry", "platform", "level", "records": [...]}``
  with per record ``task_id`` (a string), ``kernel``, ``arg`` (its index),
  ``direction``, ``when`` (``"before"`` / ``"after"``), ``dtype``, ``shape``,
  ``offsets`` (where the view starts in its tensor), ``tensor_id`` (as in
  deps.json), ``offset`` and ``bytes`` (its slice of the .bin file).

``load(folder)`` reads them back as ``DumpRecord``\\ s with a ``numpy()``
array each; ``python -m pypto.runtime.args_dump FOLDER`` (the dump viewer)
lists them with statistics, and ``--task ID --arg I`` prints one.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

ARGS_DUMP_DIR = "args_dump"
INDEX_FILE = "args_dump.json"
DATA_FILE = "args_dump.bin"

# Element types as numpy reads them; BF16 is kept as its bits (uint16) and widened on request.
_NUMPY_DTYPES = {"BOOL": np.bool_, "INT8": np.int8, "UINT8": np.uint8, "INT16": np.int16, "UINT16": np.uint16,
                 "INT32": np.int32, "UINT32": np.uint32, "INT64": np.int64, "UINT64": np.uint64,
                 "FP16": np.float16, "BF16": np.uint16, "FP32": np.float32, "FP64": np.float64}


@dataclass(frozen=True)
class DumpRecord:
    task_id: str
    kernel: str
    arg: int
    direction: str
    when: str
    dtype: str
    shape: tuple[int, ...]
    offsets: tuple[int, ...]
    tensor_id: str
    data: bytes

    def numpy(self) -> np.ndarray:
        """The dumped view as an array of its shape (BF16 widened to float32)."""
        if self.dtype not in _NUMPY_DTYPES:
            raise ValueError(f"task {self.task_id} argument {self.arg}: dtype {self.dtype} has no numpy form")
        array = np.frombuffer(self.data, dtype=_NUMPY_DTYPES[self.dtype]).reshape(self.shape)
        if self.dtype == "BF16":
            return (array.astype(np.uint32) << 16).view(np.float32)
        return array


def write(trace: Any, dfx_dir: Path, level: int, *, entry: str, platform: str) -> list[Path]:
    """args_dump.json and args_dump.bin from `trace`'s dumps; returns both paths."""
    folder = Path(dfx_dir) / ARGS_DUMP_DIR
    folder.mkdir(parents=True, exist_ok=True)
    tensor_of = _tensor_ids(trace)
    records = []
    with (folder / DATA_FILE).open("wb") as data:
        for task in trace.tasks:
            args = {a.index: a for a in task.args}
            for dump in task.dumps:
                arg = args[dump.arg]
                offset = data.tell()
                data.write(dump.data)
                records.append({"task_id": str(task.id), "kernel": task.kernel, "arg": dump.arg,
                                "direction": arg.direction, "when": "after" if dump.after else "before",
                                "dtype": tensor_of[arg.tensor_id], "shape": list(arg.shape),
                                "offsets": list(arg.offsets), "tensor_id": str(arg.tensor_id), "offset": offset,
                                "bytes": len(dump.data)})
    index = {"entry": entry, "platform": platform, "level": level, "records": records}
    (folder / INDEX_FILE).write_text(json.dumps(index, indent=1) + "\n")
    return [folder / INDEX_FILE, folder / DATA_FILE]


def _tensor_ids(trace: Any) -> dict[int, str]:
    """tensor_id -> the dtype name of the buffer the run's views of it have."""
    return {t.tensor_id: t.dtype.name for t in trace.tensors}


def load(folder: Path) -> list[DumpRecord]:
    """The records of an args_dump folder (or of its args_dump.json), in task and argument order."""
    folder = Path(folder)
    if folder.name == INDEX_FILE:
        folder = folder.parent
    index = json.loads((folder / INDEX_FILE).read_text())
    blob = (folder / DATA_FILE).read_bytes()
    return [DumpRecord(task_id=r["task_id"], kernel=r["kernel"], arg=r["arg"], direction=r["direction"],
                       when=r["when"], dtype=r["dtype"], shape=tuple(r["shape"]), offsets=tuple(r["offsets"]),
                       tensor_id=r["tensor_id"], data=blob[r["offset"]:r["offset"] + r["bytes"]])
            for r in index["records"]]


def summary_line(record: DumpRecord) -> str:
    values = record.numpy().astype(np.float64, copy=False)
    finite = values[np.isfinite(values)]
    nans = int(np.isnan(values).sum())
    stats = (f"min {finite.min():.6g} max {finite.max():.6g} mean {finite.mean():.6g}" if finite.size
             else "no finite values")
    where = "@" + ",".join(map(str, record.offsets))
    return (f"task {record.task_id:>4} {record.kernel:<24} arg {record.arg} {record.direction:<14} "
            f"{record.when:<6} {record.dtype}{list(record.shape)} {where}  {stats}  nan {nans}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pypto.runtime.args_dump",
                                     description="List the tensors of an argument dump, or print one.")
    parser.add_argument("folder", type=Path, help="dfx_outputs/args_dump (or its args_dump.json)")
    parser.add_argument("--task", help="print the records of this task id")
    parser.add_argument("--arg", type=int, help="with --task: only this argument")
    args = parser.parse_args(argv)
    try:
        records = load(args.folder)
    except (OSError, ValueError, KeyError) as e:
        print(f"error: {args.folder}: not an argument dump ({e})", file=sys.stderr)
        return 2
    chosen = [r for r in records if (args.task is None or r.task_id == args.task)
              and (args.arg is None or r.arg == args.arg)]
    if not chosen:
        print(f"error: no record matches (task {args.task}, arg {args.arg}); the dump has "
              f"{len(records)} records", file=sys.stderr)
        return 2
    np.set_printoptions(threshold=64, edgeitems=4, linewidth=120)
    for record in chosen:
        print(summary_line(record))
        if args.task is not None:
            print(record.numpy())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
