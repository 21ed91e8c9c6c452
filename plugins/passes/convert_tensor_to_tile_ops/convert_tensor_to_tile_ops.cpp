#include "convert_tensor_to_tile_ops.h"

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "pypto/ir/mutator.h"
#include "pypto/ir/visitor.h"
#include "pypto/ops/registry.h"
#include "pypto/support/error.h"

namespace pypto::passes {

using ir::As;
using ir::Attrs;
using ir::CallPtr;
using ir::DataType;
using ir::ExprPtr;
using ir::Ref;
using ir::StmtPtr;
using ir::TypePtr;
using ir::Var;
using ir::VarPtr;

namespace {

constexpr const char* kPass = "ConvertTensorToTileOps";

CallPtr Create(const std::string& op, std::vector<ExprPtr> args, Attrs kwargs, const Span& span) {
  return ops::OpRegistry::Global().Create(op, std::move(args), std::move(kwargs), span);
}

ExprPtr IndexList(std::vector<ExprPtr> values) { return ir::MakeTuple::Make(std::move(values)); }
ExprPtr Zeros(size_t rank) { return IndexList(std::vector<ExprPtr>(rank, ir::Int(0))); }

Ref<ir::TensorType> TensorTypeOf(const ExprPtr& e) { return e ? As<ir::TensorType>(e->type) : nullptr; }
Ref<ir::TileType> TileTypeOf(const ExprPtr& e) { return e ? As<ir::TileType>(e->type) : nullptr; }

std::string TensorOpSuffix(const ir::Call& call) {
  const std::string& name = call.op->name;
  return name.rfind("tensor.", 0) == 0 ? name.substr(7) : std::string();
}

// A statically shaped [M, N] tensor's extents.
std::optional<std::pair<int64_t, int64_t>> Static2D(const ExprPtr& e) {
  auto type = TensorTypeOf(e);
  if (!type || type->rank() != 2) return std::nullopt;
  auto shape = ir::StaticShape(type->shape);
  if (!shape) return std::nullopt;
  return std::make_pair((*shape)[0], (*shape)[1]);
}

// ---------------------------------------------------------------- tiling plan

// Where one iteration's window sits when an element-wise chain is tiled: a
// pl.range loop over blocks of `block` rows (axis 0) or columns (axis 1).
struct Window {
  size_t axis = 0;
  int64_t block = 0;
  int64_t rows = 0;
  int64_t cols = 0;
  VarPtr offset;  // the loop variable
};

// The tile op a tensor op lowers to one-for-one in an element-wise chain: same
// arity, Vec in and out, so it works on any window of its operands.
const ops::OpDef* ElementwiseTileOp(const ir::Call& call) {
  std::string suffix = TensorOpSuffix(call);
  if (suffix.empty() || suffix == "matmul" || suffix == "matmul_acc") return nullptr;
  const ops::OpDef* def = ops::OpRegistry::Global().Find("tile." + suffix);
  if (def == nullptr || def->args().size() != call.args.size()) return nullptr;
  const ops::OutputMemoryRule& out = def->output_memory();
  if (out.kind != ops::OutputMemoryRule::Kind::kFixed || out.space != ir::MemorySpace::Vec) return nullptr;
  return def;
}

bool AllZero(const ExprPtr& offsets) {
  auto tuple = As<ir::MakeTuple>(offsets);
  if (!tuple) return false;
  for (const auto& e : tuple->elements) {
    if (ir::AsConstInt(e) != 0) return false;
  }
  return true;
}

// The bytes per element of every tile an element-wise chain keeps live (all
// of them, counted at once), or nullopt when the body is not such a chain:
// top-level assignments of element-wise ops and whole-tensor assembles over
// one static [M, N] shape, then a return.
struct ChainShape {
  int64_t rows = 0;
  int64_t cols = 0;
  int64_t bytes_per_element = 0;  // summed over the chain's tiles
};

std::optional<ChainShape> ElementwiseChain(const ir::Function& f) {
  std::vector<StmtPtr> stmts = ir::Flatten(f.body);
  if (stmts.empty() || !ir::IsA<ir::ReturnStmt>(stmts.back())) return std::nullopt;
  std::set<const Var*> params;
  for (const auto& p : f.params) params.insert(p.get());
  std::set<const Var*> computed;
  std::set<const Var*> loaded;
  std::set<const Var*> assembled;
  ChainShape chain;
  std::optional<std::pair<int64_t, int64_t>> shape;
  auto same_shape = [&](const ExprPtr& e) {
    auto s = Static2D(e);
    if (!s) return false;
    if (!shape) shape = s;
    return *s == *shape;
  };
  for (size_t i = 0; i + 1 < stmts.size(); ++i) {
    auto assign = As<ir::AssignStmt>(stmts[i]);
    auto call = assign ? As<ir::Call>(assign->value) : nullptr;
    if (!call) return std::nullopt;
    if (call->op->name == "tensor.assemble") {
      auto target = As<Var>(call->args[0]);
      auto source = As<Var>(call->args[1]);
      bool target_ok = target && (params.count(target.get()) || assembled.count(target.get()));
      if (!target_ok || !source || !computed.count(source.get()) || !AllZero(call->args[2]) ||
          !same_shape(call->args[0]) || !same_shape(call->args[1])) {
        return std::nullopt;
      }
      assembled.insert(assign->var.get());
      continue;
    }
    if (ElementwiseTileOp(*call) == nullptr || !same_shape(assign->var)) return std::nullopt;
    for (const auto& arg : call->args) {
      if (!TensorTypeOf(arg)) continue;
      auto var = As<Var>(arg);
      if (!var || !same_shape(arg)) return std::nullopt;
      if (params.count(var.get()) && loaded.insert(var.get()).second) {
        chain.bytes_per_element += TensorTypeOf(var)->dtype.get_byte();
      } else if (!params.count(var.get()) && !computed.count(var.get())) {
        return std::nullopt;
      }
    }
    computed.insert(assign->var.get());
    chain.bytes_per_element += TensorTypeOf(assign->var)->dtype.get_byte();
  }
  if (!shape || computed.empty()) return std::nullopt;
  chain.rows = shape->first;
  chain.cols = shape->second;
  return chain;
}

// The largest power of two that divides `extent` and keeps `bytes_per_unit`
// times it within `capacity`; 0 when even one unit does not fit.
int64_t LargestBlock(int64_t extent, int64_t bytes_per_unit, int64_t capacity) {
  int64_t best = 0;
  for (int64_t block = 1; block <= extent && block * bytes_per_unit <= capacity; block *= 2) {
    if (extent % block == 0) best = block;
  }
  return best;
}

std::optional<Window> PlanWindow(const ir::Function& f, int64_t capacity) {
  auto chain = ElementwiseChain(f);
  if (!chain) return std::nullopt;
  const int64_t row_bytes = chain->cols * chain->bytes_per_element;
  if (chain->rows * row_bytes <= capacity) return std::nullopt;
  Window w;
  w.rows = chain->rows;
  w.cols = chain->cols;
  if (int64_t rows = LargestBlock(chain->rows, row_bytes, capacity); rows > 0) {
    w.axis = 0;
    w.block = rows;
  } else if (int64_t cols = LargestBlock(chain->cols, chain->rows * chain->bytes_per_element, capacity); cols > 0) {
    w.axis = 1;
    w.block = cols;
  } else {
    throw Error(ErrorKind::kValue,
                std::string(kPass) + ": in function '" + f.name + "', the element-wise chain over [" +
                    std::to_string(chain->rows) + ", " + std::to_string(chain->cols) + "] keeps " +
                    std::to_string(chain->bytes_per_element) + " bytes per element in live tiles; neither one row (" +
                    std::to_string(row_bytes) + " bytes) nor one column (" +
                    std::to_string(chain->rows * chain->bytes_per_element) + " bytes) fits in the " +
                    std::to_string(capacity) +
                    " bytes of Vec; split the chain, or slice the tensors in a pl.range loop yourself",
                f.span);
  }
  w.offset = Var::Make(w.axis == 0 ? "row" : "col", ir::ScalarType::Make(DataType::INDEX), f.span);
  return w;
}

// ---------------------------------------------------------------- conversion

const std::map<std::string, std::string> kExpandSuffix = {{"add", "add"}, {"sub", "sub"},     {"mul", "mul"},
                                                          {"div", "div"}, {"maximum", "max"}, {"minimum", "min"}};
const std::set<std::string> kCommutative = {"add", "mul", "maximum", "minimum"};
const std::map<std::string, std::string> kScalarForm = {{"maximum", "maximums"}, {"minimum", "minimums"}};

enum class Broadcast { kNone, kRow, kCol };

// How `small` broadcasts against `big` ([M, 1] rows or [1, N] columns).
Broadcast BroadcastOf(const ir::TileType& big, const ir::TileType& small) {
  if (big.rank() != 2 || small.rank() != 2) return Broadcast::kNone;
  auto b = ir::StaticShape(big.shape);
  auto s = ir::StaticShape(small.shape);
  if (!b || !s || *b == *s) return Broadcast::kNone;
  if ((*s)[1] == 1 && (*s)[0] == (*b)[0]) return Broadcast::kRow;
  if ((*s)[0] == 1 && (*s)[1] == (*b)[1]) return Broadcast::kCol;
  return Broadcast::kNone;
}

class KernelConverter : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  KernelConverter(const ir::Function& f, std::optional<Window> window) : f_(f), window_(std::move(window)) {
    for (const auto& p : f.params) params_.insert(p.get());
  }

  ir::FunctionPtr Convert() {
    FindEntryLoads();
    std::vector<StmtPtr> stmts = ir::Flatten(f_.body);
    std::vector<StmtPtr> out;
    auto ret = stmts.empty() ? nullptr : As<ir::ReturnStmt>(stmts.back());
    if (ret) stmts.pop_back();
    if (window_) {
      out.push_back(TiledLoop(stmts, ret));
    } else {
      for (const auto& p : f_.params) {
        if (entry_loads_.count(p.get())) out.push_back(EntryLoad(p));
      }
      for (const auto& s : stmts) Append(out, VisitStmt(s));
      if (ret) Append(out, ConvertReturn(*ret));
    }
    auto copy = std::make_shared<ir::Function>(f_);
    copy->params.insert(copy->params.end(), new_outs_.begin(), new_outs_.end());
    copy->param_directions = Directions();
    copy->body = ir::SeqStmts::Make(std::move(out), f_.body->span);
    return copy;
  }

  const std::vector<VarPtr>& new_outs() const { return new_outs_; }

  StmtPtr Mutate_(const Ref<ir::AssignStmt>& node) override {
    auto call = As<ir::Call>(node->value);
    if (!call || call->is_function_call() || TensorOpSuffix(*call).empty()) return IRMutator::Mutate_(node);
    std::vector<StmtPtr> stmts;
    const std::string suffix = TensorOpSuffix(*call);
    if (suffix == "assemble") {
      if (!TileOf(call->args[1])) return IRMutator::Mutate_(node);
      ConvertAssemble(*node, *call, stmts);
    } else if (suffix == "slice" && !TileOf(call->args[0])) {
      Bind(node->var, Create("tile.load", SliceLoadArgs(*call), {}, call->span), stmts);
    } else if (HasTileCounterpart(suffix)) {
      Bind(node->var, ConvertCompute(*call, suffix, stmts), stmts);
    } else {
      return IRMutator::Mutate_(node);
    }
    return stmts.size() == 1 ? stmts.front() : ir::SeqStmts::Make(std::move(stmts), node->span);
  }

  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override {
    std::vector<StmtPtr> stmts;
    for (const auto& child : node->stmts) Append(stmts, VisitStmt(child));
    return ir::SeqStmts::Make(std::move(stmts), node->span);
  }

  // A loop may carry GM tensors (assembled into), not values that became tiles.
  VarPtr VisitVarDef(const VarPtr& var) override {
    auto iter_arg = As<ir::IterArg>(var);
    if (iter_arg && TensorTypeOf(iter_arg) && TileOf(iter_arg->init_value)) {
      Fail("the loop carries '" + iter_arg->name_hint +
               "', a tensor computed by tensor ops, which this pass turns into a tile; carry the tensor you "
               "assemble results into instead, or compute the value inside the loop",
           iter_arg->span);
    }
    return IRMutator::VisitVarDef(var);
  }

 private:
  static void Append(std::vector<StmtPtr>& out, const StmtPtr& s) {
    if (auto seq = As<ir::SeqStmts>(s)) {
      out.insert(out.end(), seq->stmts.begin(), seq->stmts.end());
    } else {
      out.push_back(s);
    }
  }

  static bool HasTileCounterpart(const std::string& suffix) {
    return ops::OpRegistry::Global().Find("tile." + suffix) != nullptr;
  }

  [[noreturn]] void Fail(const std::string& message, const Span& span) const {
    throw Error(ErrorKind::kValue, std::string(kPass) + ": in function '" + f_.name + "', " + message, span);
  }

  // Params read by converted compute ops get one load at entry (inside the
  // loop when tiled); params only sliced or assembled into manage their own.
  void FindEntryLoads() {
    class Finder : public ir::IRVisitor {
     public:
      using IRVisitor::Visit_;
      explicit Finder(KernelConverter& c) : c_(c) {}
      void Visit_(const Ref<ir::Call>& call) override {
        std::string suffix = TensorOpSuffix(*call);
        bool compute = !suffix.empty() && suffix != "slice" && suffix != "assemble" && HasTileCounterpart(suffix);
        for (const auto& arg : call->args) {
          auto var = As<Var>(arg);
          if (compute && var && c_.params_.count(var.get()) && TensorTypeOf(var)) c_.entry_loads_.insert(var.get());
        }
        IRVisitor::Visit_(call);
      }

     private:
      KernelConverter& c_;
    };
    Finder finder(*this);
    finder.VisitStmt(f_.body);
    read_params_ = entry_loads_;
  }

  StmtPtr EntryLoad(const VarPtr& param) {
    auto type = TensorTypeOf(param);
    std::vector<ExprPtr> offsets(type->rank(), ir::Int(0));
    std::vector<ExprPtr> shape = type->shape;
    if (window_) {
      offsets[window_->axis] = window_->offset;
      shape[window_->axis] = ir::Int(window_->block);
    }
    CallPtr load = Create("tile.load", {param, IndexList(offsets), IndexList(shape)}, {}, param->span);
    VarPtr tile = Var::Make(param->name_hint + "_tile", load->type, param->span);
    param_tiles_[param.get()] = tile;
    return ir::AssignStmt::Make(tile, load, param->span);
  }

  // The tile holding `e`'s value, if it has one.
  VarPtr TileOf(const ExprPtr& e) const {
    auto var = As<Var>(e);
    if (!var) return nullptr;
    if (auto it = param_tiles_.find(var.get()); it != param_tiles_.end()) return it->second;
    VarPtr mapped = Remapped(var);
    return TileTypeOf(mapped) ? mapped : nullptr;
  }

  ExprPtr OperandTile(const ir::Call& call, size_t i) {
    const ExprPtr& arg = call.args[i];
    if (!TensorTypeOf(arg)) return VisitExpr(arg);
    if (VarPtr tile = TileOf(arg)) return tile;
    Fail("argument " + std::to_string(i) + " of " + call.op->name +
             " is a tensor this pass cannot load (it is not a parameter or a converted value); assign it to a "
             "variable first",
         call.span);
  }

  std::vector<ExprPtr> SliceLoadArgs(const ir::Call& slice) {
    // tensor.slice(input, shape, offset[, valid_shape]) -> tile.load(input, offset, shape[, valid_shape])
    std::vector<ExprPtr> args = {VisitExpr(slice.args[0]), VisitExpr(slice.args[2]), VisitExpr(slice.args[1])};
    if (slice.args.size() > 3) args.push_back(VisitExpr(slice.args[3]));
    if (auto var = As<Var>(slice.args[0]); var && params_.count(var.get())) read_params_.insert(var.get());
    return args;
  }

  // The tile op for one tensor compute op, with broadcasting, scratch tiles
  // and a cast back to the tensor's dtype where the tile op differs.
  ExprPtr ConvertCompute(const ir::Call& call, const std::string& suffix, std::vector<StmtPtr>& stmts) {
    std::vector<ExprPtr> args;
    for (size_t i = 0; i < call.args.size(); ++i) args.push_back(OperandTile(call, i));
    Attrs kwargs = call.kwargs;
    std::string op = "tile." + suffix;
    if (suffix == "matmul") {
      if (call.kwargs.Get<bool>("a_trans").value_or(false) || call.kwargs.Get<bool>("b_trans").value_or(false)) {
        Fail(
            "tensor.matmul with a_trans/b_trans is not lowered to a tile matmul here; transpose the operand "
            "before the matmul",
            call.span);
      }
      kwargs = {};
    } else if (kExpandSuffix.count(suffix) && args.size() == 2) {
      op = BinaryOp(suffix, args, call.span, stmts);
    }
    AddScratchTiles(op, args, call.span, stmts);
    ExprPtr result = Create(op, std::move(args), std::move(kwargs), call.span);
    return CastToTensorDType(result, call, stmts);
  }

  std::string BinaryOp(const std::string& suffix, std::vector<ExprPtr>& args, const Span& span,
                       std::vector<StmtPtr>& stmts) {
    auto lhs = TileTypeOf(args[0]);
    auto rhs = TileTypeOf(args[1]);
    if (lhs && !rhs && kScalarForm.count(suffix)) return "tile." + kScalarForm.at(suffix);
    if (!lhs || !rhs) return "tile." + suffix;
    if (Broadcast b = BroadcastOf(*lhs, *rhs); b != Broadcast::kNone) {
      return std::string(b == Broadcast::kRow ? "tile.row_expand_" : "tile.col_expand_") + kExpandSuffix.at(suffix);
    }
    Broadcast b = BroadcastOf(*rhs, *lhs);
    if (b == Broadcast::kNone) return "tile." + suffix;
    if (kCommutative.count(suffix)) {
      std::swap(args[0], args[1]);
      return std::string(b == Broadcast::kRow ? "tile.row_expand_" : "tile.col_expand_") + kExpandSuffix.at(suffix);
    }
    // sub/div with the broadcast value on the left: expand it to the full shape first.
    CallPtr expand = Create(b == Broadcast::kRow ? "tile.row_expand" : "tile.col_expand", {args[1], args[0]}, {}, span);
    VarPtr expanded = Var::Make(As<Var>(args[0])->name_hint + "_expanded", expand->type, span);
    stmts.push_back(ir::AssignStmt::Make(expanded, expand, span));
    args[0] = expanded;
    return "tile." + suffix;
  }

  // Row reductions (and other ops with a required scratch argument) get a
  // tile.create of the input's shape and dtype.
  void AddScratchTiles(const std::string& op, std::vector<ExprPtr>& args, const Span& span,
                       std::vector<StmtPtr>& stmts) {
    const ops::OpDef& def = ops::OpRegistry::Global().Get(op, span);
    for (size_t i = args.size(); i < def.args().size(); ++i) {
      const ops::ArgSpec& spec = def.args()[i];
      if (spec.optional || spec.name.find("tmp") == std::string::npos) break;
      auto input = TileTypeOf(args[0]);
      auto shape = input ? ir::StaticShape(input->shape) : std::nullopt;
      if (!shape) Fail(op + " needs a scratch tile, which needs a static input shape", span);
      CallPtr create = Create("tile.create", {IndexList(ir::Ints(*shape))}, {{"dtype", input->dtype}}, span);
      VarPtr tmp = Var::Make("tmp", create->type, span);
      stmts.push_back(ir::AssignStmt::Make(tmp, create, span));
      args.push_back(tmp);
    }
  }

  ExprPtr CastToTensorDType(const ExprPtr& result, const ir::Call& call, std::vector<StmtPtr>& stmts) {
    auto tile = TileTypeOf(result);
    auto tensor = As<ir::TensorType>(call.type);
    if (!tile || !tensor || tile->dtype == tensor->dtype) return result;
    VarPtr raw = Var::Make("acc", result->type, call.span);
    stmts.push_back(ir::AssignStmt::Make(raw, result, call.span));
    return Create("tile.cast", {raw}, {{"target_type", tensor->dtype}}, call.span);
  }

  void Bind(const VarPtr& old_var, const ExprPtr& value, std::vector<StmtPtr>& stmts) {
    VarPtr var = Var::Make(old_var->name_hint, value->type, old_var->span);
    Remap(old_var, var);
    stmts.push_back(ir::AssignStmt::Make(var, value, old_var->span));
  }

  // tensor.assemble(target, source, offset) with a tile source becomes
  // tile.store(source, offset, target); the result is the written tensor.
  void ConvertAssemble(const ir::AssignStmt& node, const ir::Call& call, std::vector<StmtPtr>& stmts) {
    VarPtr source = TileOf(call.args[1]);
    assembled_from_[node.var.get()] = As<Var>(call.args[0]);
    MarkWritten(call.args[0]);
    ExprPtr target = CurrentTensor(call.args[0]);
    ExprPtr offsets = VisitExpr(call.args[2]);
    if (window_) offsets = WindowOffsets(TensorTypeOf(target)->rank());
    Attrs kwargs;
    if (auto atomic = call.kwargs.Get<int64_t>("atomic")) kwargs.Set("atomic", *atomic);
    CallPtr store = Create("tile.store", {source, offsets, target}, std::move(kwargs), call.span);
    VarPtr var = Var::Make(node.var->name_hint, store->type, node.var->span);
    Remap(node.var, var);
    if (auto root = RootParam(call.args[0])) current_[root] = var;
    stmts.push_back(ir::AssignStmt::Make(var, store, node.span));
  }

  ExprPtr WindowOffsets(size_t rank) const {
    std::vector<ExprPtr> offsets(rank, ir::Int(0));
    offsets[window_->axis] = window_->offset;
    return IndexList(std::move(offsets));
  }

  // The parameter a chain of assembles (and loop carries) writes into.
  const Var* RootParam(const ExprPtr& e) const {
    auto var = As<Var>(e);
    while (var) {
      if (params_.count(var.get())) return var.get();
      if (auto it = assembled_from_.find(var.get()); it != assembled_from_.end()) {
        var = it->second;
        continue;
      }
      auto iter_arg = As<ir::IterArg>(var);
      var = iter_arg ? As<Var>(iter_arg->init_value) : nullptr;
    }
    return nullptr;
  }

  void MarkWritten(const ExprPtr& target) {
    if (const Var* root = RootParam(target)) written_params_.insert(root);
  }

  ExprPtr CurrentTensor(const ExprPtr& target) {
    auto var = As<Var>(target);
    if (window_ && var) {
      if (const Var* root = RootParam(var); root && current_.count(root)) return current_.at(root);
    }
    return VisitExpr(target);
  }

  StmtPtr ConvertReturn(const ir::ReturnStmt& ret) {
    std::vector<StmtPtr> stmts;
    std::vector<ExprPtr> values;
    for (size_t k = 0; k < ret.values.size(); ++k) {
      VarPtr tile = TileOf(ret.values[k]);
      // A function declared to return a tile already works on tiles: its result stays one.
      bool declared_tile = k < f_.return_types.size() && IsA<ir::TileType>(f_.return_types[k]);
      if (!tile || declared_tile || param_tiles_.count(As<Var>(ret.values[k]).get())) {
        values.push_back(VisitExpr(ret.values[k]));
        continue;
      }
      VarPtr out = NewOut(k, ret.span);
      CallPtr store = Create("tile.store", {tile, Zeros(TileTypeOf(tile)->rank()), out}, {}, ret.span);
      VarPtr stored = Var::Make("ret" + std::to_string(k), store->type, ret.span);
      stmts.push_back(ir::AssignStmt::Make(stored, store, ret.span));
      values.push_back(stored);
    }
    stmts.push_back(ir::ReturnStmt::Make(std::move(values), ret.span));
    return ir::SeqStmts::Make(std::move(stmts), ret.span);
  }

  VarPtr NewOut(size_t k, const Span& span) {
    TypePtr type = k < f_.return_types.size() ? f_.return_types[k] : nullptr;
    if (!As<ir::TensorType>(type)) {
      Fail("return value " + std::to_string(k) + " became a tile but the function's return type " +
               (type ? "is not a tensor" : "is missing") + "; declare a tensor return type",
           span);
    }
    VarPtr out = Var::Make("ret" + std::to_string(k) + "_out", type, span);
    new_outs_.push_back(out);
    return out;
  }

  // for row, (p..., ret_out...) in pl.range(0, extent, block, init_values=(...)):
  //     loads; chain; stores; yield
  StmtPtr TiledLoop(const std::vector<StmtPtr>& stmts, const Ref<ir::ReturnStmt>& ret) {
    // Carried tensors: every parameter the chain assembles into, then one Out per returned tile.
    std::vector<std::pair<const Var*, ir::IterArgPtr>> carried;
    for (const auto& p : f_.params) {
      if (!WrittenByChain(stmts, p)) continue;
      auto iter_arg = ir::IterArg::Make(p->name_hint + "_iter", p->type, p, p->span);
      current_[p.get()] = iter_arg;
      carried.emplace_back(p.get(), iter_arg);
    }
    std::vector<StmtPtr> body;
    for (const auto& p : f_.params) {
      if (entry_loads_.count(p.get())) body.push_back(EntryLoad(p));
    }
    for (const auto& s : stmts) Append(body, VisitStmt(s));
    std::map<size_t, ir::IterArgPtr> returned_outs;
    for (size_t k = 0; ret && k < ret->values.size(); ++k) {
      VarPtr tile = TileOf(ret->values[k]);
      if (!tile || param_tiles_.count(As<Var>(ret->values[k]).get())) continue;
      VarPtr out = NewOut(k, ret->span);
      auto iter_arg = ir::IterArg::Make(out->name_hint + "_iter", out->type, out, ret->span);
      CallPtr store = Create("tile.store", {tile, WindowOffsets(TileTypeOf(tile)->rank()), iter_arg}, {}, ret->span);
      VarPtr stored = Var::Make("ret" + std::to_string(k) + "_block", store->type, ret->span);
      body.push_back(ir::AssignStmt::Make(stored, store, ret->span));
      current_[out.get()] = stored;
      carried.emplace_back(out.get(), iter_arg);
      returned_outs[k] = iter_arg;
    }
    std::vector<ir::IterArgPtr> iter_args;
    std::vector<ExprPtr> yields;
    std::vector<VarPtr> return_vars;
    std::map<const Var*, VarPtr> final_value;
    for (const auto& [root, iter_arg] : carried) {
      iter_args.push_back(iter_arg);
      yields.push_back(current_.at(root));
      VarPtr rv = Var::Make(root->name_hint + "_final", root->type, f_.span);
      return_vars.push_back(rv);
      final_value[root] = rv;
    }
    body.push_back(ir::YieldStmt::Make(std::move(yields), f_.span));
    const int64_t extent = window_->axis == 0 ? window_->rows : window_->cols;
    StmtPtr loop =
        ir::ForStmt::Make(window_->offset, ir::Int(0), ir::Int(extent), ir::Int(window_->block), std::move(iter_args),
                          ir::SeqStmts::Make(std::move(body), f_.span), std::move(return_vars));
    if (!ret) return loop;
    std::vector<ExprPtr> values;
    for (size_t k = 0; k < ret->values.size(); ++k) {
      if (returned_outs.count(k)) {
        values.push_back(final_value.at(As<Var>(returned_outs.at(k)->init_value).get()));
      } else if (const Var* root = RootParam(ret->values[k]); root && final_value.count(root)) {
        values.push_back(final_value.at(root));
      } else {
        values.push_back(ret->values[k]);
      }
    }
    return ir::SeqStmts::Make({loop, ir::ReturnStmt::Make(std::move(values), ret->span)}, f_.span);
  }

  static bool WrittenByChain(const std::vector<StmtPtr>& stmts, const VarPtr& param) {
    std::set<const Var*> chain = {param.get()};
    bool written = false;
    for (const auto& s : stmts) {
      auto assign = As<ir::AssignStmt>(s);
      auto call = assign ? As<ir::Call>(assign->value) : nullptr;
      if (!call || call->op->name != "tensor.assemble") continue;
      auto target = As<Var>(call->args[0]);
      if (target && chain.count(target.get())) {
        chain.insert(assign->var.get());
        written = true;
      }
    }
    return written;
  }

  // Written params become Out, or InOut when the kernel also reads them.
  std::vector<ir::ParamDirection> Directions() const {
    std::vector<ir::ParamDirection> dirs = f_.param_directions;
    dirs.resize(f_.params.size(), ir::ParamDirection::In);
    for (size_t i = 0; i < f_.params.size(); ++i) {
      const Var* p = f_.params[i].get();
      if (!written_params_.count(p)) continue;
      bool read = read_params_.count(p) || dirs[i] == ir::ParamDirection::InOut;
      dirs[i] = read ? ir::ParamDirection::InOut : ir::ParamDirection::Out;
    }
    dirs.insert(dirs.end(), new_outs_.size(), ir::ParamDirection::Out);
    return dirs;
  }

  const ir::Function& f_;
  std::optional<Window> window_;
  std::set<const Var*> params_;
  std::set<const Var*> entry_loads_;
  std::set<const Var*> read_params_;
  std::set<const Var*> written_params_;
  std::unordered_map<const Var*, VarPtr> param_tiles_;
  std::unordered_map<const Var*, VarPtr> assembled_from_;  // assemble result -> its target (tiled chains)
  std::unordered_map<const Var*, ExprPtr> current_;        // root tensor -> its latest value in the loop
  std::vector<VarPtr> new_outs_;
};

// ---------------------------------------------------------------- callers

using NewOuts = std::map<std::string, std::vector<VarPtr>>;

// Group and Spmd functions run on the cores they launch, where GM tensors
// cannot be allocated: an Out parameter their callee gained becomes an Out
// parameter of theirs, passed straight through, and the orchestration code
// that launches them allocates it.
bool ForwardsOuts(ir::FunctionType type) {
  return type == ir::FunctionType::Group || type == ir::FunctionType::Spmd;
}

// Appends an argument for each Out parameter a callee gained: a fresh
// tensor.create before the call in orchestration code, a new Out parameter
// of the enclosing function in a Group or Spmd function.
class OutArgumentAdder : public ir::IRMutator {
 public:
  using IRMutator::Mutate_;

  OutArgumentAdder(const NewOuts& new_outs, bool forward) : new_outs_(new_outs), forward_(forward) {}

  // The parameters added to the function being rewritten (forwarding only).
  const std::vector<VarPtr>& added_params() const { return added_params_; }

  StmtPtr Mutate_(const Ref<ir::AssignStmt>& node) override {
    std::vector<StmtPtr> stmts;
    ExprPtr value = Update(VisitExpr(node->value), stmts);
    if (stmts.empty() && value == node->value) return IRMutator::Mutate_(node);
    VarPtr var = VisitVarDef(node->var);
    stmts.push_back(ir::AssignStmt::Make(var, value, node->span));
    return ir::SeqStmts::Make(std::move(stmts), node->span);
  }

  StmtPtr Mutate_(const Ref<ir::EvalStmt>& node) override {
    std::vector<StmtPtr> stmts;
    ExprPtr value = Update(VisitExpr(node->expr), stmts);
    if (value == node->expr) return IRMutator::Mutate_(node);
    stmts.push_back(ir::EvalStmt::Make(value, node->span));
    return ir::SeqStmts::Make(std::move(stmts), node->span);
  }

  StmtPtr Mutate_(const Ref<ir::SeqStmts>& node) override {
    std::vector<StmtPtr> stmts;
    bool changed = false;
    for (const auto& child : node->stmts) {
      StmtPtr updated = VisitStmt(child);
      changed |= updated != child;
      auto seq = updated != child ? As<ir::SeqStmts>(updated) : nullptr;
      if (seq) {
        stmts.insert(stmts.end(), seq->stmts.begin(), seq->stmts.end());
      } else {
        stmts.push_back(updated);
      }
    }
    return changed ? ir::SeqStmts::Make(std::move(stmts), node->span) : node;
  }

 private:
  ExprPtr Update(const ExprPtr& value, std::vector<StmtPtr>& stmts) {
    auto call = As<ir::Call>(value);
    if (!call || !call->is_function_call()) return value;
    auto it = new_outs_.find(call->op->name);
    if (it == new_outs_.end() || it->second.empty()) return value;
    std::vector<ExprPtr> args = call->args;
    for (const auto& out : it->second) args.push_back(forward_ ? ForwardedParam(out) : Created(out, *call, stmts));
    return ir::Call::Make(call->op, std::move(args), call->kwargs, call->type, call->span, call->attrs);
  }

  static VarPtr Created(const VarPtr& out, const ir::Call& call, std::vector<StmtPtr>& stmts) {
    auto type = As<ir::TensorType>(out->type);
    CallPtr create = Create("tensor.create", {IndexList(type->shape)}, {{"dtype", type->dtype}}, call.span);
    VarPtr fresh = Var::Make(out->name_hint, create->type, call.span);
    stmts.push_back(ir::AssignStmt::Make(fresh, create, call.span));
    return fresh;
  }

  VarPtr ForwardedParam(const VarPtr& out) {
    VarPtr param = Var::Make(out->name_hint, out->type, out->span);
    added_params_.push_back(param);
    return param;
  }

  const NewOuts& new_outs_;
  bool forward_;
  std::vector<VarPtr> added_params_;
};

// The Group or Spmd function `f` with an Out parameter for each one its
// callees gained, or `f` itself when they gained none.
ir::FunctionPtr ForwardOuts(const ir::FunctionPtr& f, const NewOuts& new_outs, std::vector<VarPtr>& added) {
  OutArgumentAdder adder(new_outs, /*forward=*/true);
  StmtPtr body = adder.VisitStmt(f->body);
  added = adder.added_params();
  if (added.empty()) return f;
  auto copy = std::make_shared<ir::Function>(*f);
  copy->body = body;
  copy->params.insert(copy->params.end(), added.begin(), added.end());
  copy->param_directions.resize(f->params.size(), ir::ParamDirection::In);
  copy->param_directions.insert(copy->param_directions.end(), added.size(), ir::ParamDirection::Out);
  return copy;
}

// A Group or Spmd parameter passed to a callee parameter that is written
// (Out or InOut) is written too: its direction follows, so that the code
// launching the function sees the write.
ir::FunctionPtr PropagateWrites(const ir::FunctionPtr& f, const std::map<std::string, ir::FunctionPtr>& by_name) {
  class CallCollector : public ir::IRVisitor {
   public:
    using IRVisitor::Visit_;
    std::vector<Ref<ir::Call>> calls;
    void Visit_(const Ref<ir::Call>& call) override {
      if (call->is_function_call()) calls.push_back(call);
      IRVisitor::Visit_(call);
    }
  };
  CallCollector collector;
  collector.VisitStmt(f->body);
  std::vector<ir::ParamDirection> dirs = f->param_directions;
  dirs.resize(f->params.size(), ir::ParamDirection::In);
  for (const auto& call : collector.calls) {
    auto callee = by_name.find(call->op->name);
    if (callee == by_name.end()) continue;
    const auto& callee_dirs = callee->second->param_directions;
    for (size_t a = 0; a < call->args.size() && a < callee_dirs.size(); ++a) {
      auto it = std::find(f->params.begin(), f->params.end(), As<Var>(call->args[a]));
      if (it == f->params.end() || callee_dirs[a] == ir::ParamDirection::In) continue;
      ir::ParamDirection& dir = dirs[static_cast<size_t>(it - f->params.begin())];
      if (callee_dirs[a] == ir::ParamDirection::InOut || dir == ir::ParamDirection::InOut) {
        dir = ir::ParamDirection::InOut;
      } else {
        dir = ir::ParamDirection::Out;
      }
    }
  }
  if (dirs == f->param_directions) return f;
  auto copy = std::make_shared<ir::Function>(*f);
  copy->param_directions = std::move(dirs);
  return copy;
}

// Forwards new Out parameters through Group and Spmd functions (which may
// launch one another) until nothing changes, then allocates them in every
// other caller.
std::vector<ir::FunctionPtr> UpdateCallers(const std::vector<ir::FunctionPtr>& functions, NewOuts new_outs) {
  std::vector<ir::FunctionPtr> result = functions;
  for (bool changed = true; changed;) {
    changed = false;
    for (size_t i = 0; i < functions.size(); ++i) {
      if (!ForwardsOuts(functions[i]->func_type)) continue;
      std::vector<VarPtr> added;
      result[i] = ForwardOuts(functions[i], new_outs, added);
      auto& known = new_outs[functions[i]->name];
      changed |= added.size() != known.size();
      known = std::move(added);
    }
  }
  for (bool changed = true; changed;) {
    changed = false;
    std::map<std::string, ir::FunctionPtr> by_name;
    for (const auto& f : result) by_name[f->name] = f;
    for (auto& f : result) {
      if (!ForwardsOuts(f->func_type)) continue;
      ir::FunctionPtr updated = PropagateWrites(f, by_name);
      changed |= updated != f;
      f = updated;
    }
  }
  OutArgumentAdder creator(new_outs, /*forward=*/false);
  for (auto& f : result) {
    if (!ir::IsCoreKernel(f->func_type) && !ForwardsOuts(f->func_type)) f = creator.VisitFunction(f);
  }
  return result;
}

}  // namespace

int64_t ReadVecCapacityOption(const pass::PassOptions& options, int64_t current) {
  const ir::AttrValue* value = options.Find("vec_capacity_bytes");
  if (value == nullptr) return current;
  const int64_t* bytes = std::get_if<int64_t>(value);
  if (bytes == nullptr) {
    throw Error(ErrorKind::kPipeline, std::string(kPass) + " option 'vec_capacity_bytes' must be an int, got " +
                                          ir::AttrValueKindName(*value));
  }
  if (*bytes < 0) {
    throw Error(ErrorKind::kPipeline, std::string(kPass) +
                                          " option 'vec_capacity_bytes' must be 0 (the platform's) "
                                          "or a positive byte count, got " +
                                          std::to_string(*bytes));
  }
  return *bytes;
}

ir::ProgramPtr ConvertTensorToTileOps(const ir::ProgramPtr& program, int64_t vec_capacity_bytes) {
  std::vector<ir::FunctionPtr> functions;
  NewOuts new_outs;
  for (const auto& f : program->functions) {
    if (!ir::IsCoreKernel(f->func_type)) {
      functions.push_back(f);
      continue;
    }
    KernelConverter converter(*f, PlanWindow(*f, vec_capacity_bytes));
    functions.push_back(converter.Convert());
    new_outs[f->name] = converter.new_outs();
  }
  auto copy = std::make_shared<ir::Program>(*program);
  copy->functions = UpdateCallers(functions, std::move(new_outs));
  return copy;
}

}  // namespace pypto::passes
