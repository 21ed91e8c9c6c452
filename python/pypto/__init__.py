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
