#include "reserved_buffers.h"

#include <algorithm>
#include <vector>

#include "pypto/ir/mutator.h"
#include "pypto/ir/visitor.h"
#include "pypto/support/error.h"

namespace pypto::passes::reserved {

using ir::As;
using ir::Ref;

namespace {

int64_t AlignUp(int64_t value, int64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

class CallFinder : public ir::IRVisitor {
 public:
  explicit CallFinder(std::string op) : op_(std::move(op)) {}
  using IRVisitor::Visit_;
  std::vector<Ref<ir::Call>> calls;
  void Visit_(const Ref<ir::Call>& call) override {
    if (!call->is_function_call() && call->op->name == op_) calls.push_back(call);
    IRVisitor::Visit_(call);
  }

 private:
  std::string op_;
};

std::vector<Ref<ir::Call>> CallsOf(const ir::Function& function, const std::string& op) {
  CallFinder finder(op);
  if (function.body) finder.VisitStmt(function.body);
  return finder.calls;
}

// Rebuilds the calls whose `base` changed.
class BaseWriter : public ir::IRMutator {
 public:
  explicit BaseWriter(std::map<const ir::Call*, int64_t> bases) : bases_(std::move(bases)) {}
  ir::ExprPtr Mutate_(const Ref<ir::Call>& call) override {
    auto it = bases_.find(call.get());
    if (it == bases_.end()) return IRMutator::Mutate_(call);
    auto copy = std::make_shared<ir::Call>(*call);
    copy->kwargs.Set("base", it->second);
    return copy;
  }

 private:
  std::map<const ir::Call*, int64_t> bases_;
};

[[noreturn]] void Fail(const ir::Function& function, const ir::Call& call, const std::string& what) {
  throw Error(ErrorKind::kValue, "AllocateMemoryAddr: in kernel '" + function.name + "', " + what, call.span);
}

}  // namespace

Reservations Reserve(const ir::Function& function, const backend::Platform& platform) {
  Reservations out;
  out.space = function.func_type == ir::FunctionType::AIC ? ir::MemorySpace::Mat : ir::MemorySpace::Vec;
  if (!platform.HasSpace(out.space)) return out;
  const int64_t alignment = platform.Alignment(out.space);
  const int64_t capacity = platform.Capacity(out.space);
  out.floor = AlignUp(function.attrs.Get<int64_t>("pipe_ring_bytes").value_or(0), alignment);
  struct Range {
    int64_t begin, end;
    std::string name;
  };
  std::vector<Range> taken;
  if (out.floor > 0) taken.push_back({0, out.floor, "the cross-core ring"});
  for (const auto& call : CallsOf(function, "system.reserve_buffer")) {
    std::string name = *call->kwargs.Get<std::string>("name");
    int64_t size = *call->kwargs.Get<int64_t>("size");
    int64_t base = call->kwargs.Get<int64_t>("base").value_or(-1);
    if (out.by_name.count(name)) Fail(function, *call, "the buffer '" + name + "' is reserved twice; name each once");
    if (base < 0) base = out.floor;
    if (base % alignment != 0) {
      Fail(function, *call, "the buffer '" + name + "' at base " + std::to_string(base) + " is not aligned to " +
                                std::to_string(alignment) + " bytes, which " + ir::ToString(out.space) + " needs");
    }
    for (const Range& other : taken) {
      if (base < other.end && other.begin < base + size) {
        Fail(function, *call, "the buffer '" + name + "' [" + std::to_string(base) + ", " +
                                  std::to_string(base + size) + ") overlaps " + other.name + " [" +
                                  std::to_string(other.begin) + ", " + std::to_string(other.end) +
                                  "); give it another base, or pl.AUTO");
      }
    }
    if (base + size > capacity) {
      Fail(function, *call, "the buffer '" + name + "' ends at byte " + std::to_string(base + size) + " but " +
                                ir::ToString(out.space) + " on platform '" + platform.name + "' holds " +
                                std::to_string(capacity) + "; reserve fewer bytes");
    }
    taken.push_back({base, base + size, "the buffer '" + name + "'"});
    out.addresses[call.get()] = base;
    out.by_name[name] = base;
    out.floor = std::max(out.floor, AlignUp(base + size, alignment));
  }
  return out;
}

ir::FunctionPtr WriteReservedAddresses(const ir::FunctionPtr& function, const Reservations& reservations) {
  if (reservations.addresses.empty()) return function;
  return BaseWriter(reservations.addresses).VisitFunction(function);
}

ir::FunctionPtr ResolveImports(const ir::FunctionPtr& function,
                               const std::map<std::string, std::map<std::string, int64_t>>& reserved) {
  std::map<const ir::Call*, int64_t> bases;
  for (const auto& call : CallsOf(*function, "system.import_peer_buffer")) {
    std::string name = *call->kwargs.Get<std::string>("name");
    std::string peer = *call->kwargs.Get<std::string>("peer");
    auto kernel = reserved.find(peer);
    auto buffer = kernel == reserved.end() ? nullptr : &kernel->second;
    if (!buffer || !buffer->count(name)) {
      Fail(*function, *call, "pl.import_peer_buffer(name=\"" + name + "\", peer=" + peer + ") finds no buffer '" +
                                 name + "' reserved by kernel '" + peer +
                                 "'; the peer must call pl.reserve_buffer(name=\"" + name + "\", size=...)");
    }
    bases[call.get()] = buffer->at(name);
  }
  if (bases.empty()) return function;
  return BaseWriter(std::move(bases)).VisitFunction(function);
}

}  // namespace pypto::passes::reserved
