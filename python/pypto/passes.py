"""Pass pipelines and the pass manager.

A pipeline is a YAML file listing passes in order, with options
(``pipelines/default.yaml``); :class:`PassManager` builds the passes it names,
loading the plugins that provide them, and runs them over a program.
"""

from pypto._core.passes import (
    PROPERTIES,
    PassInstrument,
    PassManager,
    TimingInstrument,
    list_pipelines,
    load_pipeline,
    pass_properties,
)

__all__ = ["PROPERTIES", "PassInstrument", "PassManager", "TimingInstrument", "list_pipelines", "load_pipeline",
           "pass_properties"]
