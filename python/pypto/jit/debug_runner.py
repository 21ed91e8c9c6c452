"""debug/run.py: a script in every compile output folder that runs the program again, standalone.

It rebuilds the folder as it is (hand edits to kernels/*.cpp or
orchestration/*.ll included), runs it on the inputs the first call saved
(debug/inputs/inputs.npz), or on random inputs of the right shapes when none
were saved (large inputs are not), and prints a summary of every output.
"""

from __future__ import annotations

from pathlib import Path

RUNNER = '''\
"""Re-runs this compiled PyPTO program standalone: python debug/run.py [--no-inputs]

Rebuilds the kernels and orchestration in this folder (your edits included),
runs them on the saved inputs of the first call (debug/inputs/inputs.npz) or
on random inputs, and prints each tensor argument after the run.
"""
import sys
from pathlib import Path

import numpy as np

from pypto.jit import CompiledProgram

HERE = Path(__file__).resolve().parent.parent
DTYPES = {"FP32": np.float32, "FP16": np.float16, "FP64": np.float64, "INT8": np.int8, "INT16": np.int16,
          "INT32": np.int32, "INT64": np.int64, "UINT8": np.uint8, "BOOL": np.bool_}


def inputs(program):
    saved = HERE / "debug" / "inputs" / "inputs.npz"
    if saved.is_file() and "--no-inputs" not in sys.argv:
        data = np.load(saved)
        return {name: data[name].copy() for name in data.files}, "saved inputs"
    rng = np.random.default_rng(0)
    values = {}
    for p in program.params:
        if p.kind == "scalar":
            raise SystemExit(f"no saved inputs and parameter {p.name!r} is a scalar: run the kernel once first")
        shape = [int(d) for d in p.shape]
        values[p.name] = rng.standard_normal(shape).astype(DTYPES[p.dtype])
    return values, "random inputs"


def main():
    program = CompiledProgram.from_dir(HERE)
    values, origin = inputs(program)
    program.run_bound(values)
    print(f"ran {program.entry} on {program.platform} with {origin}")
    for p in program.params:
        if p.kind == "tensor":
            v = values[p.name]
            print(f"  {p.name} ({p.direction}): shape {list(v.shape)}, sum {float(v.astype(np.float64).sum()):.6g}")


if __name__ == "__main__":
    main()
'''


def write(output_dir: Path) -> Path:
    path = output_dir / "debug" / "run.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(RUNNER)
    return path
