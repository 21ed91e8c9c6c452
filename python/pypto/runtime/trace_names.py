"""How the DFX outputs name what a traced span ran: the kernel of each core of a task, and the core's track."""

from __future__ import annotations

from typing import Any

CORE_TRACKS = ("AIC", "AIV0", "AIV1")


def member_kernels(task: Any) -> dict[tuple[str, int], str]:
    """(core type, lane) -> the kernel that core runs: TaskTrace.kernels lists them in span order."""
    first_block = [s for s in task.spans if s.block_idx == 0]
    return {(s.core_type, s.lane): name for s, name in zip(first_block, task.kernels)}


def core_track(span: Any) -> int:
    """The span's core as an index of CORE_TRACKS."""
    return 0 if span.core_type == "AIC" else 1 + span.lane
