"""Module-level @pl.function definitions: each decorator returns the parsed ir.Function."""

import pypto.language as pl

SCALE = 3


@pl.function(type=pl.FunctionType.InCore)
def scale_rows(a: pl.Tensor[[64, 64], pl.FP32]) -> pl.Tensor[[64, 64], pl.FP32]:
    return pl.mul(a, float(SCALE))


@pl.function
def count(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
    total = 0
    for i in pl.range(n):
        total = total + SCALE
    return total


def make_offset_kernel(offset: int):
    @pl.function
    def shifted(n: pl.Scalar[pl.INDEX]) -> pl.Scalar[pl.INDEX]:
        return n + offset

    return shifted
