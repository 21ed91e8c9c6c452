"""``pypto.language.distributed`` (imported as ``pld``): programs over several ranks (devices).

* Host orchestrator (``@pl.jit.host``, compiled to IR, then run on every rank, see :mod:`pypto.runtime.host_run`):
  ``pld.world_size()``, ``pld.alloc_window_buffer(nbytes)``, ``pld.window(buf, shape, dtype=...)``, dispatches
  ``prog(..., device=r)``, and the host collectives ``pld.tensor.allreduce / allgather / reduce_scatter /
  broadcast / all_to_all / barrier`` on windows.
* Kernels (``@pl.jit.incore`` or a ``pl.at`` region): ``pld.get_comm_ctx(dt)``, ``pld.rank(ctx)``,
  ``pld.nranks(ctx)``, signals ``pld.system.notify / wait / defer_wait``, one-sided transfers ``pld.tile.remote_load /
  remote_store`` and ``pld.tensor.put / get / remote_store``.

The enums are stored in the IR as their integer values, which are part of the ABI.
"""

from __future__ import annotations

import enum
from typing import Any

from pypto import ops
from pypto.language._ops import COMM_OPS, Dispatcher, OpFunction, KernelOnlyError, OpNamespace
from pypto.runtime.launch import silence_until_started

silence_until_started()


class NotifyOp(enum.IntEnum):
    """How ``pld.system.notify`` changes the peer's signal cell."""

    AtomicAdd = 0
    Set = 1


class WaitCmp(enum.IntEnum):
    """When ``pld.system.wait`` returns: the local cell ``==`` or ``>=`` the expected value."""

    Eq = 0
    Ge = 1


class AtomicType(enum.IntEnum):
    """Whether a remote store or put overwrites (``None_``) or adds into (``Add``) the peer's window."""

    None_ = 0
    Add = 1


class ReduceOp(enum.IntEnum):
    """The reduction of ``allreduce`` and ``reduce_scatter``."""

    Sum = 0
    Max = 1
    Min = 2
    Prod = 3


def _comm_ops(namespace: str) -> dict[str, OpFunction]:
    return {op.name.partition(".")[2]: OpFunction(op) for op in ops.list_ops()
            if op.name in COMM_OPS and op.name.startswith(namespace + ".")}


class _Namespace(OpNamespace):
    def __repr__(self) -> str:
        return f"<pld.{self._name}>"


class _HostOpFunction(OpFunction):
    """An op of the @pl.jit.host orchestrator (pld.world_size, pld.alloc_window_buffer, pld.window, ...)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise KernelOnlyError(f"pld.{self.op_name}() runs in a @pl.jit.host orchestrator, which is compiled into IR "
                              "rather than run as Python; call it inside one")

    def __repr__(self) -> str:
        return f"<pld.{self.op_name}: {self.opdef.signature}>"


def _host_op(name: str) -> OpFunction:
    return _HostOpFunction(ops.get(name))


# dispatch, rank_slice and host_slice are how printed host IR spells `prog(..., device=r)`, `x[r]` and `x[a:b]`.
system = _Namespace("system", {**_comm_ops("system"), "world_size": _host_op("system.world_size"),
                               "dispatch": _host_op("system.dispatch")})
tile = _Namespace("tile", _comm_ops("tile"))
tensor = _Namespace("tensor", {**_comm_ops("tensor"), "alloc_window_buffer": _host_op("tensor.alloc_window_buffer"),
                               "window": _host_op("tensor.window"), "rank_slice": _host_op("tensor.rank_slice"),
                               "host_slice": _host_op("tensor.host_slice")})

# The short forms.
world_size = system.world_size
alloc_window_buffer = tensor.alloc_window_buffer
window = tensor.window
get_comm_ctx = system.get_comm_ctx
rank = system.rank
nranks = system.nranks
remote_load = tile.remote_load
remote_store = Dispatcher("remote_store", "tensor.remote_store", "tile.remote_store")


def __getattr__(name: str) -> Any:
    if name == "DistributedTensor":
        from pypto.runtime import windows
        return windows.DistributedTensor
    raise AttributeError(f"module 'pypto.language.distributed' has no attribute '{name}'; pld has "
                         f"{', '.join(sorted(n for n in globals() if not n.startswith('_') and n[0].islower()))}")


__all__ = ["AtomicType", "NotifyOp", "ReduceOp", "WaitCmp", "alloc_window_buffer", "get_comm_ctx", "nranks", "rank",
           "remote_load", "remote_store", "system", "tensor", "tile", "window", "world_size"]
