"""Pass pipelines and the pass manager.

A pipeline is a YAML file listing passes in order, with options
(``pipelines/default.yaml``); :class:`PassManager` builds the passes it names,
loading the plugins that provide them, and runs them over a program.

Instruments observe a run: :class:`TimingInstrument` times every pass,
:class:`DiagnosticsInstrument` collects the warnings and performance hints
passes report (``ir.Diagnostic`` values; see docs/diagnostics.md)::

    hints = passes.DiagnosticsInstrument()
    lowered = passes.PassManager("default").run(program, platform="a2a3sim", instruments=[hints])
    for d in hints.perf_hints:
        print(d.code, d.span, d.message, d.fix)
"""

from pypto._core.passes import (
    PROPERTIES,
    DiagnosticsInstrument,
    PassInstrument,
    PassManager,
    TimingInstrument,
    list_pipelines,
    load_pipeline,
    pass_properties,
)

__all__ = ["PROPERTIES", "DiagnosticsInstrument", "PassInstrument", "PassManager", "TimingInstrument",
           "list_pipelines", "load_pipeline", "pass_properties"]
