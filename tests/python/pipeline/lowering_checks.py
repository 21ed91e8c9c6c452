"""Checks of what the default pipeline guarantees about a lowered program, read off the IR."""

from collections.abc import Iterator
from typing import Any

from pypto import ir, platforms

KERNEL_TYPES = {ir.FunctionType.InCore, ir.FunctionType.AIC, ir.FunctionType.AIV}
DISPATCHED_TYPES = KERNEL_TYPES | {ir.FunctionType.Group, ir.FunctionType.Spmd}


def walk(node: Any) -> Iterator[Any]:
    """Every IR node and type reachable from `node`, through the reflected fields."""
    # Holding every visited wrapper keeps its id from being reused by a later one.
    stack, seen = [node], {}
    while stack:
        n = stack.pop()
        if isinstance(n, (list, tuple)):
            stack.extend(n)
            continue
        if not hasattr(n, "field_names") or id(n) in seen:
            continue
        seen[id(n)] = n
        yield n
        stack.extend(getattr(n, f) for f in n.field_names)


def kernels(program: ir.Program) -> list[ir.Function]:
    return [f for f in program.functions if f.func_type in KERNEL_TYPES]


def problems(program: ir.Program, platform: str = "a2a3sim") -> list[str]:
    """Everything in `program` that breaks the pipeline's guarantees; empty when it is fully lowered."""
    capacity = {space: info["capacity"] for space, info in platforms.get(platform)["memory"].items()}
    found = []
    for fn in kernels(program):
        for node in walk(fn.body):
            if isinstance(node, ir.Call) and isinstance(node.op, ir.Op) \
                    and not node.op.name.startswith(("tile.", "system.")):
                found.append(f"{fn.name}: {node.op.name} is not a tile op")
            if isinstance(node, ir.Var) and isinstance(node.type, ir.TileType):
                found.extend(_placement_problems(fn.name, node, capacity))
    # The orchestration submits every dispatch of a kernel, Group or Spmd function as a task,
    # and the runtime needs each argument's direction to order the tasks.
    dispatched = {f.name for f in program.functions if f.func_type in DISPATCHED_TYPES}
    for fn in program.functions:
        if fn.func_type != ir.FunctionType.Orchestration:
            continue
        for node in walk(fn.body):
            if isinstance(node, ir.Call) and isinstance(node.op, ir.GlobalVar) \
                    and node.op.name in dispatched and "arg_directions" not in node.attrs:
                found.append(f"{fn.name}: the call of {node.op.name} has no arg_directions")
    return found


def _placement_problems(function: str, var: ir.Var, capacity: dict) -> list[str]:
    tile = var.type
    memref = tile.memref
    if tile.memory_space is None or memref is None:
        return [f"{function}: tile '{var.name_hint}' has no memory space or MemRef"]
    limit = capacity.get(tile.memory_space)
    end = _int(memref.byte_offset) + _int(memref.size)
    if limit is not None and end > limit:
        return [f"{function}: tile '{var.name_hint}' ends at byte {end} of {tile.memory_space.name} "
                f"(capacity {limit})"]
    return []


def _int(value: Any) -> int:
    return value.value if isinstance(value, ir.ConstInt) else int(value)
