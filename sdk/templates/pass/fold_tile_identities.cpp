// FoldTileIdentities: removes tile ops that return their tile operand
// unchanged, and makes later uses read that operand instead:
//
//   y = pl.tile.muls(x, 1.0)   y = pl.tile.divs(x, 1.0)   y = pl.tile.subs(x, 0.0)
//   y = pl.tile.adds(x, 0)     (integer tiles)
//   y = pl.tile.adds(x, 0.0)   (float tiles, only with the option fold_add_zero: true)
//
// Each fold saves one vector instruction and the on-chip buffer of y. Adding
// 0.0 to a float is not exact (-0.0 + 0.0 is +0.0), so that fold is opt-in.
//
// This file is the whole plugin: the pass class, and the registration the
// core calls when it loads the library (PYPTO_PLUGIN at the bottom).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "pypto/ir/mutator.h"
#include "pypto/plugin/abi.h"

namespace {

using namespace pypto;

constexpr const char* kPassName = "FoldTileIdentities";
constexpr const char* kDescription = "Removes tile ops that return their operand: x*1, x/1, x-0 (and x+0)";

// The value of a numeric literal, whatever its dtype; nullopt for anything else.
std::optional<double> LiteralValue(const ir::ExprPtr& expr) {
  if (auto f = ir::As<ir::ConstFloat>(expr)) return f->value;
  if (auto i = ir::As<ir::ConstInt>(expr)) return static_cast<double>(i->value);
  return std::nullopt;
}

// The element dtype of a tile-typed expression; nullopt when it is not a tile.
std::optional<ir::DataType> TileDType(const ir::ExprPtr& expr) {
  if (auto tile = ir::As<ir::TileType>(expr->type)) return tile->dtype;
  return std::nullopt;
}

class IdentityFolder : public ir::IRMutator {
 public:
  explicit IdentityFolder(bool fold_add_zero) : fold_add_zero_(fold_add_zero) {}

  // `y = <identity op>(x, c)` disappears, and later uses of y read x.
  ir::StmtPtr Mutate_(const ir::Ref<ir::AssignStmt>& node) override {
    if (ir::VarPtr operand = IdentityOperand(*node)) {
      Remap(node->var, Remapped(operand));
      return ir::SeqStmts::Make({}, node->span);
    }
    return ir::IRMutator::Mutate_(node);
  }

  // Splices the empty statement lists left by folds into their parent, so
  // the result prints and compares like a program written without them.
  ir::StmtPtr Mutate_(const ir::Ref<ir::SeqStmts>& node) override { return MutateSplicingStatements(node); }

 private:
  // x when `assign` is `y = op(x, c)` with c the identity of op and y of x's dtype.
  ir::VarPtr IdentityOperand(const ir::AssignStmt& assign) const {
    auto call = ir::As<ir::Call>(assign.value);
    if (!call || call->is_function_call() || call->args.size() != 2) return nullptr;
    auto operand = ir::As<ir::Var>(call->args[0]);
    std::optional<double> scalar = LiteralValue(call->args[1]);
    if (!operand || !scalar) return nullptr;
    std::optional<ir::DataType> dtype = TileDType(operand);
    // A dtype change (an int tile scaled by a float) is not an identity.
    if (!dtype || dtype != TileDType(assign.var)) return nullptr;
    return IsIdentity(call->callee_name(), *scalar, *dtype) ? operand : nullptr;
  }

  bool IsIdentity(const std::string& op, double scalar, ir::DataType dtype) const {
    if (op == "tile.muls" || op == "tile.divs") return scalar == 1.0;
    if (op == "tile.subs") return scalar == 0.0;
    if (op == "tile.adds") return scalar == 0.0 && (!dtype.is_float() || fold_add_zero_);
    return false;
  }

  bool fold_add_zero_;
};

class FoldTileIdentities : public pass::Pass {
 public:
  std::string name() const override { return kPassName; }
  std::string description() const override { return kDescription; }
  // Uses of a folded variable are redirected, which is only sound when it has one definition.
  pass::PropertySet required() const override { return {pass::IRProperty::SSAForm}; }

  std::vector<pass::PassOptionSpec> option_specs() const override {
    return {{pass::PassOptionSpec::Kind::kBool, "fold_add_zero", false,
             "also fold x + 0.0 on float tiles (an element -0.0 then stays -0.0 instead of becoming +0.0)"}};
  }
  // Called once before Run, with every option present (defaults filled in).
  void Configure(const pass::PassOptions& options) override { fold_add_zero_ = *options.Get<bool>("fold_add_zero"); }

  ir::ProgramPtr Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) override {
    IdentityFolder folder(fold_add_zero_);
    return folder.VisitProgram(program);
  }

 private:
  bool fold_add_zero_ = false;
};

void Register(plugin::PluginRegistrar& registrar) {
  registrar.AddPass(kPassName, kDescription, [] { return std::make_unique<FoldTileIdentities>(); });
}

}  // namespace

// The plugin's name (the manifest's `name:`, the CMake target's name), its
// version (the project's, from CMakeLists.txt), and the function that registers its passes.
PYPTO_PLUGIN("fold_tile_identities", PLUGIN_VERSION, Register)
