"""pypto.runtime.device_time: a traced run's blocks placed on the platform's cores by their modelled cycles."""

from types import SimpleNamespace

import pytest

from pypto.runtime import device_time

DISPATCH = 100
# 1 GHz: a cycle is a nanosecond, so the expected times read as cycles.
PLATFORM = {"clusters": 2, "aiv_per_cluster": 2,
            "throughput": {"clock": {"ghz": 1.0}, "scheduler": {"dispatch_cycles": DISPATCH}}}


def _span(block, core_type, lane, cycles, gm_bytes=0):
    counters = SimpleNamespace(measured=True, cycles=cycles, bytes_read={"GM": gm_bytes}, bytes_written={"GM": 0})
    return SimpleNamespace(block_idx=block, core_type=core_type, lane=lane, cluster_id=0, counters=counters)


def _task(task_id, cycles, *, blocks=1, deps=(), cores=("AIV",), gm_bytes=0):
    spans = []
    for block in range(blocks):
        for core in cores:
            spans.append(_span(block, "AIC" if core == "AIC" else "AIV", int(core[-1]) if core[-1].isdigit() else 0,
                               cycles, gm_bytes))
    return SimpleNamespace(id=task_id, kernel=f"k{task_id}", kernels=[f"k{task_id}"] * len(cores),
                           core_num=blocks, deps=list(deps), spans=spans)


def _schedule(*tasks):
    return device_time.schedule(SimpleNamespace(tasks=list(tasks)), PLATFORM)


def _starts(device):
    return sorted((s.start_ns, s.end_ns) for t in device.tasks for s in t.spans)


def test_independent_blocks_fill_every_vector_core_then_queue():
    device = _schedule(_task(0, 1000, blocks=5))
    # Four vector cores (2 clusters x 2): four blocks at once, the fifth after the first of them ends.
    assert _starts(device) == [(100, 1100)] * 4 + [(1200, 2200)]
    assert device.makespan_ns == 2200
    assert {(s.cluster_id, s.lane) for s in device.tasks[0].spans[:4]} == {(0, 0), (0, 1), (1, 0), (1, 1)}


def test_a_task_starts_after_the_tasks_it_depends_on():
    device = _schedule(_task(0, 500), _task(1, 300, deps=[0]), _task(2, 50))
    spans = {t.id: t.spans[0] for t in device.tasks}
    assert (spans[0].start_ns, spans[0].end_ns) == (100, 600)
    assert spans[1].start_ns == 600 + DISPATCH and spans[1].end_ns == 1000
    assert spans[2].start_ns == 100  # independent: it does not wait for task 0
    assert device.tasks[1].ready_ns == 600


def test_a_cluster_task_takes_one_cluster_for_all_its_cores():
    device = _schedule(_task(0, 1000, cores=("AIV0",)), _task(1, 200, cores=("AIC", "AIV0", "AIV1")))
    cluster_task = device.tasks[1]
    assert {s.cluster_id for s in cluster_task.spans} == {1}  # cluster 0 has a busy vector core
    assert {(s.core_type, s.lane) for s in cluster_task.spans} == {("AIC", 0), ("AIV", 0), ("AIV", 1)}
    assert all(s.start_ns == 100 for s in cluster_task.spans)


def test_the_cube_and_vector_cores_are_separate_resources():
    device = _schedule(_task(0, 1000, cores=("AIC",)), _task(1, 1000, cores=("AIC",)), _task(2, 1000, cores=("AIC",)))
    assert _starts(device) == [(100, 1100), (100, 1100), (1200, 2200)]  # two AICs
    assert all(s.core_type == "AIC" for t in device.tasks for s in t.spans)


def test_a_join_passes_readiness_through():
    join = SimpleNamespace(id=1, kernel="join", kernels=[], core_num=0, deps=[0], spans=[])
    device = _schedule(_task(0, 400), join, _task(2, 100, deps=[1]))
    assert device.tasks[1].spans == []
    assert device.tasks[2].spans[0].start_ns == 500 + DISPATCH


def test_deps_on_tasks_of_earlier_runs_are_already_met():
    device = _schedule(_task(7, 100, deps=[3]))
    assert device.tasks[0].spans[0].start_ns == DISPATCH


def test_an_unmeasured_kernel_takes_no_cycles():
    task = _task(0, 0)
    task.spans[0].counters = SimpleNamespace(measured=False, cycles=123)
    device = _schedule(task)
    assert _starts(device) == [(100, 100)]


@pytest.mark.parametrize("ghz", [0.5, 2.0])
def test_times_are_cycles_at_the_platform_clock(ghz):
    platform = PLATFORM | {"throughput": {"clock": {"ghz": ghz}, "scheduler": {"dispatch_cycles": DISPATCH}}}
    device = device_time.schedule(SimpleNamespace(tasks=[_task(0, 1000)]), platform)
    span = device.tasks[0].spans[0]
    assert (span.start_ns, span.end_ns) == (DISPATCH / ghz, (DISPATCH + 1000) / ghz)


# 100 bytes of global memory a cycle for the whole chip.
NARROW = PLATFORM | {"throughput": {"clock": {"ghz": 1.0}, "scheduler": {"dispatch_cycles": DISPATCH},
                                    "DDR": {"gb_per_second": 100}}}


def test_kernels_that_together_want_more_bandwidth_than_the_chip_has_slow_down_in_proportion():
    # Each block moves 100 000 bytes in 1000 cycles: 100 bytes a cycle, the whole chip's bandwidth.
    alone = device_time.schedule(SimpleNamespace(tasks=[_task(0, 1000, gm_bytes=100_000)]), NARROW)
    assert _starts(alone) == [(100, 1100)]
    two = device_time.schedule(SimpleNamespace(tasks=[_task(0, 1000, blocks=2, gm_bytes=100_000)]), NARROW)
    assert _starts(two) == [(100, 2100), (100, 2100)]  # both at half speed


def test_a_kernel_that_moves_nothing_does_not_slow_the_others():
    tasks = [_task(0, 1000, gm_bytes=100_000), _task(1, 1000)]
    device = device_time.schedule(SimpleNamespace(tasks=tasks), NARROW)
    assert _starts(device) == [(100, 1100), (100, 1100)]


def test_a_kernel_speeds_up_again_when_the_other_finishes():
    # Both want the whole bandwidth; the short one (500 cycles alone) shares it from the start and finishes at
    # 1000 cycles of work done at half speed, then the long one runs alone at full speed.
    tasks = [_task(0, 500, gm_bytes=50_000), _task(1, 1500, gm_bytes=150_000)]
    device = device_time.schedule(SimpleNamespace(tasks=tasks), NARROW)
    spans = {t.id: t.spans[0] for t in device.tasks}
    assert spans[0].end_ns == pytest.approx(100 + 1000)
    assert spans[1].end_ns == pytest.approx(100 + 1000 + 1000)  # 500 of its cycles done by then, 1000 left


def test_a_platform_without_a_ddr_figure_has_unlimited_bandwidth():
    device = device_time.schedule(SimpleNamespace(tasks=[_task(0, 1000, blocks=4, gm_bytes=10**9)]), PLATFORM)
    assert _starts(device) == [(100, 1100)] * 4


def test_the_trace_records_the_bandwidth_the_running_kernels_draw():
    tasks = [_task(0, 1000, gm_bytes=100_000), _task(1, 500, gm_bytes=25_000, deps=[0])]
    device = device_time.schedule(SimpleNamespace(tasks=tasks), NARROW)
    # Idle during the first dispatch, the chip's whole 100 GB/s for task 0, idle, then 50 GB/s for task 1.
    assert device.gm_usage == [(0.0, 0.0), (100.0, 100.0), (1100.0, 0.0), (1200.0, 50.0), (1700.0, 0.0)]
