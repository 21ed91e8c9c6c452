"""A small task graph the runtime DFX tests trace: four independent tasks, one per 16-row block of `y`, then one
task reading all of `y` (so it depends on each of the four through the rows it reads)."""

import pypto.language as pl


@pl.jit
def rows_then_add(x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[64, 64], pl.FP32]],
                  z: pl.Out[pl.Tensor[[64, 64], pl.FP32]]):
    for i in pl.parallel(0, 4):
        with pl.at(level=pl.Level.CORE_GROUP, name_hint="exp_rows"):
            y[i * 16:i * 16 + 16, :] = pl.exp(x[i * 16:i * 16 + 16, :])
    with pl.at(level=pl.Level.CORE_GROUP, name_hint="add_all"):
        z[:] = pl.add(y, x)
    return y, z
