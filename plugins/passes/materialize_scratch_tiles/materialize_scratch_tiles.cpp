#include "materialize_scratch_tiles.h"

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "pypto/ir/mutator.h"
#include "pypto/ops/registry.h"
#include "pypto/support/error.h"

namespace pypto::passes {

using ir::As;
using ir::ExprPtr;
using ir::Ref;
using ir::StmtPtr;

namespace {

// The tile ops whose PTO-ISA instruction takes a scratch tile that the
// language lets a program leave out, and the position of that operand:
// TTRANS(dst, src, tmp) stages the transpose in tmp, TSEL(dst, mask, a, b,
// tmp) expands the mask into it.
const std::map<std::string, size_t>& ScratchOperands() {
  static const std::map<std::string, size_t> operands = {{"tile.transpose", 3}, {"tile.sel", 3}};
  return operands;
}

class ScratchMaterializer : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  explicit ScratchMaterializer(const ir::Function& function) : function_(function) {}

  StmtPtr Mutate_(const Ref<ir::AssignStmt>& node) override {
    StmtPtr visited = IRMutator::Mutate_(node);
    auto assign = As<ir::AssignStmt>(visited);
    auto call = assign ? As<ir::Call>(assign->value) : nullptr;
    if (!call || call->is_function_call()) return visited;
    auto it = ScratchOperands().find(call->op->name);
    if (it == ScratchOperands().end() || call->args.size() != it->second) return visited;
    auto result = As<ir::TileType>(call->type);
    auto shape = result ? ir::StaticShape(result->shape) : std::nullopt;
    if (!shape) NeedsStaticShape(*call, assign->var->name_hint);
    const Span& span = call->span;
    std::vector<ExprPtr> extents = ir::Ints(*shape);
    ir::Attrs attrs{{"dtype", result->dtype}};
    if (result->memory_space) attrs.Set("target_memory", ir::EnumAttr::Of(*result->memory_space));
    ExprPtr create = ops::OpRegistry::Global().Create("tile.create", {ir::MakeTuple::Make(std::move(extents))},
                                                      std::move(attrs), span);
    auto scratch = ir::Var::Make(assign->var->name_hint + "_tmp", create->type, span);
    std::vector<ExprPtr> args = call->args;
    args.push_back(scratch);
    ExprPtr rebuilt = ops::OpRegistry::Global().Create(call->op->name, std::move(args), call->kwargs, span);
    return ir::SeqStmts::Make({ir::AssignStmt::Make(scratch, create, span),
                               ir::AssignStmt::Make(assign->var, rebuilt, assign->span)},
                              assign->span);
  }

  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override { return MutateSplicingStatements(node); }

 private:
  [[noreturn]] void NeedsStaticShape(const ir::Call& call, const std::string& result) const {
    std::string where = std::string(MaterializeScratchTilesPass::kName) + ": in function '" + function_.name +
                        "', the " + call.op->name + " that defines '" + result + "'";
    if (call.span.known()) where += " (line " + std::to_string(call.span.begin_line) + ")";
    throw Error(ErrorKind::kValue,
                where + " needs a scratch tile of its result's shape, and that shape is not static. Give the tile a "
                        "static shape (a dynamic extent belongs in its valid shape), or pass a scratch tile as its "
                        "`tmp` operand",
                call.span);
  }

  const ir::Function& function_;
};

}  // namespace

ir::ProgramPtr MaterializeScratchTilesPass::Run(const ir::ProgramPtr& program, pass::PassContext&) {
  return ir::MapFunctions(program, [](const ir::FunctionPtr& f) {
    return ir::IsCoreKernel(f->func_type) ? ScratchMaterializer(*f).VisitFunction(f) : f;
  });
}

}  // namespace pypto::passes
