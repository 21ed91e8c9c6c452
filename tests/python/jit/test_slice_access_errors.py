"""A pl.slice taken inside a pl.at region becomes a tile (the load of its window); loading from it or storing into
it again is an error at the user's line that says what to write instead, not a type error deep in the pipeline."""

import inspect

import pytest
import torch

import pypto
import pypto.language as pl

THIS_FILE = __file__


@pl.jit
def load_from_a_slice(x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.slice(x, [16, 64], [16, 0])
        t = pl.load(s, [0, 0], [16, 64])
        pl.store(pl.exp(t), [0, 0], y)
    return y


@pl.jit
def the_slice_is_the_tile(x: pl.Tensor[[64, 64], pl.FP32], y: pl.Out[pl.Tensor[[16, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        s = pl.slice(x, [16, 64], [16, 0])
        y[:] = pl.exp(s)
    return y


def line_of(fn, text):
    lines, first = inspect.getsourcelines(fn)
    return first + next(i for i, line in enumerate(lines) if text in line)


def test_loading_from_a_slice_names_the_line_and_the_fix(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))
    with pytest.raises(pypto.Error) as info:
        load_from_a_slice(torch.randn(64, 64), torch.zeros(16, 64))
    error = info.value
    assert error.filename == THIS_FILE
    assert error.lineno == line_of(load_from_a_slice.fn, "pl.load(s,")
    assert "tile.load reads 's', a pl.slice taken inside this kernel" in str(error)
    assert "use 's' itself as the tile" in str(error)


def test_using_the_slice_as_a_tile_works(tmp_path, monkeypatch):
    monkeypatch.setenv("PYPTO_PROG_BUILD_DIR", str(tmp_path))
    x, y = torch.randn(64, 64), torch.zeros(16, 64)
    the_slice_is_the_tile(x, y)
    torch.testing.assert_close(y, torch.exp(x[16:32]))
