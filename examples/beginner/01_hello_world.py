"""Hello world: one 128x128 FP32 tile add on the simulated NPU.

    python examples/beginner/01_hello_world.py

Loads two tiles from device memory into the vector core's buffer, adds them
and stores the result. The generated kernel (PTO-ISA C++) and orchestration
(LLVM IR) are written to the compile output folder printed at the end.
"""

import torch

import pypto.language as pl
from pypto.runtime import RunConfig


@pl.jit
def hello_world(a: pl.Tensor[[128, 128], pl.FP32], b: pl.Tensor[[128, 128], pl.FP32],
                out: pl.Out[pl.Tensor[[128, 128], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        ta = pl.load(a, [0, 0], [128, 128])
        tb = pl.load(b, [0, 0], [128, 128])
        pl.store(pl.add(ta, tb), [0, 0], out)
    return out


def main() -> None:
    torch.manual_seed(0)
    a, b = torch.randn(128, 128), torch.randn(128, 128)
    out = torch.zeros(128, 128)
    config = RunConfig(platform="a2a3sim")
    hello_world(a, b, out, config=config)
    torch.testing.assert_close(out, a + b, rtol=0, atol=0)
    compiled = hello_world.compile(a, b, out, config=config)
    print(f"generated code: {compiled.output_dir}")
    for path in compiled.kernel_files + compiled.orchestration_files:
        print(f"  {path.relative_to(compiled.output_dir)}")
    print("OK")


if __name__ == "__main__":
    main()
