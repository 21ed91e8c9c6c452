"""Calls the library's kernel from a @pl.jit function (run with PYPTO_PLUGIN_PATH=<build>/plugins)."""

import torch

import pypto.kernels
import pypto.language as pl


@pl.jit
def axpy(x: pl.Tensor, y: pl.InOut[pl.Tensor]):
    y = pypto.kernels.axpy_fp32(x, y, 0.5)
    return y


def main() -> None:
    x, y = torch.randn(64, 64), torch.randn(64, 64)
    expected = 0.5 * x + y
    axpy(x, y)
    torch.testing.assert_close(y, expected)
    print("OK")


if __name__ == "__main__":
    main()
