"""PyPTO: a compiler and runtime for tile-level kernels written in Python."""

from pypto._core import (
    CodegenError,
    CompileError,
    Error,
    FileError,
    InternalError,
    InvalidIndexError,
    InvalidTypeError,
    InvalidValueError,
    KernelFault,
    PipelineError,
    PluginError,
    VerificationError,
    __version__,
)
from pypto import ir, ops, passes, plugins

__all__ = [
    "CodegenError",
    "CompileError",
    "Error",
    "FileError",
    "InternalError",
    "InvalidIndexError",
    "InvalidTypeError",
    "InvalidValueError",
    "KernelFault",
    "PipelineError",
    "PluginError",
    "VerificationError",
    "__version__",
    "ir",
    "ops",
    "passes",
    "plugins",
]


def __getattr__(name: str):
    # pypto.kernels reaches into the parser's modules, so it is imported on first use.
    if name == "kernels":
        import importlib
        return importlib.import_module("pypto.kernels")
    raise AttributeError(f"module 'pypto' has no attribute '{name}'")
