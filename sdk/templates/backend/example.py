"""Compiles a @pl.jit kernel with the program_stats backend and prints its report.

    python example.py [PLUGIN_FOLDER]                          # default: build/plugins/program_stats
    PYPTO_PLUGIN_PATH=$PWD/build/plugins python example.py     # finds the plugin on the search path instead

The backend replaces the one that generates kernel code (RunConfig(backend=...));
the compile output folder holds report/program_stats.txt.
"""

import argparse
import os
from pathlib import Path

import pypto.language as pl
from pypto.runtime import RunConfig

HERE = Path(__file__).resolve().parent
PLUGIN = HERE / "build" / "plugins" / "program_stats"  # where `cmake -B build` puts it


@pl.jit
def softmax(x: pl.Tensor[[256, 128], pl.FP32], out: pl.Out[pl.Tensor[[256, 128], pl.FP32]]):
    for r in pl.range(0, 256, 32):
        with pl.at(level=pl.Level.CORE_GROUP):
            t = pl.load(x, [r, 0], [32, 128])
            work = pl.create_tile([32, 128], dtype=pl.FP32, target_memory=pl.Mem.Vec)
            m: pl.Tile[[32, 1], pl.FP32] = pl.row_max(t, work)
            e = pl.exp(pl.row_expand_sub(t, m))
            s: pl.Tile[[32, 1], pl.FP32] = pl.row_sum(e, work)
            pl.store(pl.row_expand_div(e, s), [r, 0], out)
    return out


def plugin_folders() -> list[Path]:
    """The plugin to load before compiling: the one given, else none when PYPTO_PLUGIN_PATH will find it."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("plugin", nargs="?", type=Path, help="the plugin's folder (holding manifest.yaml)")
    plugin = parser.parse_args().plugin
    if plugin is None and os.environ.get("PYPTO_PLUGIN_PATH"):
        return []
    return [plugin or PLUGIN]


def main() -> None:
    # a2a3 is the platform the manifest's TOOLCHAINS names; compiling for it needs no device.
    config = RunConfig(platform="a2a3", backend="program_stats", plugins=plugin_folders())
    compiled = softmax.compile(config=config)
    print(f"compiled into {compiled.output_dir}")
    print((compiled.report_dir / "program_stats.txt").read_text(), end="")


if __name__ == "__main__":
    main()
