#include "convert_tensor_to_tile_ops.h"

#include <algorithm>
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>

#include "pypto/ir/mutator.h"
#include "pypto/ir/visitor.h"
#include "pypto/ops/registry.h"
#include "pypto/ops/type_rules.h"
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

std::string Dims(const std::vector<ExprPtr>& dims) { return ops::ShapeString(dims); }

// ---------------------------------------------------------------- tiling plan

// One axis of a tiled chain's iteration space: the chain's extent along it
// and, when the chain is tiled along it, the static block and the loop
// variable over the blocks' origins.
struct WindowAxis {
  ExprPtr extent;
  int64_t block = 0;  // 0: not tiled; every tile keeps its whole dim
  VarPtr offset;
};

// How a tiled chain iterates: axis 0 over rows, axis 1 over columns; the
// loops nest in axis order.
struct Window {
  std::array<WindowAxis, 2> axes;
  bool Tiled(size_t k) const { return axes[k].block > 0; }
  // Why the blocks are this size, recorded on the loops for diagnostics (PerfHints).
  int64_t bytes_per_element = 0;  // live tile bytes per element of the chain
  int64_t capacity = 0;           // the Vec bytes they had to fit
};

// A tile the chain keeps live, as the plan counts it.
struct ChainTile {
  std::vector<ExprPtr> dims;
  int64_t bytes_per_element = 0;
};

// A kernel body the pass can tile: top-level assignments of Vec tensor ops
// over rank-2 values whose every dim is the chain's extent on that axis or 1
// (a row or column broadcast), whole-tensor assembles and a return.
struct Chain {
  std::array<ExprPtr, 2> extents;
  std::vector<ChainTile> tiles;                  // loaded params, results, scratch tiles: all live at once
  std::array<bool, 2> reduced = {false, false};  // an op reduces along the axis, so it cannot be split
};

// The tile op a tensor op lowers to one-for-one in a chain: a Vec op over the
// tensor op's operands plus `scratch` required scratch tiles (row reductions).
const ops::OpDef* ChainTileOp(const ir::Call& call, size_t& scratch) {
  // Vec ops that place elements by position (concat), address one by its
  // index (read, write) or fill what lies outside the valid region (fillpad)
  // do not work block by block.
  static const std::set<std::string> kPositional = {"concat", "fillpad", "read", "write"};
  std::string suffix = TensorOpSuffix(call);
  if (suffix.empty() || kPositional.count(suffix)) return nullptr;
  const ops::OpDef* def = ops::OpRegistry::Global().Find("tile." + suffix);
  if (def == nullptr || call.args.size() > def->args().size()) return nullptr;
  const ops::OutputMemoryRule& out = def->output_memory();
  if (out.kind != ops::OutputMemoryRule::Kind::kFixed || out.space != ir::MemorySpace::Vec) return nullptr;
  scratch = 0;
  for (size_t i = call.args.size(); i < def->args().size(); ++i) {
    const ops::ArgSpec& spec = def->args()[i];
    if (spec.optional) break;
    if (spec.name.find("tmp") == std::string::npos) return nullptr;
    ++scratch;
  }
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

// Whether `dims` fit the chain: rank 2, each dim 1 or the axis's extent
// (the first dim that is not 1 sets the extent).
bool JoinChain(std::array<ExprPtr, 2>& extents, const std::vector<ExprPtr>& dims) {
  if (dims.size() != 2) return false;
  for (size_t k = 0; k < 2; ++k) {
    if (ops::IsConstDim(dims[k], 1)) continue;
    if (!extents[k]) {
      extents[k] = dims[k];
    } else if (!ops::SameDim(extents[k], dims[k])) {
      return false;
    }
  }
  return true;
}

bool Broadcast1(const std::vector<ExprPtr>& dims, size_t k) { return ops::IsConstDim(dims[k], 1); }

class ChainReader {
 public:
  explicit ChainReader(const ir::Function& f) : f_(f) {
    for (const auto& p : f.params) params_.insert(p.get());
  }

  std::optional<Chain> Read() {
    std::vector<StmtPtr> stmts = ir::Flatten(f_.body);
    if (stmts.empty() || !ir::IsA<ir::ReturnStmt>(stmts.back())) return std::nullopt;
    for (size_t i = 0; i + 1 < stmts.size(); ++i) {
      auto assign = As<ir::AssignStmt>(stmts[i]);
      auto call = assign ? As<ir::Call>(assign->value) : nullptr;
      if (!call || !(call->op->name == "tensor.assemble" ? Assemble(*assign, *call) : Compute(*assign, *call))) {
        return std::nullopt;
      }
    }
    if (computed_.empty()) return std::nullopt;
    for (auto& extent : chain_.extents) {
      if (!extent) extent = ir::Int(1);
    }
    return chain_;
  }

 private:
  bool Assemble(const ir::AssignStmt& assign, const ir::Call& call) {
    auto target = As<Var>(call.args[0]);
    auto source = As<Var>(call.args[1]);
    if (!target || !(params_.count(target.get()) || assembled_.count(target.get()))) return false;
    if (!source || !computed_.count(source.get()) || !AllZero(call.args[2])) return false;
    auto target_type = TensorTypeOf(target);
    auto source_type = TensorTypeOf(source);
    if (!target_type || !source_type || !ops::SameShape(target_type->shape, source_type->shape)) return false;
    if (!JoinChain(chain_.extents, target_type->shape)) return false;
    assembled_.insert(assign.var.get());
    return true;
  }

  bool Compute(const ir::AssignStmt& assign, const ir::Call& call) {
    size_t scratch = 0;
    auto result = TensorTypeOf(assign.var);
    const ops::OpDef* def = ChainTileOp(call, scratch);
    if (def == nullptr || !result || !JoinChain(chain_.extents, result->shape)) return false;
    std::vector<std::vector<ExprPtr>> operands;
    for (const auto& arg : call.args) {
      auto type = TensorTypeOf(arg);
      if (!type) continue;
      auto var = As<Var>(arg);
      if (!var || !JoinChain(chain_.extents, type->shape)) return false;
      if (params_.count(var.get())) {
        if (loaded_.insert(var.get()).second) chain_.tiles.push_back({type->shape, type->dtype.get_byte()});
      } else if (!computed_.count(var.get())) {
        return false;
      }
      operands.push_back(type->shape);
    }
    if (operands.empty()) return false;
    for (size_t k = 0; k < 2; ++k) {
      bool from_operand = std::any_of(operands.begin(), operands.end(),
                                      [&](const std::vector<ExprPtr>& dims) { return !Broadcast1(dims, k); });
      // A result dim no operand has would come from the op's keywords, not from the window.
      if (!Broadcast1(result->shape, k) && !from_operand) return false;
      if (Broadcast1(result->shape, k) && from_operand) chain_.reduced[k] = true;
    }
    chain_.tiles.push_back({result->shape, result->dtype.get_byte()});
    if (int64_t working = def->working_bytes_per_element(); working > 0) chain_.tiles.push_back({result->shape, working});
    for (size_t i = 0; i < scratch; ++i) chain_.tiles.push_back({operands.front(), result->dtype.get_byte()});
    // sub and div expand a broadcast left operand into a full tile first.
    if (operands.size() == 2 && !ops::SameShape(operands[0], result->shape)) {
      chain_.tiles.push_back({result->shape, result->dtype.get_byte()});
    }
    computed_.insert(assign.var.get());
    return true;
  }

  const ir::Function& f_;
  Chain chain_;
  std::set<const Var*> params_;
  std::set<const Var*> computed_;
  std::set<const Var*> loaded_;
  std::set<const Var*> assembled_;
};

// The bytes the chain's tiles take with `blocks` (0: the axis is not tiled),
// or nullopt when an untiled dim is dynamic.
std::optional<int64_t> ChainBytes(const Chain& chain, const std::array<int64_t, 2>& blocks) {
  int64_t total = 0;
  for (const ChainTile& tile : chain.tiles) {
    int64_t bytes = tile.bytes_per_element;
    for (size_t k = 0; k < 2; ++k) {
      if (blocks[k] > 0 && !Broadcast1(tile.dims, k)) {
        bytes *= blocks[k];
        continue;
      }
      auto dim = ir::AsConstInt(tile.dims[k]);
      if (!dim) return std::nullopt;
      bytes *= *dim;
    }
    total += bytes;
  }
  return total;
}

// The static blocks the chain may take along an axis, largest first: powers
// of two that divide a static extent (the whole extent means no tiling), or
// any power of two for a dynamic extent, whose last block is cut short
// through valid_shape.
std::vector<int64_t> BlockCandidates(const ExprPtr& extent) {
  constexpr int64_t kLargestDynamicBlock = int64_t{1} << 20;
  auto value = ir::AsConstInt(extent);
  std::vector<int64_t> blocks;
  for (int64_t block = 1; block <= (value ? *value : kLargestDynamicBlock); block *= 2) {
    if (!value || (*value % block == 0 && block < *value)) blocks.insert(blocks.begin(), block);
  }
  return blocks;
}

bool Splittable(const Chain& chain, size_t k) {
  return !chain.reduced[k] && !ops::IsConstDim(chain.extents[k], 1);
}

// The largest block along `axis` alone that fits, or 0.
int64_t BestSingleAxis(const Chain& chain, size_t axis, int64_t capacity) {
  if (!Splittable(chain, axis)) return 0;
  for (int64_t block : BlockCandidates(chain.extents[axis])) {
    std::array<int64_t, 2> blocks = {0, 0};
    blocks[axis] = block;
    auto bytes = ChainBytes(chain, blocks);
    if (!bytes) return 0;
    if (*bytes <= capacity) return block;
  }
  return 0;
}

bool Preferred(const std::array<int64_t, 2>& a, const std::array<int64_t, 2>& b) {
  if (a[0] * a[1] != b[0] * b[1]) return a[0] * a[1] > b[0] * b[1];
  if ((a[1] >= a[0]) != (b[1] >= b[0])) return a[1] >= a[0];
  return std::max(a[0], a[1]) < std::max(b[0], b[1]);
}

// The [rows, columns] block with the most elements that fits; among equals
// the squarest with at least as many columns as rows (a row is contiguous in
// GM, and a square block wastes least when the extents turn out small).
// {0, 0} when none fits.
std::array<int64_t, 2> BestBothAxes(const Chain& chain, int64_t capacity) {
  std::array<int64_t, 2> best = {0, 0};
  if (!Splittable(chain, 0) || !Splittable(chain, 1)) return best;
  std::vector<int64_t> col_blocks = BlockCandidates(chain.extents[1]);
  for (int64_t rows : BlockCandidates(chain.extents[0])) {
    for (int64_t cols : col_blocks) {
      auto bytes = ChainBytes(chain, {rows, cols});
      if (!bytes || *bytes > capacity) continue;
      if (Preferred({rows, cols}, best)) best = {rows, cols};
      break;
    }
  }
  return best;
}

std::string ChainText(const Chain& chain) { return Dims({chain.extents[0], chain.extents[1]}); }

int64_t BytesPerElement(const Chain& chain) {
  int64_t total = 0;
  for (const ChainTile& tile : chain.tiles) total += tile.bytes_per_element;
  return total;
}

[[noreturn]] void RejectChain(const ir::Function& f, const Chain& chain, int64_t capacity) {
  std::string why;
  if (chain.reduced[0] && chain.reduced[1]) {
    why = "it reduces along both axes, so no block of it is complete";
  } else if (chain.reduced[1] && !ir::AsConstInt(chain.extents[1])) {
    why = "it reduces along its rows, whose length " + ops::DimString(chain.extents[1]) +
          " is dynamic, so a block of whole rows has no static size";
  } else if (chain.reduced[0] && !ir::AsConstInt(chain.extents[0])) {
    why = "it reduces along its columns, whose length " + ops::DimString(chain.extents[0]) +
          " is dynamic, so a block of whole columns has no static size";
  } else {
    why = "no block of it fits in the " + std::to_string(capacity) + " bytes of Vec";
  }
  throw Error(ErrorKind::kValue,
              std::string(kPass) + ": in function '" + f.name + "', the chain over " + ChainText(chain) + " keeps " +
                  std::to_string(BytesPerElement(chain)) + " bytes per element in live tiles and cannot be tiled: " +
                  why +
                  "; split the chain, or slice the tensors in a pl.range loop over static blocks yourself (pass "
                  "the last block's extents as valid_shape)",
              f.span);
}

// How to tile `f`: nullopt when it is not a chain, or a static chain that
// fits whole; else the blocks, preferring whole rows, then whole columns,
// then blocks of both.
std::optional<Window> PlanWindow(const ir::Function& f, int64_t capacity) {
  auto chain = ChainReader(f).Read();
  if (!chain) return std::nullopt;
  auto whole = ChainBytes(*chain, {0, 0});
  if (whole && *whole <= capacity) return std::nullopt;
  std::array<int64_t, 2> blocks = {BestSingleAxis(*chain, 0, capacity), 0};
  if (blocks[0] == 0) blocks = {0, BestSingleAxis(*chain, 1, capacity)};
  if (blocks[1] == 0 && blocks[0] == 0) blocks = BestBothAxes(*chain, capacity);
  if (blocks[0] == 0 && blocks[1] == 0) RejectChain(f, *chain, capacity);
  Window w;
  w.bytes_per_element = BytesPerElement(*chain);
  w.capacity = capacity;
  const char* names[2] = {"row", "col"};
  for (size_t k = 0; k < 2; ++k) {
    w.axes[k].extent = chain->extents[k];
    w.axes[k].block = blocks[k];
    if (blocks[k] > 0) w.axes[k].offset = Var::Make(names[k], ir::ScalarType::Make(DataType::INDEX), f.span);
  }
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
    matmul_uses_.VisitStmt(f_.body);
    std::vector<StmtPtr> stmts = ir::Flatten(f_.body);
    std::vector<StmtPtr> out;
    auto ret = stmts.empty() ? nullptr : As<ir::ReturnStmt>(stmts.back());
    if (ret) stmts.pop_back();
    if (window_) {
      Append(out, TiledLoop(stmts, ret));
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
      loaded_slices_.insert(node->var.get());
      Bind(node->var, Create("tile.load", SliceLoadArgs(*call), LoadKwargs(node->var), call->span), stmts);
    } else if (suffix == "matmul" || suffix == "matmul_acc") {
      Bind(node->var, ConvertMatmul(*call, *node->var, stmts), stmts);
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

  ExprPtr Mutate_(const Ref<ir::Call>& node) override {
    RejectAccessThroughLoadedSlice(*node);
    return IRMutator::Mutate_(node);
  }

  // A loop carrying a value that became a tile carries the tile: the
  // iter_arg takes its init's tile type, and the loop's result (below) the
  // iter_arg's.
  VarPtr VisitVarDef(const VarPtr& var) override {
    auto iter_arg = As<ir::IterArg>(var);
    if (!iter_arg || !TensorTypeOf(iter_arg)) return IRMutator::VisitVarDef(var);
    VarPtr init_tile = TileOf(iter_arg->init_value);
    if (!init_tile) return IRMutator::VisitVarDef(var);
    auto carried = ir::IterArg::Make(iter_arg->name_hint, init_tile->type, init_tile, iter_arg->span);
    Remap(var, carried);
    return carried;
  }

  StmtPtr Mutate_(const Ref<ir::ForStmt>& node) override {
    auto loop = As<ir::ForStmt>(IRMutator::Mutate_(node));
    auto return_vars = CarriedTileResults(loop->iter_args, loop->return_vars);
    if (return_vars == loop->return_vars) return loop;
    auto copy = std::make_shared<ir::ForStmt>(*loop);
    copy->return_vars = std::move(return_vars);
    return copy;
  }

  StmtPtr Mutate_(const Ref<ir::WhileStmt>& node) override {
    auto loop = As<ir::WhileStmt>(IRMutator::Mutate_(node));
    auto return_vars = CarriedTileResults(loop->iter_args, loop->return_vars);
    if (return_vars == loop->return_vars) return loop;
    auto copy = std::make_shared<ir::WhileStmt>(*loop);
    copy->return_vars = std::move(return_vars);
    return copy;
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
    std::vector<ExprPtr> valid = type->shape;
    bool cut = false;
    if (window_) {
      offsets = WindowOffsets(type->shape);
      for (size_t k = 0; k < shape.size() && k < 2; ++k) {
        if (!window_->Tiled(k) || ops::IsConstDim(shape[k], 1)) continue;
        const WindowAxis& axis = window_->axes[k];
        shape[k] = valid[k] = ir::Int(axis.block);
        // A dynamic extent's last block is cut short.
        if (!ir::AsConstInt(axis.extent)) {
          valid[k] = ops::MinDims(ir::Int(axis.block), ops::SubDims(axis.extent, axis.offset));
          cut = true;
        }
      }
    }
    RequireStaticTile("tensor parameter '" + param->name_hint + "'", shape, param->span);
    std::vector<ExprPtr> args = {param, IndexList(offsets), IndexList(shape)};
    if (cut) args.push_back(IndexList(valid));
    CallPtr load = Create("tile.load", std::move(args), LoadKwargs(param), param->span);
    VarPtr tile = Var::Make(param->name_hint + "_tile", load->type, param->span);
    param_tiles_[param.get()] = tile;
    return ir::AssignStmt::Make(tile, load, param->span);
  }

  // On-chip tiles need static extents; a dynamic one has no bound this pass
  // could justify, so the author gives the block.
  void RequireStaticTile(const std::string& what, const std::vector<ExprPtr>& shape, const Span& span) const {
    if (ir::StaticShape(shape)) return;
    Fail(what + " would become a tile of the dynamic shape " + Dims(shape) +
             ", but on-chip tiles need static extents and the function is not an element-wise chain this pass "
             "tiles itself; loop over it with pl.range in blocks of a static size and slice each block (for "
             "example x[i:i + 64, :]), giving the last block's extents as valid_shape",
         span);
  }

  // The tile holding `e`'s value, if it has one.
  // The loop results of carried tiles, retyped as tiles (later uses see the new variables).
  std::vector<VarPtr> CarriedTileResults(const std::vector<ir::IterArgPtr>& iter_args,
                                         const std::vector<VarPtr>& return_vars) {
    std::vector<VarPtr> out = return_vars;
    for (size_t i = 0; i < iter_args.size() && i < out.size(); ++i) {
      if (!TileTypeOf(iter_args[i]) || !TensorTypeOf(out[i])) continue;
      VarPtr result = Var::Make(out[i]->name_hint, iter_args[i]->type, out[i]->span);
      Remap(return_vars[i], result);
      out[i] = result;
    }
    return out;
  }

  // A tile.load from / tile.store into a slice this kernel took: the slice is
  // already a tile here, so the access has no tensor to go through.
  void RejectAccessThroughLoadedSlice(const ir::Call& call) const {
    const std::string& op = call.op->name;
    size_t tensor_arg = op == "tile.load" ? 0 : op == "tile.store" ? 2 : call.args.size();
    if (tensor_arg >= call.args.size()) return;
    auto var = As<Var>(call.args[tensor_arg]);
    if (!var || !loaded_slices_.count(var.get())) return;
    const std::string name = "'" + var->name_hint + "'";
    Fail(op + (op == "tile.load" ? " reads " : " writes ") + name +
             ", a pl.slice taken inside this kernel; the compiler loads such a slice as a tile, so there is no "
             "tensor left to " + (op == "tile.load" ? "load from" : "store into") + ": " +
             (op == "tile.load" ? "use " + name + " itself as the tile, or load from the sliced tensor"
                                : "store into the sliced tensor") +
             " with the slice's offsets added to this call's",
         call.span);
  }

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
    if (auto shape = As<ir::MakeTuple>(args[2])) RequireStaticTile("this tensor.slice", shape->elements, slice.span);
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
    if (kExpandSuffix.count(suffix) && args.size() == 2) {
      op = BinaryOp(suffix, args, call.span, stmts);
    }
    if (suffix == "cmp" && !TileTypeOf(args[1])) op = "tile.cmps";
    AddScratchTiles(op, args, call.span, stmts);
    ExprPtr result = Create(op, std::move(args), std::move(kwargs), call.span);
    if (suffix == "cmp") return OnesWhereSet(result, call, stmts);
    return CastToTensorDType(result, call, stmts);
  }

  // tensor.cmp is 0 or 1 in its result dtype; the tile comparison gives a
  // packed bit mask (TCMP's), which tile.sel expands to those values.
  ExprPtr OnesWhereSet(const ExprPtr& mask_call, const ir::Call& call, std::vector<StmtPtr>& stmts) {
    auto tensor = As<ir::TensorType>(call.type);
    auto shape = ir::StaticShape(tensor->shape);
    if (!shape) Fail("tensor.cmp needs a static shape to be computed on tiles", call.span);
    VarPtr mask = Var::Make("mask", mask_call->type, call.span);
    stmts.push_back(ir::AssignStmt::Make(mask, mask_call, call.span));
    auto filled = [&](double value, const char* name) {
      ExprPtr scalar = tensor->dtype.is_float() ? ExprPtr(ir::ConstFloat::Make(value, tensor->dtype, call.span))
                                                : ExprPtr(ir::ConstInt::Make(static_cast<int64_t>(value),
                                                                             tensor->dtype, call.span));
      CallPtr full = Create("tile.full", {IndexList(ir::Ints(*shape)), scalar}, {{"dtype", tensor->dtype}}, call.span);
      VarPtr var = Var::Make(name, full->type, call.span);
      stmts.push_back(ir::AssignStmt::Make(var, full, call.span));
      return var;
    };
    VarPtr ones = filled(1.0, "ones");
    VarPtr zeros = filled(0.0, "zeros");
    return Create("tile.sel", {mask, ones, zeros}, {}, call.span);
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

  // ---------------------------------------------------------------- matmul

  // A load whose tile only feeds the cube goes to Mat, the cube's staging
  // buffer (spec step 1); any other load is placed by InferTileMemorySpace.
  Attrs LoadKwargs(const VarPtr& tensor) const {
    if (!matmul_uses_.OnlyMatmulOperand(tensor.get())) return {};
    return {{"target_memory", ir::EnumAttr::Of(ir::MemorySpace::Mat)}};
  }

  // tensor.matmul(lhs, rhs, a_trans, b_trans, out_dtype) and
  // tensor.matmul_acc(acc, lhs, rhs[, init_cond], a_trans, b_trans) become
  // tile.matmul / tile.matmul_acc on the operand tiles. The tile ops take
  // [M, K] x [K, N] only, so a transposed operand is transposed in Mat first
  // with tile.transpose: tile.load has no transposed layout, and tile.transpose
  // accepts Mat, which keeps the whole product on the cube side (a Vec detour
  // would need a Vec -> Mat move that a2a3 does not have). The product is in
  // Acc with the accumulator dtype (FP32 for float operands); a result whose
  // dtype differs is cast, unless it is only stored and tile.store converts it
  // on the way out of Acc (FP32 -> FP16/BF16).
  ExprPtr ConvertMatmul(const ir::Call& call, const Var& result, std::vector<StmtPtr>& stmts) {
    const bool accumulates = call.op->name == "tensor.matmul_acc";
    const size_t lhs = accumulates ? 1 : 0;
    std::vector<ExprPtr> args;
    for (size_t i = 0; i < call.args.size(); ++i) args.push_back(OperandTile(call, i));
    if (call.kwargs.Get<bool>("a_trans").value_or(false)) args[lhs] = Transposed(args[lhs], call.span, stmts);
    if (call.kwargs.Get<bool>("b_trans").value_or(false)) args[lhs + 1] = Transposed(args[lhs + 1], call.span, stmts);
    CallPtr product = Create(accumulates ? "tile.matmul_acc" : "tile.matmul", std::move(args), {}, call.span);
    if (matmul_uses_.OnlyStored(&result) && StoreConverts(product, call)) return product;
    return CastToTensorDType(product, call, stmts);
  }

  // The operand with its last two axes (its matrix axes) swapped.
  VarPtr Transposed(const ExprPtr& tile, const Span& span, std::vector<StmtPtr>& stmts) {
    const auto rank = static_cast<int64_t>(TileTypeOf(tile)->rank());
    CallPtr transpose = Create("tile.transpose", {tile, ir::Int(rank - 2), ir::Int(rank - 1)}, {}, span);
    auto source = As<Var>(tile);
    VarPtr var = Var::Make((source ? source->name_hint : std::string("operand")) + "_t", transpose->type, span);
    stmts.push_back(ir::AssignStmt::Make(var, transpose, span));
    return var;
  }

  // Whether tile.store accepts the product into a tensor of the tensor op's
  // dtype (the registry's rule, asked rather than repeated here).
  static bool StoreConverts(const CallPtr& product, const ir::Call& call) {
    auto tensor = As<ir::TensorType>(call.type);
    auto tile = TileTypeOf(product);
    if (!tensor || !tile) return false;
    VarPtr destination = Var::Make("destination", tensor, call.span);
    try {
      ops::OpRegistry::Global().Get("tile.store", call.span).DeduceType({product, Zeros(tile->rank()), destination},
                                                                         {}, call.span);
    } catch (const Error&) {
      return false;
    }
    return true;
  }

  // Which tensors feed only the cube, and which results are only stored
  // (assembled into a tensor or returned).
  class MatmulUses : public ir::IRVisitor {
   public:
    using IRVisitor::Visit_;

    bool OnlyMatmulOperand(const Var* v) const {
      return Count(matmul_operand_, v) > 0 && Count(uses_, v) == Count(matmul_operand_, v);
    }
    bool OnlyStored(const Var* v) const { return Count(uses_, v) == Count(stored_, v); }

    void Visit_(const Ref<ir::Var>& var) override {
      ++uses_[var.get()];
      IRVisitor::Visit_(var);
    }
    void Visit_(const Ref<ir::Call>& call) override {
      const std::string& op = call->op->name;
      if (op == "tensor.matmul" || op == "tensor.matmul_acc") {
        size_t lhs = op == "tensor.matmul" ? 0 : 1;
        for (size_t i = lhs; i < lhs + 2 && i < call->args.size(); ++i) Note(matmul_operand_, call->args[i]);
      } else if (op == "tensor.assemble" && call->args.size() > 1) {
        Note(stored_, call->args[1]);
      }
      IRVisitor::Visit_(call);
    }
    void Visit_(const Ref<ir::ReturnStmt>& ret) override {
      for (const auto& value : ret->values) Note(stored_, value);
      IRVisitor::Visit_(ret);
    }

   private:
    using Counts = std::unordered_map<const Var*, int>;
    static int Count(const Counts& counts, const Var* v) {
      auto it = counts.find(v);
      return it == counts.end() ? 0 : it->second;
    }
    static void Note(Counts& counts, const ExprPtr& e) {
      if (auto var = As<Var>(e)) ++counts[var.get()];
    }
    Counts uses_;
    Counts matmul_operand_;
    Counts stored_;
  };

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
    if (window_) offsets = IndexList(WindowOffsets(TensorTypeOf(target)->shape));
    Attrs kwargs;
    if (auto atomic = call.kwargs.Get<int64_t>("atomic")) kwargs.Set("atomic", *atomic);
    CallPtr store = Create("tile.store", {source, offsets, target}, std::move(kwargs), call.span);
    VarPtr var = Var::Make(node.var->name_hint, store->type, node.var->span);
    Remap(node.var, var);
    if (auto root = RootParam(call.args[0])) current_[root] = var;
    stmts.push_back(ir::AssignStmt::Make(var, store, node.span));
  }

  // Where the window of a value with `dims` starts in this iteration: at
  // the block origin along tiled axes, 0 along broadcast (size 1) dims.
  std::vector<ExprPtr> WindowOffsets(const std::vector<ExprPtr>& dims) const {
    std::vector<ExprPtr> offsets(dims.size(), ir::Int(0));
    for (size_t k = 0; k < dims.size() && k < 2; ++k) {
      if (window_->Tiled(k) && !ops::IsConstDim(dims[k], 1)) offsets[k] = window_->axes[k].offset;
    }
    return offsets;
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
  //     [for col, ... in pl.range(...):]
  //         loads; chain; stores; yield
  StmtPtr TiledLoop(const std::vector<StmtPtr>& stmts, const Ref<ir::ReturnStmt>& ret) {
    // Carried tensors: every parameter the chain assembles into, then one Out per returned tile.
    for (const auto& p : f_.params) {
      if (WrittenByChain(stmts, p)) Carry(p);
    }
    std::vector<StmtPtr> body;
    for (const auto& p : f_.params) {
      if (entry_loads_.count(p.get())) body.push_back(EntryLoad(p));
    }
    for (const auto& s : stmts) Append(body, VisitStmt(s));
    std::map<size_t, const Var*> returned_outs;
    for (size_t k = 0; ret && k < ret->values.size(); ++k) {
      VarPtr tile = TileOf(ret->values[k]);
      if (!tile || param_tiles_.count(As<Var>(ret->values[k]).get())) continue;
      VarPtr out = NewOut(k, ret->span);
      ExprPtr target = Carry(out);
      ExprPtr offsets = IndexList(WindowOffsets(TensorTypeOf(out)->shape));
      CallPtr store = Create("tile.store", {tile, offsets, target}, {}, ret->span);
      VarPtr stored = Var::Make("ret" + std::to_string(k) + "_block", store->type, ret->span);
      body.push_back(ir::AssignStmt::Make(stored, store, ret->span));
      current_[out.get()] = stored;
      returned_outs[k] = out.get();
    }
    std::map<const Var*, VarPtr> final_value;
    StmtPtr loop = NestLoops(std::move(body), final_value);
    if (!ret) return loop;
    std::vector<ExprPtr> values;
    for (size_t k = 0; k < ret->values.size(); ++k) {
      if (returned_outs.count(k)) {
        values.push_back(final_value.at(returned_outs.at(k)));
      } else if (const Var* root = RootParam(ret->values[k]); root && final_value.count(root)) {
        values.push_back(final_value.at(root));
      } else {
        values.push_back(ret->values[k]);
      }
    }
    return ir::SeqStmts::Make({loop, ir::ReturnStmt::Make(std::move(values), ret->span)}, f_.span);
  }

  // The tiled axes, outermost loop first.
  std::vector<size_t> LoopAxes() const {
    std::vector<size_t> axes;
    for (size_t k = 0; k < 2; ++k) {
      if (window_->Tiled(k)) axes.push_back(k);
    }
    return axes;
  }

  // One iter_arg per loop for a tensor the chain writes, each initialised
  // from the enclosing loop's; the innermost is the tensor's current value.
  ExprPtr Carry(const VarPtr& root) {
    std::vector<ir::IterArgPtr> chain;
    const size_t loops = LoopAxes().size();
    ExprPtr init = root;
    for (size_t level = 0; level < loops; ++level) {
      std::string name = root->name_hint + (level + 1 == loops ? "_iter" : "_row_iter");
      chain.push_back(ir::IterArg::Make(name, root->type, init, root->span));
      init = chain.back();
    }
    carried_.emplace_back(root.get(), chain);
    current_[root.get()] = init;
    return init;
  }

  // Wraps the innermost body in one loop per tiled axis; `final_value`
  // receives each carried tensor's value after the outermost loop.
  StmtPtr NestLoops(std::vector<StmtPtr> body, std::map<const Var*, VarPtr>& final_value) {
    std::vector<ExprPtr> yields;
    for (const auto& [root, chain] : carried_) yields.push_back(current_.at(root));
    body.push_back(ir::YieldStmt::Make(std::move(yields), f_.span));
    const std::vector<size_t> axes = LoopAxes();
    StmtPtr loop;
    for (size_t level = axes.size(); level-- > 0;) {
      const WindowAxis& axis = window_->axes[axes[level]];
      std::vector<ir::IterArgPtr> iter_args;
      std::vector<VarPtr> results;
      for (const auto& [root, chain] : carried_) {
        iter_args.push_back(chain[level]);
        results.push_back(Var::Make(root->name_hint + (level == 0 ? "_final" : "_row"), root->type, f_.span));
        if (level == 0) final_value[root] = results.back();
      }
      std::vector<ExprPtr> passed(results.begin(), results.end());
      Attrs reason;
      reason.Set("auto_tile_bytes_per_element", window_->bytes_per_element);
      reason.Set("auto_tile_vec_capacity", window_->capacity);
      loop = ir::ForStmt::Make(axis.offset, ir::Int(0), axis.extent, ir::Int(axis.block), std::move(iter_args),
                               ir::SeqStmts::Make(std::move(body), f_.span), std::move(results),
                               ir::ForKind::Sequential, std::move(reason), f_.span);
      body = {loop, ir::YieldStmt::Make(std::move(passed), f_.span)};
    }
    return loop;
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
  // Variables bound to a tensor.slice of this kernel, which became the load of their window.
  std::set<const Var*> loaded_slices_;
  std::set<const Var*> written_params_;
  std::unordered_map<const Var*, VarPtr> param_tiles_;
  MatmulUses matmul_uses_;
  std::unordered_map<const Var*, VarPtr> assembled_from_;  // assemble result -> its target (tiled chains)
  std::unordered_map<const Var*, ExprPtr> current_;        // root tensor -> its latest value in the loop
  std::vector<std::pair<const Var*, std::vector<ir::IterArgPtr>>> carried_;  // tiled chains: per loop, outermost first
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
    return MutateSplicingStatements(node);
  }

 private:
  ExprPtr Update(const ExprPtr& value, std::vector<StmtPtr>& stmts) {
    if (auto submit = As<ir::Submit>(value)) {
      ExprPtr call = Update(submit->call, stmts);
      if (call == submit->call) return value;
      return ir::Submit::Make(call, submit->deps, submit->attrs, submit->span);
    }
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
