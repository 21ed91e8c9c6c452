"""Runs a @pl.jit kernel through pipeline.yaml, which adds FoldTileIdentities to the default passes.

    python example.py [PLUGIN_FOLDER]                          # default: build/plugins/fold_tile_identities
    PYPTO_PLUGIN_PATH=$PWD/build/plugins python example.py     # finds the plugin on the search path instead

Prints the kernel's tile ops with the default pipeline and with this one, runs
the kernel on the simulated NPU and checks the result against torch.
"""

import argparse
import os
from collections import Counter
from pathlib import Path

import torch

import pypto.language as pl
from pypto import ir
from pypto.runtime import RunConfig

HERE = Path(__file__).resolve().parent
PLUGIN = HERE / "build" / "plugins" / "fold_tile_identities"  # where `cmake -B build` puts it


@pl.jit
def blend(x: pl.Tensor[[32, 64], pl.FP32], out: pl.Out[pl.Tensor[[32, 64], pl.FP32]]):
    with pl.at(level=pl.Level.CORE_GROUP):
        t = pl.load(x, [0, 0], [32, 64])
        # x*1 and x+0 stand for what generated or generic code often holds.
        pl.store(pl.add(pl.mul(t, 1.0), pl.exp(pl.add(t, 0.0))), [0, 0], out)
    return out


def tile_ops(program: ir.Program) -> Counter:
    """How often each tile op occurs in the program's printed form."""
    printed = ir.as_python(program)
    return Counter(word for word in printed.replace("(", " ").split() if word.startswith("pl.tile."))


def plugin_folders() -> list[Path]:
    """The plugin to load before compiling: the one given, else none when PYPTO_PLUGIN_PATH will find it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("plugin", nargs="?", type=Path, help="the plugin's folder (holding manifest.yaml)")
    plugin = parser.parse_args().plugin
    if plugin is None and os.environ.get("PYPTO_PLUGIN_PATH"):
        return []
    return [plugin or PLUGIN]


def main() -> None:
    # The pipeline names the pass; RunConfig(plugins=...) loads the plugin that provides it.
    config = RunConfig(pipeline=str(HERE / "pipeline.yaml"), plugins=plugin_folders())
    print("default pipeline:", dict(tile_ops(blend.lower(config=RunConfig()))))
    print("pipeline.yaml:   ", dict(tile_ops(blend.lower(config=config))))
    x, out = torch.randn(32, 64), torch.zeros(32, 64)
    blend(x, out, config=config)
    torch.testing.assert_close(out, x + torch.exp(x))
    print("result matches torch")


if __name__ == "__main__":
    main()
