"""Shared by the JIT tests: a RunConfig whose pipeline has no passes."""

from pathlib import Path

from pypto.runtime import RunConfig

NO_PASSES = str(Path(__file__).with_name("no_passes.yaml"))


def config(**options) -> RunConfig:
    """A RunConfig on the pass-less pipeline, so tests do not depend on which pass plugins are built."""
    return RunConfig(pipeline=NO_PASSES, **options)
