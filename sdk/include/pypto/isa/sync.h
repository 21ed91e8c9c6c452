// The ordering between a core's pipes: set_flag / wait_flag events and
// pipe_barrier, with the ISA's names and values (PIPE_S .. PIPE_FIX,
// EVENT_ID0 .. EVENT_ID7). The simulated core runs each instruction to
// completion in program order, so these order nothing here; the hazard
// checker reads them to find the waits a chip would need.
#pragma once

#include "pypto/isa/types.h"

using pipe_t = int;
using event_t = int;

inline constexpr pipe_t PIPE_S = 0;
inline constexpr pipe_t PIPE_V = 1;
inline constexpr pipe_t PIPE_MTE1 = 2;
inline constexpr pipe_t PIPE_MTE2 = 3;
inline constexpr pipe_t PIPE_MTE3 = 4;
inline constexpr pipe_t PIPE_M = 5;
inline constexpr pipe_t PIPE_ALL = 6;
inline constexpr pipe_t PIPE_FIX = 7;

inline constexpr event_t EVENT_ID0 = 0;
inline constexpr event_t EVENT_ID1 = 1;
inline constexpr event_t EVENT_ID2 = 2;
inline constexpr event_t EVENT_ID3 = 3;
inline constexpr event_t EVENT_ID4 = 4;
inline constexpr event_t EVENT_ID5 = 5;
inline constexpr event_t EVENT_ID6 = 6;
inline constexpr event_t EVENT_ID7 = 7;

inline void set_flag(pipe_t, pipe_t, event_t) {}
inline void wait_flag(pipe_t, pipe_t, event_t) {}
inline void pipe_barrier(pipe_t) {}
