"""Just-in-time kernels: the @pl.jit decorators, specialization, caching, lower and compile.

``pypto.language`` re-exports :data:`jit` as ``pl.jit``. A decorated kernel is a
:class:`JITFunction`; ``kernel.compile(...)`` returns a :class:`CompiledProgram`
(which lives here, not in pypto.runtime). See docs/jit.md.
"""

from pypto.jit.annotations import AnnotationError, DynamicDim, ParamSpec
from pypto.jit.cache import CacheInfo, SpecializationKey
from pypto.jit.compiled import CompiledProgram
from pypto.jit.decorators import JitDecorator, KernelDecorator, jit
from pypto.jit.errors import (
    KernelArgumentError,
    KernelShapeError,
)
from pypto.jit.function import KINDS, JITFunction, Specialization

__all__ = [
    "KINDS",
    "AnnotationError",
    "CacheInfo",
    "CompiledProgram",
    "DynamicDim",
    "JITFunction",
    "JitDecorator",
    "KernelArgumentError",
    "KernelDecorator",
    "KernelShapeError",
    "ParamSpec",
    "Specialization",
    "SpecializationKey",
    "jit",
]
