#include "allocate_memory_addr.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pypto/backend/platform.h"
#include "pypto/ir/mutator.h"
#include "pypto/ir/visitor.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"
#include "reserved_buffers.h"

namespace pypto::passes {

using ir::As;
using ir::ExprPtr;
using ir::FunctionPtr;
using ir::MemorySpace;
using ir::MemRefPtr;
using ir::VarPtr;

namespace {

// One buffer: an allocation (a tile.alloc base) and the MemRefs on it, the
// whole buffer at its start and any tile.slice views inside it, with the
// tiles placed in it in definition order.
struct Buffer {
  std::vector<MemRefPtr> memrefs;
  std::vector<VarPtr> tiles;
  // Where the buffer starts now: the lowest constant offset of its MemRefs.
  int64_t start = 0;
  // Bytes from the start to the end of the furthest MemRef.
  int64_t size = 0;
  // The first MemRef: the buffer's name in the address order.
  const MemRefPtr& memref() const { return memrefs.front(); }
};

class BufferCollector : public ir::IRVisitor {
 public:
  std::vector<Buffer> buffers;

  void VisitVarDef(const VarPtr& var) override {
    if (MemRefPtr memref = ir::MemRefOf(var)) {
      const void* key = memref->base ? static_cast<const void*>(memref->base.get()) : memref.get();
      auto [it, inserted] = index_.emplace(key, buffers.size());
      if (inserted) buffers.emplace_back();
      Buffer& buffer = buffers[it->second];
      if (std::find(buffer.memrefs.begin(), buffer.memrefs.end(), memref) == buffer.memrefs.end()) {
        buffer.memrefs.push_back(memref);
      }
      buffer.tiles.push_back(var);
    }
    IRVisitor::VisitVarDef(var);
  }

  // Each buffer's start and size, once every MemRef is known.
  void Measure() {
    for (Buffer& buffer : buffers) {
      std::optional<int64_t> start;
      for (const auto& memref : buffer.memrefs) {
        auto offset = ir::AsConstInt(memref->byte_offset);
        if (offset && (!start || *offset < *start)) start = offset;
      }
      buffer.start = start.value_or(0);
      for (const auto& memref : buffer.memrefs) {
        auto offset = ir::AsConstInt(memref->byte_offset);
        // A view at a dynamic offset lies inside the buffer; it adds nothing.
        if (offset) buffer.size = std::max(buffer.size, *offset - buffer.start + memref->size);
      }
    }
  }

 private:
  std::unordered_map<const void*, size_t> index_;
};

int64_t AlignUp(int64_t value, int64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

std::string TileText(const VarPtr& tile) {
  return "'" + tile->name_hint + "' " + ir::TypeToString(tile->type) +
         (tile->span.known() ? " at " + tile->span.ToString() : std::string(" (no source line)"));
}

// The buffers of a space that does not fit, the largest first, with their tiles.
std::string LargestBuffers(const std::vector<const Buffer*>& largest_first) {
  constexpr size_t kShown = 3;
  std::string text;
  for (size_t i = 0; i < largest_first.size() && i < kShown; ++i) {
    const Buffer& buffer = *largest_first[i];
    text += "\n  " + std::to_string(buffer.size) + " bytes: ";
    for (size_t t = 0; t < buffer.tiles.size(); ++t) text += (t ? ", " : "") + TileText(buffer.tiles[t]);
  }
  if (largest_first.size() > kShown) {
    text += "\n  and " + std::to_string(largest_first.size() - kShown) + " more no larger than these";
  }
  return text;
}

[[noreturn]] void ThrowExhausted(const std::string& function, MemorySpace space, int64_t needed, int64_t reserved,
                                 const backend::Platform& platform, std::vector<const Buffer*> buffers) {
  std::stable_sort(buffers.begin(), buffers.end(),
                   [](const Buffer* a, const Buffer* b) { return a->size > b->size; });
  std::string ring = reserved == 0 ? ""
                                   : " (of which " + std::to_string(reserved) +
                                         " are reserved for cross-core rings: the ring of the pipe it consumes, or "
                                         "pl.reserve_buffer; lower pl.cross_core_slot(slot_num=) or make the "
                                         "crossing tiles smaller)";
  throw Error(ErrorKind::kValue,
              "AllocateMemoryAddr: function '" + function + "' needs " + std::to_string(needed) + " bytes of " +
                  ir::ToString(space) + ring + " but platform '" + platform.name + "' has " +
                  std::to_string(platform.Capacity(space)) + "; the largest live tiles in " + ir::ToString(space) +
                  ":" + LargestBuffers(buffers) +
                  "\nuse smaller tiles, or a loop over blocks of the data (pl.range with tile-sized slices) so "
                  "that fewer bytes are live at once",
              buffers.front()->tiles.front()->span);
}

// Addresses from 0 per space, in the order of the buffers' names: where
// each buffer (by its index) starts.
std::unordered_map<const Buffer*, int64_t> AssignAddresses(const std::vector<Buffer>& buffers,
                                                           const ir::Function& function,
                                                           const reserved::Reservations& reservations,
                                                           const backend::Platform& platform) {
  std::map<MemorySpace, std::vector<const Buffer*>> by_space;
  for (const auto& buffer : buffers) by_space[buffer.memref()->memory_space].push_back(&buffer);
  std::unordered_map<const Buffer*, int64_t> addresses;
  for (auto& [space, space_buffers] : by_space) {
    if (space == MemorySpace::DDR) continue;
    std::stable_sort(space_buffers.begin(), space_buffers.end(), [](const Buffer* a, const Buffer* b) {
      return a->memref()->name_hint < b->memref()->name_hint;
    });
    const int64_t alignment = platform.Alignment(space);
    const int64_t reserved = space == reservations.space ? reservations.floor : 0;
    int64_t next = reserved;
    for (const Buffer* buffer : space_buffers) {
      addresses[buffer] = next;
      next = AlignUp(next + buffer->size, alignment);
    }
    int64_t high_water =
        space_buffers.empty() ? 0 : addresses.at(space_buffers.back()) + space_buffers.back()->size;
    if (high_water > platform.Capacity(space)) {
      ThrowExhausted(function.name, space, high_water, reserved, platform, space_buffers);
    }
  }
  return addresses;
}

// `offset` moved by `shift` bytes.
ExprPtr Shifted(const ExprPtr& offset, int64_t shift) {
  if (auto value = ir::AsConstInt(offset)) return ir::Int(*value + shift);
  return ir::BinaryExpr::Make(ir::BinaryOp::Add, ir::Int(shift), offset);
}

// Rebuilds every tile whose MemRef got a new address.
class AddressWriter : public ir::IRMutator {
 public:
  explicit AddressWriter(std::unordered_map<const ir::MemRef*, MemRefPtr> placed) : placed_(std::move(placed)) {}

  VarPtr VisitVarDef(const VarPtr& var) override {
    MemRefPtr memref = ir::MemRefOf(var);
    auto it = memref ? placed_.find(memref.get()) : placed_.end();
    if (it == placed_.end()) return IRMutator::VisitVarDef(var);
    auto type = std::make_shared<ir::TileType>(*As<ir::TileType>(var->type));
    type->memref = it->second;
    VarPtr rebuilt;
    if (auto iter_arg = As<ir::IterArg>(var)) {
      ExprPtr init = iter_arg->init_value ? VisitExpr(iter_arg->init_value) : nullptr;
      rebuilt = ir::IterArg::Make(var->name_hint, type, init, var->span);
    } else {
      rebuilt = ir::Var::Make(var->name_hint, type, var->span);
    }
    Remap(var, rebuilt);
    return rebuilt;
  }

 private:
  std::unordered_map<const ir::MemRef*, MemRefPtr> placed_;
};

FunctionPtr AllocateAddresses(const FunctionPtr& function, const reserved::Reservations& reservations,
                              const backend::Platform& platform) {
  BufferCollector collector;
  collector.VisitFunction(function);
  collector.Measure();
  auto addresses = AssignAddresses(collector.buffers, *function, reservations, platform);
  std::unordered_map<const ir::MemRef*, MemRefPtr> placed;
  for (const auto& buffer : collector.buffers) {
    auto it = addresses.find(&buffer);
    if (it == addresses.end() || it->second == buffer.start) continue;
    // Every MemRef of the buffer moves with it, so views keep their place inside.
    for (const auto& memref : buffer.memrefs) {
      auto moved = std::make_shared<ir::MemRef>(*memref);
      moved->byte_offset = Shifted(memref->byte_offset, it->second - buffer.start);
      placed[memref.get()] = moved;
    }
  }
  if (placed.empty()) return function;
  return AddressWriter(std::move(placed)).VisitFunction(function);
}

}  // namespace

ir::ProgramPtr AllocateMemoryAddrPass::Run(const ir::ProgramPtr& program, pass::PassContext& ctx) {
  const backend::Platform& platform = ctx.platform();
  std::vector<FunctionPtr> functions;
  std::map<std::string, std::map<std::string, int64_t>> reserved_by_kernel;
  for (const auto& function : program->functions) {
    if (!ir::IsCoreKernel(function->func_type)) {
      functions.push_back(function);
      continue;
    }
    reserved::Reservations reservations = reserved::Reserve(*function, platform);
    reserved_by_kernel[function->name] = reservations.by_name;
    functions.push_back(
        reserved::WriteReservedAddresses(AllocateAddresses(function, reservations, platform), reservations));
  }
  // Peers' addresses are known once every kernel is placed.
  bool changed = false;
  for (size_t i = 0; i < functions.size(); ++i) {
    if (ir::IsCoreKernel(functions[i]->func_type)) functions[i] = reserved::ResolveImports(functions[i], reserved_by_kernel);
    changed |= functions[i] != program->functions[i];
  }
  if (!changed) return program;
  return ir::Program::Make(program->name, std::move(functions), program->span);
}

}  // namespace pypto::passes
