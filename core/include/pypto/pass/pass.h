// The pass interface. A pass turns a Program into a Program; it states the IR
// properties it requires and produces, and the options it accepts (set from a
// pipeline file). Passes live in plugins and are created by name through the
// PassRegistry.
#pragma once

#include <bitset>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pypto/ir/ir.h"

namespace pypto::pass {

// Properties of a program that passes rely on and establish.
#define PYPTO_IR_PROPERTIES(X)                                                                      \
  X(SSAForm, "every variable is assigned once; loop state is carried by iter_args")                \
  X(TypeChecked, "every op call type-checks")                                                     \
  X(NoNestedCalls, "call arguments are variables or constants, never other calls")                 \
  X(NormalizedStmtStructure, "no nested SeqStmts")                                                 \
  X(NoInlineFunctions, "Inline functions have been spliced into their callers")                    \
  X(NoUnrollLoops, "pl.unroll loops have been expanded")                                           \
  X(SplitIncoreOrch, "placement scopes are outlined into InCore functions")                        \
  X(IncoreTileOps, "InCore functions use tile ops only")                                           \
  X(TileOps2D, "tiles are at most two-dimensional")                                                \
  X(TileMemoryInferred, "every tile has a memory space")                                           \
  X(HasMemRefs, "every tile has a MemRef")                                                         \
  X(AllocatedMemoryAddr, "every MemRef has an address inside its space's capacity")                \
  X(CallDirectionsResolved, "every kernel call argument has a direction")                          \
  X(TileCastsLegalized, "every tile cast is one the platform performs in one instruction")        \
  X(MatmulsFitL0, "every tile matmul's operands and result fit Left, Right and Acc")              \
  X(PipelineLoopsLowered, "no pl.pipeline loops remain")                                           \
  X(TaskDependenciesDerived, "kernel calls carry the task dependencies the compiler could prove")                \
  X(PipesSynchronized, "kernels order their pipes with set_flag / wait_flag events where instructions share memory") \
  X(ScratchTilesMaterialized, "every tile op whose ISA instruction needs a scratch tile has one")

enum class IRProperty {
#define PYPTO_X(name, doc) name,
  PYPTO_IR_PROPERTIES(PYPTO_X)
#undef PYPTO_X
  kCount
};
const char* IRPropertyName(IRProperty p);
const char* IRPropertyDescription(IRProperty p);
// The property named `name` ("SSAForm"), if there is one.
std::optional<IRProperty> IRPropertyFromName(const std::string& name);

class PropertySet {
 public:
  PropertySet() = default;
  PropertySet(std::initializer_list<IRProperty> props) {
    for (auto p : props) Add(p);
  }
  void Add(IRProperty p) { bits_.set(static_cast<size_t>(p)); }
  void Remove(IRProperty p) { bits_.reset(static_cast<size_t>(p)); }
  bool Has(IRProperty p) const { return bits_.test(static_cast<size_t>(p)); }
  bool empty() const { return bits_.none(); }
  void Merge(const PropertySet& o) { bits_ |= o.bits_; }
  void Subtract(const PropertySet& o) { bits_ &= ~o.bits_; }
  // The properties of `this` missing from `available`.
  PropertySet MissingFrom(const PropertySet& available) const {
    PropertySet r;
    r.bits_ = bits_ & ~available.bits_;
    return r;
  }
  std::vector<IRProperty> ToVector() const;
  std::string ToString() const;  // "SSAForm, TypeChecked"
  bool operator==(const PropertySet& o) const { return bits_ == o.bits_; }

 private:
  std::bitset<static_cast<size_t>(IRProperty::kCount)> bits_;
};

// One option a pass accepts in a pipeline file.
struct PassOptionSpec {
  enum class Kind { kBool, kInt, kFloat, kString } kind = Kind::kInt;
  std::string name;
  ir::AttrValue default_value;  // bool, int64_t, double or std::string per kind
  std::string doc;
};
const char* PassOptionKindName(PassOptionSpec::Kind kind);

// Option values after validation: every declared option is present (defaults filled in).
using PassOptions = ir::Attrs;

class PassContext;

class Pass {
 public:
  virtual ~Pass() = default;

  virtual std::string name() const = 0;
  virtual std::string description() const { return ""; }
  virtual PropertySet required() const { return {}; }
  virtual PropertySet produced() const { return {}; }
  // Properties that no longer hold after this pass (unless it produces them again).
  virtual PropertySet invalidated() const { return {}; }
  virtual std::vector<PassOptionSpec> option_specs() const { return {}; }
  // Called once before Run with validated options.
  virtual void Configure(const PassOptions& /*options*/) {}

  virtual ir::ProgramPtr Run(const ir::ProgramPtr& program, PassContext& ctx) = 0;
};

using PassFactory = std::function<std::unique_ptr<Pass>()>;

}  // namespace pypto::pass
