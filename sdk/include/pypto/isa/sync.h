// The ordering between a core's pipes: set_flag / wait_flag events and
// pipe_barrier, with the ISA's names and values (PIPE_S .. PIPE_FIX,
// EVENT_ID0 .. EVENT_ID7). The simulated core runs each instruction to
// completion in program order, so these order nothing here; the pipe-hazard
// checker (hazard.h) reads them to tell whether the chip, whose pipes run
// asynchronously, would see the same order.
#pragma once

#include "pypto/isa/hazard.h"
#include "pypto/isa/types.h"

using pipe_t = int;
using event_t = int;

inline constexpr pipe_t PIPE_S = pto::kHazardPipeS;
inline constexpr pipe_t PIPE_V = pto::kHazardPipeV;
inline constexpr pipe_t PIPE_MTE1 = pto::kHazardPipeMTE1;
inline constexpr pipe_t PIPE_MTE2 = pto::kHazardPipeMTE2;
inline constexpr pipe_t PIPE_MTE3 = pto::kHazardPipeMTE3;
inline constexpr pipe_t PIPE_M = pto::kHazardPipeM;
inline constexpr pipe_t PIPE_ALL = pto::kHazardPipeAll;
inline constexpr pipe_t PIPE_FIX = pto::kHazardPipeFIX;

inline constexpr event_t EVENT_ID0 = 0;
inline constexpr event_t EVENT_ID1 = 1;
inline constexpr event_t EVENT_ID2 = 2;
inline constexpr event_t EVENT_ID3 = 3;
inline constexpr event_t EVENT_ID4 = 4;
inline constexpr event_t EVENT_ID5 = 5;
inline constexpr event_t EVENT_ID6 = 6;
inline constexpr event_t EVENT_ID7 = 7;

// src_pipe signals event `event` once its instructions so far are done.
inline void set_flag(pipe_t src_pipe, pipe_t dst_pipe, event_t event) {
  if (pto::SimCore* core = pto::detail::HazardCore()) {
    core->hazards->Sync(*core, pto::HazardSync::SetFlag, src_pipe, dst_pipe, event);
  }
}

// dst_pipe starts nothing more until src_pipe has signalled `event`.
inline void wait_flag(pipe_t src_pipe, pipe_t dst_pipe, event_t event) {
  if (pto::SimCore* core = pto::detail::HazardCore()) {
    core->hazards->Sync(*core, pto::HazardSync::WaitFlag, src_pipe, dst_pipe, event);
  }
}

// pipe's later instructions start after its earlier ones are done
// (PIPE_ALL: every pipe's after every pipe's).
inline void pipe_barrier(pipe_t pipe) {
  if (pto::SimCore* core = pto::detail::HazardCore()) {
    core->hazards->Sync(*core, pto::HazardSync::Barrier, pipe, pipe, 0);
  }
}

// The ISA's data synchronization barrier: this core's memory accesses before
// it complete before any after it (DSB_DDR: global memory). system.fence
// lowers to dsb(DSB_DDR). Simulated cores are threads, so a sequentially
// consistent fence orders a kernel's window writes before its notify and its
// reads after a wait, as the barrier does between the chip's cores. A builtin,
// so that the header stays freestanding.
using mem_dsb_t = int;
inline constexpr mem_dsb_t DSB_ALL = 0;
inline constexpr mem_dsb_t DSB_DDR = 1;
inline constexpr mem_dsb_t DSB_UB = 2;
inline void dsb(mem_dsb_t) { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
