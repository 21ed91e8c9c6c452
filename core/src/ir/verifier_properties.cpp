// The rules for properties passes establish: NoNestedCalls, IncoreTileOps,
// TileMemoryInferred, HasMemRefs and AllocatedMemoryAddr. Each runs only when
// VerifyOptions turns it on.
#include "pypto/ops/registry.h"
#include "verifier_internal.h"

namespace pypto::ir::verifier {
namespace {

// Every call nested in an argument of `call`, at any depth.
class NestedCallFinder : public IRVisitor {
 public:
  using IRVisitor::Visit_;
  std::vector<Ref<Call>> found;
  void Visit_(const Ref<Call>& call) override { found.push_back(call); }
};

class PropertyChecker : public StmtTrackingVisitor {
 public:
  PropertyChecker(const VerifyOptions& options, Reporter& reporter)
      : options_(options), reporter_(reporter), kernel_(IsCoreKernel(reporter.function().func_type)) {}

  void Run(const FunctionPtr& function) {
    for (const auto& param : function->params) VisitVarDef(param);
    if (function->body) VisitStmt(function->body);
  }

  void Visit_(const Ref<Call>& call) override {
    if (options_.no_nested_calls) CheckArguments(*call);
    if (options_.incore_tile_ops && kernel_ && !call->is_function_call()) CheckTensorOp(*call);
    VisitChildren(*call);
  }

  void VisitVarDef(const VarPtr& var) override {
    if (kernel_) {
      if (auto tile = As<TileType>(var->type)) CheckTile(*var, *tile);
    }
    StmtTrackingVisitor::VisitVarDef(var);
  }

 private:
  void CheckArguments(const Call& call) {
    NestedCallFinder finder;
    for (const auto& arg : call.args) finder.VisitExpr(arg);
    for (const auto& inner : finder.found) {
      reporter_.Error("NoNestedCalls", "NESTED_CALL", *inner, SpanOf(*inner),
                      "the call of '" + inner->op->name + "' is nested in an argument of '" + call.op->name +
                          "', but NoNestedCalls holds: call arguments are variables or constants. The pass that "
                          "made it must assign the inner call to a variable first (as FlattenCallExpr does), or "
                          "declare NoNestedCalls invalidated");
    }
  }

  void CheckTensorOp(const Call& call) {
    const ops::OpDef* def = ops::OpRegistry::Global().Find(call.op->name);
    if (def == nullptr || def->category() != ops::OpCategory::kTensorOp) return;
    const std::string& name = call.op->name;
    const std::string tile_form = "tile." + name.substr(name.find('.') + 1);
    if (ops::OpRegistry::Global().Find(tile_form) == nullptr) return;
    reporter_.Error("IncoreTileOps", "TENSOR_OP_IN_KERNEL", call, SpanOf(call),
                    "'" + name + "' is a tensor op left in " + ToString(reporter_.function().func_type) + " " +
                        reporter_.FunctionLabel() + ", but IncoreTileOps holds: kernels use tile ops only ('" +
                        tile_form + "' here). Run ConvertTensorToTileOps after the pass that introduced it");
  }

  void CheckTile(const Var& var, const TileType& tile) {
    const std::string what = "tile '" + var.name_hint + "' (" + TypeToString(var.type) + ")";
    if (options_.tile_memory_inferred && !tile.memory_space) {
      reporter_.Error("TileMemoryInferred", "MISSING_MEMORY_SPACE", var, SpanOf(var),
                      what + " has no memory space, but TileMemoryInferred holds; run InferTileMemorySpace after "
                             "the pass that made it, or give its op a target_memory");
    }
    if (!tile.memory_space || *tile.memory_space == MemorySpace::DDR) return;
    if (options_.has_memrefs && !tile.memref) {
      reporter_.Error("HasMemRefs", "MISSING_MEMREF", var, SpanOf(var),
                      what + " has no MemRef, but HasMemRefs holds; run InitMemRef after the pass that made it");
    }
    if (options_.allocated_memory_addr && tile.memref) CheckAddress(var, tile, what);
  }

  // A MemRef's address is constant, or a constant plus a view's dynamic
  // offset; only the constant part can be checked.
  void CheckAddress(const Var& var, const TileType& tile, const std::string& what) {
    const MemRef& memref = *tile.memref;
    ExprPtr offset = memref.byte_offset;
    if (auto sum = As<BinaryExpr>(offset); sum && sum->op == BinaryOp::Add && AsConstInt(sum->lhs)) offset = sum->lhs;
    auto address = AsConstInt(offset);
    if (!address) return;
    auto capacity = options_.capacities.find(memref.memory_space);
    bool inside = *address >= 0 && (capacity == options_.capacities.end() || *address + memref.size <= capacity->second);
    if (inside) return;
    reporter_.Error("AllocatedMemoryAddr", "ADDRESS_OUT_OF_RANGE", var, SpanOf(var),
                    what + " lies at bytes [" + std::to_string(*address) + ", " +
                        std::to_string(*address + memref.size) + ") of " + ToString(memref.memory_space) +
                        (capacity == options_.capacities.end()
                             ? std::string()
                             : ", which has " + std::to_string(capacity->second) + " bytes") +
                        ", but AllocatedMemoryAddr holds; run AllocateMemoryAddr after the pass that moved it");
  }

  const VerifyOptions& options_;
  Reporter& reporter_;
  bool kernel_;
};

}  // namespace

void CheckProperties(const FunctionPtr& function, const VerifyOptions& options, Reporter& reporter) {
  bool any = options.no_nested_calls || options.incore_tile_ops || options.tile_memory_inferred ||
             options.has_memrefs || options.allocated_memory_addr;
  if (!any) return;
  PropertyChecker(options, reporter).Run(function);
}

}  // namespace pypto::ir::verifier
