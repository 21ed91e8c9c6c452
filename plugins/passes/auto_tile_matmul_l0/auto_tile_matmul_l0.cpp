#include "auto_tile_matmul_l0.h"

#include <functional>
#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pypto/ir/mutator.h"
#include "pypto/ir/tile_storage.h"
#include "pypto/ir/visitor.h"
#include "pypto/ops/registry.h"
#include "pypto/pass/context.h"
#include "pypto/support/error.h"

namespace pypto::passes {

using ir::As;
using ir::Attrs;
using ir::CallPtr;
using ir::DataType;
using ir::ExprPtr;
using ir::MemorySpace;
using ir::Ref;
using ir::StmtPtr;
using ir::Var;
using ir::VarPtr;

namespace {

constexpr const char* kPass = "AutoTileMatmulL0";

// The cube computes on 16 x 16 fractals on every platform, so split extents
// are multiples of 16; the Acc row alignment comes from the platform.
constexpr int64_t kFractalEdge = 16;

int64_t AlignUp(int64_t value, int64_t alignment) { return (value + alignment - 1) / alignment * alignment; }

int64_t Lcm(int64_t a, int64_t b) {
  int64_t x = a;
  int64_t y = b;
  while (y != 0) x = std::exchange(y, x % y);
  return a / x * b;
}

// Block extents for one dim, largest first: the whole extent, then each
// divisor that is a multiple of `alignment`.
std::vector<int64_t> Candidates(int64_t extent, int64_t alignment) {
  std::vector<int64_t> out = {extent};
  for (int64_t block = extent - extent % alignment; block >= alignment; block -= alignment) {
    if (block < extent && extent % block == 0) out.push_back(block);
  }
  return out;
}

std::string Shape2(int64_t rows, int64_t cols) {
  return "[" + std::to_string(rows) + ", " + std::to_string(cols) + "]";
}

}  // namespace

namespace {

// The bytes of the buffer a block takes, in whole fractal blocks as the tiles are stored.
int64_t BlockBytes(int64_t rows, int64_t cols, ir::DataType dtype, MemorySpace space) {
  return ir::StorageBytesOf(*ir::TileType::Make(std::vector<int64_t>{rows, cols}, dtype, space), {rows, cols});
}

}  // namespace

int64_t LeftBytes(const MatmulExtents& e, const L0Tile& t) {
  return BlockBytes(t.m, t.k, e.operand_dtype, MemorySpace::Left);
}
int64_t RightBytes(const MatmulExtents& e, const L0Tile& t) {
  return BlockBytes(t.k, t.n, e.operand_dtype, MemorySpace::Right);
}
int64_t AccBytes(const MatmulExtents& e, const L0Tile& t, const backend::Platform& platform) {
  return BlockBytes(AlignUp(t.m, platform.AccMAlignment(e.acc_dtype)), t.n, e.acc_dtype, MemorySpace::Acc);
}

namespace {

bool BlockFits(const MatmulExtents& e, const L0Tile& t, const backend::Platform& platform) {
  return LeftBytes(e, t) <= platform.Capacity(MemorySpace::Left) &&
         RightBytes(e, t) <= platform.Capacity(MemorySpace::Right) &&
         AccBytes(e, t, platform) <= platform.Capacity(MemorySpace::Acc);
}

}  // namespace

bool FitsL0(const MatmulExtents& e, const backend::Platform& platform) {
  return BlockFits(e, {e.m, e.n, e.k}, platform);
}

std::optional<L0Tile> ChooseL0Tile(const MatmulExtents& e, const backend::Platform& platform) {
  const int64_t m_alignment = Lcm(kFractalEdge, platform.AccMAlignment(e.acc_dtype));
  for (int64_t m : Candidates(e.m, m_alignment)) {
    for (int64_t n : Candidates(e.n, kFractalEdge)) {
      if (AccBytes(e, {m, n, 0}, platform) > platform.Capacity(MemorySpace::Acc)) continue;
      for (int64_t k : Candidates(e.k, kFractalEdge)) {
        if (BlockFits(e, {m, n, k}, platform)) return L0Tile{m, n, k};
      }
    }
  }
  return std::nullopt;
}

namespace {

// ---------------------------------------------------------------- analysis

// How often each variable is read (a product read once may be stored block by block).
class UseCounter : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;

  std::unordered_map<const Var*, int> uses;

  void Visit_(const Ref<Var>& var) override {
    ++uses[var.get()];
    IRVisitor::Visit_(var);
  }
};

CallPtr TileMatmulCall(const StmtPtr& stmt) {
  auto assign = As<ir::AssignStmt>(stmt);
  auto call = assign ? As<ir::Call>(assign->value) : nullptr;
  if (!call || call->is_function_call()) return nullptr;
  const std::string& op = call->op->name;
  return op == "tile.matmul" || op == "tile.matmul_acc" ? call : nullptr;
}

// One matmul to split: its operands (as written) and the blocks chosen.
struct Plan {
  Ref<ir::AssignStmt> assign;
  CallPtr call;
  bool accumulates = false;
  MatmulExtents extents;
  L0Tile tile;

  const ExprPtr& lhs() const { return call->args[accumulates ? 1 : 0]; }
  const ExprPtr& rhs() const { return call->args[accumulates ? 2 : 1]; }
  ExprPtr acc() const { return accumulates ? call->args[0] : nullptr; }
  ExprPtr init_cond() const { return accumulates && call->args.size() > 3 ? call->args[3] : nullptr; }
  bool splits_m() const { return tile.m < extents.m; }
  bool splits_n() const { return tile.n < extents.n; }
};

std::string NameOf(const ExprPtr& e, const std::string& fallback) {
  auto var = As<Var>(e);
  return var ? var->name_hint : fallback;
}

ExprPtr AddIndex(const ExprPtr& a, const ExprPtr& b) {
  if (ir::AsConstInt(a) == 0) return b;
  if (ir::AsConstInt(b) == 0) return a;
  return ir::BinaryExpr::Make(ir::BinaryOp::Add, a, b);
}

// ---------------------------------------------------------------- rewrite

class MatmulTiler : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  MatmulTiler(const ir::Function& f, const backend::Platform& platform) : f_(f), platform_(platform) {
    UseCounter counter;
    counter.VisitStmt(f.body);
    uses_ = std::move(counter.uses);
  }

  // An oversized matmul whose only reader is a later tile.store in the same
  // block is computed block by block at the store, each block stored straight
  // from Acc; any other oversized matmul assembles its blocks into one tile.
  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override {
    std::unordered_map<const ir::Stmt*, Plan> at_store;
    std::vector<StmtPtr> out;
    bool changed = false;
    for (size_t i = 0; i < node->stmts.size(); ++i) {
      const StmtPtr& stmt = node->stmts[i];
      if (auto pending = at_store.find(stmt.get()); pending != at_store.end()) {
        Append(out, StoredBlocks(pending->second, *As<ir::AssignStmt>(stmt)));
        changed = true;
        continue;
      }
      if (std::optional<Plan> plan = PlanFor(stmt)) {
        if (const ir::Stmt* store = OnlyStore(*plan, node->stmts, i)) {
          at_store.emplace(store, std::move(*plan));
        } else {
          Append(out, AssembledBlocks(*plan));
        }
        changed = true;
        continue;
      }
      StmtPtr updated = VisitStmt(stmt);
      changed |= updated != stmt;
      Append(out, updated);
    }
    if (!changed) return node;
    return ir::SeqStmts::Make(std::move(out), node->span);
  }

  // A lone statement (a loop body that is not a SeqStmts).
  StmtPtr Mutate_(const Ref<ir::AssignStmt>& node) override {
    if (std::optional<Plan> plan = PlanFor(node)) return AssembledBlocks(*plan);
    return IRMutator::Mutate_(node);
  }

 private:
  static void Append(std::vector<StmtPtr>& out, const StmtPtr& s) {
    if (auto seq = As<ir::SeqStmts>(s)) {
      out.insert(out.end(), seq->stmts.begin(), seq->stmts.end());
    } else {
      out.push_back(s);
    }
  }

  static CallPtr Create(const std::string& op, std::vector<ExprPtr> args, Attrs kwargs, const Span& span) {
    return ops::OpRegistry::Global().Create(op, std::move(args), std::move(kwargs), span);
  }

  // ------------------------------------------------------------ planning

  std::optional<Plan> PlanFor(const StmtPtr& stmt) const {
    CallPtr call = TileMatmulCall(stmt);
    if (!call) return std::nullopt;
    Plan plan;
    plan.assign = As<ir::AssignStmt>(stmt);
    plan.call = call;
    plan.accumulates = call->op->name == "tile.matmul_acc";
    plan.extents = ExtentsOf(plan);
    if (FitsL0(plan.extents, platform_)) return std::nullopt;
    std::optional<L0Tile> tile = ChooseL0Tile(plan.extents, platform_);
    if (!tile) FailNoTiling(plan);
    RequireSplittableOperand(plan, plan.lhs(), "lhs", MemorySpace::Left);
    RequireSplittableOperand(plan, plan.rhs(), "rhs", MemorySpace::Right);
    plan.tile = *tile;
    return plan;
  }

  MatmulExtents ExtentsOf(const Plan& plan) const {
    auto lhs = As<ir::TileType>(plan.lhs()->type);
    auto rhs = As<ir::TileType>(plan.rhs()->type);
    auto result = As<ir::TileType>(plan.call->type);
    auto a = lhs ? ir::StaticShape(lhs->shape) : std::nullopt;
    auto b = rhs ? ir::StaticShape(rhs->shape) : std::nullopt;
    if (!a || !b || a->size() != 2 || b->size() != 2 || !result) {
      Fail(plan, plan.call->op->name + " needs 2-D operands of static shape to be split into L0 blocks, got lhs " +
                     ShapeText(plan.lhs()) + " and rhs " + ShapeText(plan.rhs()) +
                     "; slice the operands in a pl.range loop with static block sizes so that each matmul fits");
    }
    MatmulExtents e;
    e.m = (*a)[0];
    e.k = (*a)[1];
    e.n = (*b)[1];
    e.operand_dtype = lhs->dtype;
    e.acc_dtype = result->dtype;
    return e;
  }

  // A block is cut out of Mat (or Acc, Vec) by tile.extract; an operand
  // already placed in Left or Right cannot be cut.
  void RequireSplittableOperand(const Plan& plan, const ExprPtr& operand, const std::string& role,
                                MemorySpace l0) const {
    auto tile = As<ir::TileType>(operand->type);
    if (!tile || tile->memory_space != l0) return;
    Fail(plan, "'" + role + "' (" + NameOf(operand, role) + ") is already in " + ir::ToString(l0) +
                   " and too big for it; leave it in Mat (load it with target_memory=pl.Mem.Mat and drop the "
                   "tile.move) so that this pass can cut it into L0 blocks");
  }

  std::string ShapeText(const ExprPtr& e) const {
    auto tile = As<ir::TileType>(e->type);
    if (!tile) return "(not a tile)";
    std::string text = "[";
    for (size_t i = 0; i < tile->shape.size(); ++i) {
      if (i) text += ", ";
      auto v = ir::AsConstInt(tile->shape[i]);
      text += v ? std::to_string(*v) : NameOf(tile->shape[i], "?");
    }
    return text + "]";
  }

  std::string Footprint(const Plan& plan) const {
    const MatmulExtents& e = plan.extents;
    L0Tile whole{e.m, e.n, e.k};
    return "A " + Shape2(e.m, e.k) + " " + e.operand_dtype.name() + " (" + std::to_string(LeftBytes(e, whole)) +
           " bytes, Left holds " + std::to_string(platform_.Capacity(MemorySpace::Left)) + "), B " +
           Shape2(e.k, e.n) + " " + e.operand_dtype.name() + " (" + std::to_string(RightBytes(e, whole)) +
           " bytes, Right holds " + std::to_string(platform_.Capacity(MemorySpace::Right)) + ") and C " +
           Shape2(e.m, e.n) + " " + e.acc_dtype.name() + " (" + std::to_string(AccBytes(e, whole, platform_)) +
           " bytes, Acc holds " + std::to_string(platform_.Capacity(MemorySpace::Acc)) + ") on " + platform_.name;
  }

  [[noreturn]] void FailNoTiling(const Plan& plan) const {
    const MatmulExtents& e = plan.extents;
    const int64_t m_alignment = Lcm(kFractalEdge, platform_.AccMAlignment(e.acc_dtype));
    L0Tile smallest{Candidates(e.m, m_alignment).back(), Candidates(e.n, kFractalEdge).back(),
                    Candidates(e.k, kFractalEdge).back()};
    std::string unsplittable;
    auto note = [&](const char* dim, int64_t extent, int64_t block, int64_t alignment) {
      if (block != extent) return;
      unsplittable += std::string(unsplittable.empty() ? "" : ", ") + dim + "=" + std::to_string(extent) +
                      " has no divisor that is a multiple of " + std::to_string(alignment);
    };
    note("M", e.m, smallest.m, m_alignment);
    note("N", e.n, smallest.n, kFractalEdge);
    note("K", e.k, smallest.k, kFractalEdge);
    Fail(plan, plan.call->op->name + " of " + Footprint(plan) +
                   " does not fit L0, and no split does: the smallest blocks the extents allow are A " +
                   Shape2(smallest.m, smallest.k) + " (" + std::to_string(LeftBytes(e, smallest)) + " bytes), B " +
                   Shape2(smallest.k, smallest.n) + " (" + std::to_string(RightBytes(e, smallest)) + " bytes), C " +
                   Shape2(smallest.m, smallest.n) + " (" + std::to_string(AccBytes(e, smallest, platform_)) +
                   " bytes)" + (unsplittable.empty() ? "" : " (" + unsplittable + ")") +
                   "; pad the extents to multiples of " + std::to_string(kFractalEdge) +
                   ", or slice the operands in a pl.range loop so that each matmul fits");
  }

  [[noreturn]] void Fail(const Plan& plan, const std::string& message) const {
    throw Error(ErrorKind::kValue, std::string(kPass) + ": in function '" + f_.name + "', " + message,
                plan.call->span.known() ? plan.call->span : plan.assign->span);
  }

  // The statement j > i that is `r = tile.store(<the product>, offsets, t)`,
  // when that store is the product's only reader.
  const ir::Stmt* OnlyStore(const Plan& plan, const std::vector<StmtPtr>& stmts, size_t i) const {
    const Var* product = plan.assign->var.get();
    auto count = uses_.find(product);
    if (count == uses_.end() || count->second != 1) return nullptr;
    for (size_t j = i + 1; j < stmts.size(); ++j) {
      auto assign = As<ir::AssignStmt>(stmts[j]);
      auto call = assign ? As<ir::Call>(assign->value) : nullptr;
      if (!call || call->is_function_call() || call->op->name != "tile.store") continue;
      auto source = As<Var>(call->args[0]);
      auto offsets = As<ir::MakeTuple>(call->args[1]);
      bool window = offsets && offsets->elements.size() == 2;
      if (source && source.get() == product && window) return stmts[j].get();
    }
    return nullptr;
  }

  // ------------------------------------------------------------ emission

  using LoopBody = std::function<ExprPtr(const ExprPtr& offset, const ExprPtr& carried, std::vector<StmtPtr>&)>;

  // for offset, (carried,) in pl.range(start, stop, step, init_values=(init,)): body; yield
  // A single iteration needs no loop: the body runs once at `start`.
  VarPtr Loop(const std::string& index_name, int64_t start, int64_t stop, int64_t step, const ExprPtr& init,
              const std::string& carried_name, const std::string& result_name, const LoopBody& body,
              const Span& span, std::vector<StmtPtr>& stmts) {
    if (start + step >= stop) {
      ExprPtr value = body(ir::Int(start), init, stmts);
      if (auto var = As<Var>(value)) return var;
      VarPtr result = Var::Make(result_name, value->type, span);
      stmts.push_back(ir::AssignStmt::Make(result, value, span));
      return result;
    }
    VarPtr index = Var::Make(index_name, ir::ScalarType::Make(DataType::INDEX), span);
    auto carried = ir::IterArg::Make(carried_name, init->type, init, span);
    std::vector<StmtPtr> inner;
    ExprPtr next = body(index, carried, inner);
    inner.push_back(ir::YieldStmt::Make({next}, span));
    VarPtr result = Var::Make(result_name, init->type, span);
    stmts.push_back(ir::ForStmt::Make(index, ir::Int(start), ir::Int(stop), ir::Int(step), {carried},
                                      ir::SeqStmts::Make(std::move(inner), span), {result},
                                      ir::ForKind::Sequential, {}, span));
    return result;
  }

  // The [rows, cols] window of `tile` at (row, col), copied into `space`; the
  // tile itself when the window is all of it.
  ExprPtr Block(const ExprPtr& tile, const ExprPtr& row, const ExprPtr& col, int64_t rows, int64_t cols,
                MemorySpace space, const std::string& name, const Span& span, std::vector<StmtPtr>& stmts) {
    auto type = As<ir::TileType>(tile->type);
    auto shape = ir::StaticShape(type->shape);
    if (shape && (*shape)[0] == rows && (*shape)[1] == cols) return tile;
    CallPtr extract = Create("tile.extract", {tile, row, col, ir::MakeTuple::Make(ir::Ints({rows, cols}))},
                             {{"target_memory", ir::EnumAttr::Of(space)}}, span);
    VarPtr var = Var::Make(name, extract->type, span);
    stmts.push_back(ir::AssignStmt::Make(var, extract, span));
    return var;
  }

  // C[m0:m0+m, n0:n0+n]: the first K step is tile.matmul (tile.matmul_acc
  // onto the accumulator's block for matmul_acc), the later ones
  // tile.matmul_acc carried through a K loop.
  ExprPtr ProductBlock(const Plan& plan, const ExprPtr& m0, const ExprPtr& n0, const std::string& result_name,
                       std::vector<StmtPtr>& stmts) {
    const Span& span = plan.call->span;
    const L0Tile& t = plan.tile;
    ExprPtr lhs = VisitExpr(plan.lhs());
    ExprPtr rhs = VisitExpr(plan.rhs());
    std::string product = plan.assign->var->name_hint;
    auto operands = [&](const ExprPtr& k0, std::vector<StmtPtr>& into) {
      ExprPtr a = Block(lhs, m0, k0, t.m, t.k, MemorySpace::Left, NameOf(lhs, "lhs") + "_l0", span, into);
      ExprPtr b = Block(rhs, k0, n0, t.k, t.n, MemorySpace::Right, NameOf(rhs, "rhs") + "_l0", span, into);
      return std::make_pair(a, b);
    };
    auto [a0, b0] = operands(ir::Int(0), stmts);
    CallPtr first;
    if (plan.accumulates) {
      ExprPtr acc = VisitExpr(plan.acc());
      ExprPtr acc_block = Block(acc, m0, n0, t.m, t.n, MemorySpace::Acc, NameOf(acc, "acc") + "_l0", span, stmts);
      std::vector<ExprPtr> args = {acc_block, a0, b0};
      if (ExprPtr cond = plan.init_cond()) args.push_back(VisitExpr(cond));
      first = Create("tile.matmul_acc", std::move(args), plan.call->kwargs, span);
    } else {
      first = Create("tile.matmul", {a0, b0}, plan.call->kwargs, span);
    }
    VarPtr first_var = Var::Make(product + "_k0", first->type, span);
    stmts.push_back(ir::AssignStmt::Make(first_var, first, span));
    if (t.k == plan.extents.k) return first_var;
    LoopBody k_step = [&](const ExprPtr& k0, const ExprPtr& partial, std::vector<StmtPtr>& body) -> ExprPtr {
      auto [a, b] = operands(k0, body);
      CallPtr step = Create("tile.matmul_acc", {partial, a, b}, {}, span);
      VarPtr next = Var::Make(product + "_next", step->type, span);
      body.push_back(ir::AssignStmt::Make(next, step, span));
      return next;
    };
    return Loop("ko", t.k, plan.extents.k, t.k, first_var, product + "_partial", result_name, k_step, span, stmts);
  }

  // Loops over the M and N blocks (each only when that extent is split),
  // carrying `init` and combining each product block into it.
  using Combine = std::function<ExprPtr(const ExprPtr& carried, const ExprPtr& block, const ExprPtr& m0,
                                        const ExprPtr& n0, std::vector<StmtPtr>&)>;
  VarPtr BlockLoops(const Plan& plan, const ExprPtr& init, const std::string& carried_name,
                    const std::string& result_name, const Combine& combine, std::vector<StmtPtr>& stmts) {
    const Span& span = plan.call->span;
    const L0Tile& t = plan.tile;
    LoopBody rows = [&](const ExprPtr& m0, const ExprPtr& carried_rows, std::vector<StmtPtr>& row_body) -> ExprPtr {
      LoopBody cols = [&](const ExprPtr& n0, const ExprPtr& carried, std::vector<StmtPtr>& body) -> ExprPtr {
        ExprPtr block = ProductBlock(plan, m0, n0, plan.assign->var->name_hint + "_block", body);
        return combine(carried, block, m0, n0, body);
      };
      const bool nested = plan.splits_m();
      return Loop("no", 0, plan.extents.n, t.n, carried_rows, nested ? carried_name + "_col" : carried_name,
                  nested ? carried_name + "_row" : result_name, cols, span, row_body);
    };
    return Loop("mo", 0, plan.extents.m, t.m, init, carried_name, result_name, rows, span, stmts);
  }

  // `c = matmul(...)` read by something other than one store: the blocks go
  // into a fresh [M, N] tile (placed by InferTileMemorySpace), or, when only
  // K is split, the K loop's result is the product.
  StmtPtr AssembledBlocks(const Plan& plan) {
    const Span& span = plan.call->span;
    const VarPtr& product = plan.assign->var;
    std::vector<StmtPtr> stmts;
    VarPtr result;
    if (!plan.splits_m() && !plan.splits_n()) {
      ExprPtr block = ProductBlock(plan, ir::Int(0), ir::Int(0), product->name_hint, stmts);
      result = As<Var>(block);
    } else {
      const MatmulExtents& e = plan.extents;
      CallPtr create =
          Create("tile.create", {ir::MakeTuple::Make(ir::Ints({e.m, e.n}))}, {{"dtype", e.acc_dtype}}, span);
      VarPtr full = Var::Make(product->name_hint + "_full", create->type, span);
      stmts.push_back(ir::AssignStmt::Make(full, create, span));
      Combine assemble = [&](const ExprPtr& carried, const ExprPtr& block, const ExprPtr& m0, const ExprPtr& n0,
                             std::vector<StmtPtr>& body) -> ExprPtr {
        CallPtr put = Create("tile.assemble", {carried, block, ir::MakeTuple::Make({m0, n0})}, {}, span);
        VarPtr var = Var::Make(product->name_hint + "_put", put->type, span);
        body.push_back(ir::AssignStmt::Make(var, put, span));
        return var;
      };
      result = BlockLoops(plan, full, product->name_hint + "_iter", product->name_hint, assemble, stmts);
    }
    Remap(product, result);
    return ir::SeqStmts::Make(std::move(stmts), plan.assign->span);
  }

  // `r = tile.store(c, offsets, t)` with c the oversized product: each block
  // is stored from Acc into its window of t, the loops carrying t.
  StmtPtr StoredBlocks(const Plan& plan, const ir::AssignStmt& store_assign) {
    auto store = As<ir::Call>(store_assign.value);
    const Span& span = store->span;
    auto offsets = As<ir::MakeTuple>(VisitExpr(store->args[1]));
    ExprPtr target = VisitExpr(store->args[2]);
    std::vector<StmtPtr> stmts;
    Combine put = [&](const ExprPtr& carried, const ExprPtr& block, const ExprPtr& m0, const ExprPtr& n0,
                      std::vector<StmtPtr>& body) -> ExprPtr {
      ExprPtr window = ir::MakeTuple::Make({AddIndex(offsets->elements[0], m0), AddIndex(offsets->elements[1], n0)});
      CallPtr stored = Create("tile.store", {block, window, carried}, store->kwargs, span);
      VarPtr var = Var::Make(store_assign.var->name_hint + "_block", stored->type, span);
      body.push_back(ir::AssignStmt::Make(var, stored, span));
      return var;
    };
    std::string name = store_assign.var->name_hint;
    VarPtr result = BlockLoops(plan, target, NameOf(target, "tensor") + "_iter", name, put, stmts);
    Remap(store_assign.var, result);
    return ir::SeqStmts::Make(std::move(stmts), store_assign.span);
  }

  const ir::Function& f_;
  const backend::Platform& platform_;
  std::unordered_map<const Var*, int> uses_;
};

}  // namespace

ir::ProgramPtr AutoTileMatmulL0(const ir::ProgramPtr& program, const backend::Platform& platform) {
  return ir::MapFunctions(program, [&](const ir::FunctionPtr& f) {
    return ir::IsCoreKernel(f->func_type) ? MatmulTiler(*f, platform).VisitFunction(f) : f;
  });
}

ir::ProgramPtr AutoTileMatmulL0Pass::Run(const ir::ProgramPtr& program, pass::PassContext& ctx) {
  return AutoTileMatmulL0(program, ctx.platform());
}

}  // namespace pypto::passes
