// Bytes a kernel keeps out of tile allocation: the ring of a cross-core pipe
// it consumes on platforms that keep rings in the consumer
// (ExpandMixedKernel's `pipe_ring_bytes`), and the buffers it reserves with
// system.reserve_buffer, whose addresses peers import by name.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "pypto/backend/platform.h"
#include "pypto/ir/ir.h"

namespace pypto::passes::reserved {

struct Reservations {
  ir::MemorySpace space = ir::MemorySpace::Vec;  // Vec on an AIV kernel, Mat on an AIC kernel
  int64_t floor = 0;                             // tiles start here
  std::map<const ir::Call*, int64_t> addresses;  // each system.reserve_buffer's
  std::map<std::string, int64_t> by_name;
};

// Places `function`'s reservations from address 0 (a fixed `base` where it
// says so); a ValueError for overlapping or oversized ones.
Reservations Reserve(const ir::Function& function, const backend::Platform& platform);

// `function` with each system.reserve_buffer's `base` set to its address.
ir::FunctionPtr WriteReservedAddresses(const ir::FunctionPtr& function, const Reservations& reservations);

// Every system.import_peer_buffer of `function` given the address its peer
// reserved; `reserved` is per kernel, by buffer name. A ValueError when the
// peer reserves no buffer of that name.
ir::FunctionPtr ResolveImports(const ir::FunctionPtr& function,
                               const std::map<std::string, std::map<std::string, int64_t>>& reserved);

}  // namespace pypto::passes::reserved
