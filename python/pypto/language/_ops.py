"""The op namespaces ``pl.tensor``, ``pl.tile``, ``pl.system``, ``pl.array`` (one object per
registered op) and the ``pl.*`` dispatchers that pick the tensor or tile op by argument type."""

from __future__ import annotations

from types import SimpleNamespace

from pypto import ops


class KernelOnlyError(RuntimeError):
    """A DSL construct was called as ordinary Python."""


def kernel_only(what: str) -> KernelOnlyError:
    return KernelOnlyError(
        f"{what} is only meaningful inside a parsed kernel body: use it in a function decorated "
        f"with @pl.function, @pl.program or @pl.jit, which is parsed into IR rather than run"
    )


class OpFunction:
    """One registered op, e.g. ``pl.tile.add``. The parser turns a call of it into an IR Call."""

    def __init__(self, opdef: ops.OpDef) -> None:
        self.op_name: str = opdef.name
        self.opdef = opdef
        self.__doc__ = f"{opdef.signature}\n\n{opdef.description}"

    @property
    def schema(self) -> ops.OpDef:
        return self.opdef

    @property
    def signature(self) -> str:
        return self.opdef.signature

    def __call__(self, *args, **kwargs):
        raise kernel_only(f"pl.{self.op_name}")

    def __repr__(self) -> str:
        return f"<pl.{self.op_name}: {self.opdef.signature}>"


class OpNamespace(SimpleNamespace):
    """``pl.tile`` and its siblings: attribute access to the ops of one namespace."""

    def __init__(self, name: str, members: dict[str, OpFunction]) -> None:
        super().__init__(**members)
        self.__dict__["_name"] = name

    def __repr__(self) -> str:
        return f"<pl.{self._name}: {len(self.__dict__) - 1} ops>"


class Dispatcher:
    """``pl.add`` and friends: the tensor op for tensor arguments, the tile op for tiles, and the
    scalar form (``adds``, ``muls``, ...) when the second operand is a number or a scalar."""

    def __init__(self, name: str, tensor_op: str | None, tile_op: str | None) -> None:
        self.name = name
        self.tensor_op = tensor_op
        self.tile_op = tile_op

    def __call__(self, *args, **kwargs):
        raise kernel_only(f"pl.{self.name}")

    def __repr__(self) -> str:
        return f"<pl.{self.name} -> {self.tensor_op or '-'} | {self.tile_op or '-'}>"


NAMESPACES = ("tensor", "tile", "system", "array")

# The distributed ops: reached through pld (pypto.language.distributed), not pl.
COMM_OPS = frozenset({"system.get_comm_ctx", "system.rank", "system.nranks", "system.notify", "system.wait",
                      "system.defer_wait",
                      "tile.remote_load", "tile.remote_store", "tensor.put", "tensor.get", "tensor.remote_store",
                      "tensor.allreduce", "tensor.barrier", "tensor.broadcast", "tensor.reduce_scatter",
                      "tensor.allgather", "tensor.all_to_all", "tensor.all_to_all_v"})
# The ops of a @pl.jit.host orchestrator (pld.world_size, pld.alloc_window_buffer, pld.window, x[r], dispatches).
HOST_OPS = frozenset({"system.world_size", "tensor.alloc_window_buffer", "tensor.window", "tensor.rank_slice",
                      "tensor.host_slice", "system.dispatch"})

# pl.<name> spellings whose op has another name, or exists on one level only.
DISPATCH_ALIASES: dict[str, tuple[str | None, str | None]] = {
    "load": (None, "tile.load"),
    "store": (None, "tile.store"),
    "move": (None, "tile.move"),
    "create_tensor": ("tensor.create", None),
    "dump_tag": ("tensor.dump_tag", None),
    "create_tile": (None, "tile.create"),
    "assemble": ("tensor.assemble", "tile.assemble"),
    "and_": ("tensor.and", "tile.and"),
    "or_": ("tensor.or", "tile.or"),
    "not_": ("tensor.not", "tile.not"),
    # The cross-core pipe of a mixed kernel (docs/mixed-kernels.md): kernel-only, so the second slot.
    "tpush_to_aiv": (None, "tile.tpush_to_aiv"),
    "tpush_to_aic": (None, "tile.tpush_to_aic"),
    "tpop_from_aic": (None, "tile.tpop_from_aic"),
    "tpop_from_aiv": (None, "tile.tpop_from_aiv"),
    "tfree_to_aic": (None, "system.tfree_to_aic"),
    "tfree_to_aiv": (None, "system.tfree_to_aiv"),
    "aic_initialize_pipe": (None, "system.aic_initialize_pipe"),
    "aiv_initialize_pipe": (None, "system.aiv_initialize_pipe"),
    "reserve_buffer": (None, "system.reserve_buffer"),
    "import_peer_buffer": (None, "system.import_peer_buffer"),
    # Crossings of a pl.split_aiv region (a hand-split mixed kernel).
    "aiv_shard": (None, "tile.aiv_shard"),
    "aic_gather": (None, "tile.aic_gather"),
}

# Names pl defines itself (scalar helpers) that must not become dispatchers.
RESERVED = {"min", "max", "xor", "cast", "full", "create"}


def build_namespaces() -> tuple[dict[str, OpNamespace], dict[str, Dispatcher]]:
    members: dict[str, dict[str, OpFunction]] = {ns: {} for ns in NAMESPACES}
    for opdef in ops.list_ops():
        ns, _, short = opdef.name.partition(".")
        if ns in members and opdef.name not in COMM_OPS | HOST_OPS:
            members[ns][short] = OpFunction(opdef)
    namespaces = {ns: OpNamespace(ns, m) for ns, m in members.items()}
    dispatchers: dict[str, Dispatcher] = {}
    for short in sorted(set(members["tensor"]) & set(members["tile"])):
        if short in RESERVED or short.endswith("s") and short[:-1] in members["tile"]:
            continue
        dispatchers[short] = Dispatcher(short, f"tensor.{short}", f"tile.{short}")
    for short, (tensor_op, tile_op) in DISPATCH_ALIASES.items():
        dispatchers[short] = Dispatcher(short, tensor_op, tile_op)
    return namespaces, dispatchers
