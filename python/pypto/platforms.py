"""The platforms PyPTO compiles for, as described by ``platforms/<soc>.yaml``.

``get("a2a3sim")["memory"][ir.MemorySpace.Vec]["capacity"]`` is the number of
Vec bytes a kernel may allocate there (see docs/platforms.md).
"""

from pypto._core.platforms import get, names

__all__ = ["get", "names"]
