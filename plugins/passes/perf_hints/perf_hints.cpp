#include "perf_hints.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "pypto/ir/visitor.h"
#include "pypto/support/strings.h"

namespace pypto::passes {

using ir::As;
using ir::CallPtr;
using ir::Diagnostic;
using ir::ExprPtr;
using ir::FunctionPtr;
using ir::MemorySpace;
using ir::StmtPtr;
using ir::Var;
using ir::VarPtr;

namespace {

// ------------------------------------------------------------------ the codes

struct HintKind {
  const char* code;
  const char* check;
};
constexpr HintKind kGranularity{"PH001", "TileInnermostDimGranularity"};
constexpr HintKind kInvariantLoad{"PH002", "LoopInvariantLoad"};
constexpr HintKind kMatmulReload{"PH003", "MatmulOperandReloaded"};
constexpr HintKind kSmallTile{"PH004", "BufferForcedSmallTile"};

// Attributes ConvertTensorToTileOps records on the loop of an auto-tiled chain.
constexpr const char* kAutoTileBytesPerElement = "auto_tile_bytes_per_element";
constexpr const char* kAutoTileVecCapacity = "auto_tile_vec_capacity";

// ------------------------------------------------------------------ the scan

// A loop of the kernel, with what the checks need to know about it.
struct Loop {
  StmtPtr stmt;          // the ForStmt or WhileStmt
  VarPtr loop_var;       // null for a while loop
  std::vector<VarPtr> carried;  // iter_args
  StmtPtr body;
  std::optional<int64_t> trip_count;  // static for loops only
  const ir::Attrs* attrs = nullptr;   // for loops only
  Span span;
};

// A tile.load, tile.store or matmul call and the loops around it, outermost first.
struct Site {
  CallPtr call;
  VarPtr result;  // the assigned variable; null for a call evaluated for effect
  std::vector<const Loop*> loops;
  Span span;
  const char* node = "AssignStmt";
};

// A call of the op `name` with at least `arity` arguments (the registry's
// arity; a malformed call is left to the verifier).
bool IsOp(const CallPtr& call, const char* name, size_t arity = 1) {
  return call && !call->is_function_call() && call->op->name == name && call->args.size() >= arity;
}

// Matmul-family ops and the argument positions of their Left and Right operands.
std::optional<std::pair<size_t, size_t>> MatmulOperands(const CallPtr& call) {
  if (IsOp(call, "tile.matmul", 2) || IsOp(call, "tile.matmul_bias", 2)) return std::make_pair(size_t{0}, size_t{1});
  if (IsOp(call, "tile.matmul_acc", 3)) return std::make_pair(size_t{1}, size_t{2});
  return std::nullopt;
}

std::optional<int64_t> TripCount(const ir::ForStmt& loop) {
  auto start = ir::AsConstInt(loop.start);
  auto stop = ir::AsConstInt(loop.stop);
  auto step = ir::AsConstInt(loop.step);
  if (!start || !stop || !step || *step <= 0) return std::nullopt;
  return *stop > *start ? (*stop - *start + *step - 1) / *step : 0;
}

// Loads, stores and matmuls of one kernel with their loops; each variable's
// defining call; and the storage root of each tensor variable (a loop's
// iter_arg and return var, and a store's result, are the tensor they carry or
// write).
class KernelScan : public ir::IRVisitor {
 public:
  std::vector<std::unique_ptr<Loop>> loops;
  std::vector<Site> loads;
  std::vector<Site> stores;
  std::vector<Site> matmuls;
  std::unordered_map<const Var*, CallPtr> defining_call;

  const Var* RootOf(const Var* var) const {
    for (auto it = root_.find(var); it != root_.end(); it = root_.find(var)) var = it->second;
    return var;
  }

  void Visit_(const ir::Ref<ir::AssignStmt>& assign) override {
    if (auto source = As<Var>(assign->value)) root_[assign->var.get()] = source.get();
    if (auto call = As<ir::Call>(assign->value)) {
      defining_call[assign->var.get()] = call;
      Record(call, assign->var, assign->span, "AssignStmt");
    }
    IRVisitor::Visit_(assign);
  }

  void Visit_(const ir::Ref<ir::EvalStmt>& eval) override {
    if (auto call = As<ir::Call>(eval->expr)) Record(call, nullptr, eval->span, "EvalStmt");
    IRVisitor::Visit_(eval);
  }

  void Visit_(const ir::Ref<ir::ForStmt>& loop) override {
    auto info = std::make_unique<Loop>();
    info->stmt = loop;
    info->loop_var = loop->loop_var;
    info->carried.assign(loop->iter_args.begin(), loop->iter_args.end());
    info->body = loop->body;
    info->trip_count = TripCount(*loop);
    info->attrs = &loop->attrs;
    info->span = loop->span;
    Carry(loop->iter_args, loop->return_vars);
    Enter(std::move(info), [&] { IRVisitor::Visit_(loop); });
  }

  void Visit_(const ir::Ref<ir::WhileStmt>& loop) override {
    auto info = std::make_unique<Loop>();
    info->stmt = loop;
    info->carried.assign(loop->iter_args.begin(), loop->iter_args.end());
    info->body = loop->body;
    info->span = loop->span;
    Carry(loop->iter_args, loop->return_vars);
    Enter(std::move(info), [&] { IRVisitor::Visit_(loop); });
  }

 private:
  template <class F>
  void Enter(std::unique_ptr<Loop> loop, F&& visit) {
    stack_.push_back(loop.get());
    loops.push_back(std::move(loop));
    visit();
    stack_.pop_back();
  }

  void Carry(const std::vector<ir::IterArgPtr>& iter_args, const std::vector<VarPtr>& return_vars) {
    for (size_t i = 0; i < iter_args.size(); ++i) {
      if (auto init = As<Var>(iter_args[i]->init_value)) root_[iter_args[i].get()] = init.get();
      if (i < return_vars.size()) root_[return_vars[i].get()] = iter_args[i].get();
    }
  }

  void Record(const CallPtr& call, const VarPtr& result, const Span& span, const char* node) {
    Site site{call, result, stack_, span.known() ? span : call->span, node};
    if (IsOp(call, "tile.load", 3)) {
      loads.push_back(site);
    } else if (IsOp(call, "tile.store", 3)) {
      if (auto target = As<Var>(call->args.at(2)); target && result) root_[result.get()] = target.get();
      stores.push_back(site);
    } else if (MatmulOperands(call)) {
      matmuls.push_back(site);
    }
  }

  std::vector<const Loop*> stack_;
  std::unordered_map<const Var*, const Var*> root_;
};

// The variables an expression reads.
class UseCollector : public ir::IRVisitor {
 public:
  std::unordered_set<const Var*> used;
  void Visit_(const ir::Ref<Var>& var) override { used.insert(var.get()); }
  void Visit_(const ir::Ref<ir::IterArg>& var) override { used.insert(var.get()); }
};

bool ReadsAny(const ExprPtr& expr, const std::unordered_set<const Var*>& vars) {
  if (!expr) return false;
  UseCollector uses;
  uses.VisitExpr(expr);
  return std::any_of(uses.used.begin(), uses.used.end(), [&](const Var* v) { return vars.count(v) > 0; });
}

// The variables whose value can differ from one iteration of a loop to the
// next: its loop variable and iter_args, and whatever is computed from them
// in its body. Inner loops' iter_args and return values, and if results,
// count as varying (a safe over-approximation); an inner loop's variable
// varies when its bounds do.
class VariantCollector {
 public:
  explicit VariantCollector(const Loop& loop) {
    if (loop.loop_var) variant.insert(loop.loop_var.get());
    for (const auto& v : loop.carried) variant.insert(v.get());
    Walk(loop.body);
  }

  std::unordered_set<const Var*> variant;

 private:
  void Walk(const StmtPtr& stmt) {
    if (!stmt) return;
    if (auto seq = As<ir::SeqStmts>(stmt)) {
      for (const auto& s : seq->stmts) Walk(s);
    } else if (auto assign = As<ir::AssignStmt>(stmt)) {
      if (ReadsAny(assign->value, variant)) variant.insert(assign->var.get());
    } else if (auto loop = As<ir::ForStmt>(stmt)) {
      if (ReadsAny(loop->start, variant) || ReadsAny(loop->stop, variant) || ReadsAny(loop->step, variant)) {
        variant.insert(loop->loop_var.get());
      }
      Insert(loop->iter_args, loop->return_vars);
      Walk(loop->body);
    } else if (auto loop = As<ir::WhileStmt>(stmt)) {
      Insert(loop->iter_args, loop->return_vars);
      Walk(loop->body);
    } else if (auto branch = As<ir::IfStmt>(stmt)) {
      Walk(branch->then_body);
      Walk(branch->else_body);
      for (const auto& v : branch->return_vars) variant.insert(v.get());
    } else if (auto scope = As<ir::ScopeStmt>(stmt)) {
      Walk(scope->body);
    }
  }

  void Insert(const std::vector<ir::IterArgPtr>& iter_args, const std::vector<VarPtr>& return_vars) {
    for (const auto& v : iter_args) variant.insert(v.get());
    for (const auto& v : return_vars) variant.insert(v.get());
  }
};

// Every tile.store target inside a statement, as storage roots.
class StoreTargets : public ir::IRVisitor {
 public:
  explicit StoreTargets(const KernelScan& scan) : scan_(scan) {}
  std::unordered_set<const Var*> roots;

  void Visit_(const ir::Ref<ir::Call>& call) override {
    if (IsOp(call, "tile.store", 3)) {
      if (auto target = As<Var>(call->args.at(2))) roots.insert(scan_.RootOf(target.get()));
    }
    IRVisitor::Visit_(call);
  }

 private:
  const KernelScan& scan_;
};

// ------------------------------------------------------------------ text

std::string Dims(const std::vector<int64_t>& dims) {
  std::string text = "[";
  for (size_t i = 0; i < dims.size(); ++i) text += (i ? ", " : "") + std::to_string(dims[i]);
  return text + "]";
}

std::string Where(const Span& span) { return span.known() ? " (line " + std::to_string(span.begin_line) + ")" : ""; }

std::string LoopText(const Loop& loop) {
  if (!loop.loop_var) return "the while loop" + Where(loop.span);
  return "the loop over '" + loop.loop_var->name_hint + "'" + Where(loop.span);
}

std::string Name(const ExprPtr& e) {
  auto var = As<Var>(e);
  return var ? "'" + var->name_hint + "'" : "a tensor";
}

// A tile's static shape, dtype and the figures the checks compare.
struct TileShape {
  std::vector<int64_t> dims;
  ir::DataType dtype;
  int64_t rows = 1;       // product of all but the innermost dimension
  int64_t row_bytes = 0;  // bytes of one innermost row
  int64_t bytes = 0;

  std::string Text() const { return Dims(dims) + " " + dtype.name(); }
};

std::optional<TileShape> ShapeOfTile(const ir::TypePtr& type) {
  auto tile = As<ir::TileType>(type);
  if (!tile || tile->shape.empty()) return std::nullopt;
  auto dims = ir::StaticShape(tile->shape);
  if (!dims) return std::nullopt;
  TileShape shape{*dims, tile->dtype};
  for (size_t i = 0; i + 1 < dims->size(); ++i) shape.rows *= (*dims)[i];
  shape.row_bytes = tile->dtype.StorageBytes(dims->back());
  shape.bytes = shape.rows * shape.row_bytes;
  return shape;
}

// ------------------------------------------------------------------ checks

class KernelChecks {
 public:
  KernelChecks(const FunctionPtr& function, const backend::Platform& platform, const PerfHintOptions& options,
               bool addresses_allocated, std::vector<Diagnostic>& out)
      : function_(function), platform_(platform), options_(options), allocated_(addresses_allocated), out_(out) {
    transfer_bytes_ =
        options.efficient_transfer_bytes > 0 ? options.efficient_transfer_bytes : platform.efficient_transfer_bytes;
    scan_.VisitFunction(function);
    CollectBuffers();
    for (const auto& matmul : scan_.matmuls) MarkMatmulOperands(matmul);
  }

  void Run() {
    for (const auto& load : scan_.loads) {
      if (load.result) CheckGranularity(load, load.call->args.at(0), load.result->type);
    }
    for (const auto& store : scan_.stores) CheckGranularity(store, store.call->args.at(2), store.call->args.at(0)->type);
    for (const auto& load : scan_.loads) {
      if (!load.result) continue;
      if (matmul_operand_loads_.count(load.call.get())) {
        CheckMatmulOperand(load);
      } else {
        CheckInvariantLoad(load);
      }
    }
    for (const auto& loop : scan_.loops) CheckAutoTiledLoop(*loop);
    if (allocated_) CheckNearlyFullSpaces();
  }

 private:
  struct Buffer {
    const ir::MemRef* memref;
    std::vector<std::string> tiles;
  };

  void Report(const HintKind& kind, const Span& span, const char* node, std::string message, std::string fix) {
    Diagnostic d;
    d.severity = Diagnostic::Severity::kPerfHint;
    d.rule = kind.check;
    d.code = kind.code;
    d.function = function_->name;
    d.node = node;
    d.message = std::move(message);
    d.fix = std::move(fix);
    d.span = span.known() ? span : function_->span;
    out_.push_back(std::move(d));
  }

  // ---- PH001: rows narrower than the platform moves efficiently.

  void CheckGranularity(const Site& site, const ExprPtr& tensor_expr, const ir::TypePtr& tile_type) {
    auto tile = ShapeOfTile(tile_type);
    auto tensor = As<ir::TensorType>(tensor_expr->type);
    if (!tile || !tensor || tensor->layout != ir::TensorLayout::ND || tile->row_bytes >= transfer_bytes_) return;
    // A tile spanning whole rows of a packed tensor is one contiguous block however narrow its rows.
    auto tensor_dims = ir::StaticShape(tensor->shape);
    bool packed = !tensor->view || tensor->view->strides.empty();
    if (packed && tensor_dims && !tensor_dims->empty() && tensor_dims->back() == tile->dims.back()) return;
    const bool load = IsOp(site.call, "tile.load");
    const std::string what = load ? "tile.load of '" + site.result->name_hint + "'" : "tile.store";
    const int64_t min_elements = (transfer_bytes_ * 8 + tile->dtype.bits() - 1) / tile->dtype.bits();
    Report(kGranularity, site.span, site.node,
           what + " moves " + tile->Text() + (load ? " from " : " to ") + Name(tensor_expr) + " as " +
               std::to_string(tile->rows) + (tile->rows == 1 ? " row" : " rows") + " of " +
               std::to_string(tile->row_bytes) + " bytes (" + std::to_string(tile->bytes) + " bytes); platform '" +
               platform_.name + "' moves data efficiently from " + std::to_string(transfer_bytes_) +
               " bytes per row",
           "widen the tile's last dimension to at least " + std::to_string(min_elements) + " elements (" +
               std::to_string(transfer_bytes_) + " bytes), or lay the data out so that the long axis is innermost");
  }

  // ---- invariance

  const std::unordered_set<const Var*>& VariantIn(const Loop& loop) {
    auto it = variant_.find(&loop);
    if (it == variant_.end()) it = variant_.emplace(&loop, VariantCollector(loop).variant).first;
    return it->second;
  }

  const std::unordered_set<const Var*>& WrittenIn(const Loop& loop) {
    auto it = written_.find(&loop);
    if (it == written_.end()) {
      StoreTargets targets(scan_);
      targets.VisitStmt(loop.body);
      it = written_.emplace(&loop, std::move(targets.roots)).first;
    }
    return it->second;
  }

  // Whether a load reads the same data in every iteration of `loop`: its
  // arguments do not vary there and the loop does not write its tensor.
  bool InvariantIn(const Site& load, const Loop& loop) {
    const auto& variant = VariantIn(loop);
    for (const auto& arg : load.call->args) {
      if (ReadsAny(arg, variant)) return false;
    }
    auto tensor = As<Var>(load.call->args.at(0));
    return tensor && !WrittenIn(loop).count(scan_.RootOf(tensor.get()));
  }

  // The outermost of the loops, from the innermost outwards, in which the load
  // is invariant; null when it varies in its innermost loop.
  const Loop* HoistTarget(const Site& load) {
    const Loop* target = nullptr;
    for (auto it = load.loops.rbegin(); it != load.loops.rend() && InvariantIn(load, **it); ++it) target = *it;
    return target;
  }

  static std::string Times(const Loop& loop) {
    return loop.trip_count ? "; it is loaded " + std::to_string(*loop.trip_count) + " times" : "";
  }

  std::string LoadText(const Site& load) {
    auto tile = ShapeOfTile(load.result->type);
    return "tile.load of '" + load.result->name_hint + "' (" + (tile ? tile->Text() + " " : std::string()) +
           "from " + Name(load.call->args.at(0)) + ")";
  }

  // ---- PH002: a load that reads the same data in every iteration.

  void CheckInvariantLoad(const Site& load) {
    if (load.loops.empty()) return;
    const Loop* target = HoistTarget(load);
    if (!target) return;
    const Loop& innermost = *load.loops.back();
    Report(kInvariantLoad, load.span, load.node,
           LoadText(load) + " is inside " + LoopText(innermost) +
               " but reads the same data in every iteration: its tensor, offsets and shape do not depend on the "
               "loop, and the loop does not write that tensor" +
               Times(innermost),
           "load it once before " + LoopText(*target) + " and use that tile inside the loop");
  }

  // ---- PH003: a matmul operand loaded again and again.

  // Follows a matmul operand back through moves, extracts and slices to the load it came from.
  void MarkMatmulOperands(const Site& matmul) {
    auto [lhs, rhs] = *MatmulOperands(matmul.call);
    for (size_t index : {lhs, rhs}) {
      ExprPtr operand = matmul.call->args.at(index);
      while (auto var = As<Var>(operand)) {
        auto it = scan_.defining_call.find(var.get());
        if (it == scan_.defining_call.end()) break;
        const CallPtr& def = it->second;
        if (IsOp(def, "tile.load", 3)) {
          matmul_operand_loads_.insert(def.get());
          break;
        }
        if (!IsOp(def, "tile.move") && !IsOp(def, "tile.extract") && !IsOp(def, "tile.slice")) break;
        operand = def->args.at(0);
      }
    }
  }

  void CheckMatmulOperand(const Site& load) {
    if (load.loops.empty()) return;
    const Loop& innermost = *load.loops.back();
    if (const Loop* target = HoistTarget(load)) {
      Report(kMatmulReload, load.span, load.node,
             LoadText(load) + " feeds a matmul and is reloaded in every iteration of " + LoopText(innermost) +
                 " though it reads the same data each time" + Times(innermost),
             "load it once before " + LoopText(*target) +
                 ", move it to Left/Right there when it fits, and reuse it in every step");
      return;
    }
    CheckPanelReload(load, innermost);
  }

  // The load varies with its own loop (the K loop) but not with the loop
  // around that one, so the whole panel the K loop walks is loaded again in
  // every outer iteration; report it when the panel fits in free Mat.
  void CheckPanelReload(const Site& load, const Loop& k_loop) {
    if (load.loops.size() < 2 || !k_loop.trip_count) return;
    const Loop& outer = *load.loops[load.loops.size() - 2];
    auto tile = ShapeOfTile(load.result->type);
    if (!tile || !InvariantIn(load, outer) || !platform_.HasSpace(MemorySpace::Mat)) return;
    const int64_t panel = tile->bytes * *k_loop.trip_count;
    const int64_t free_mat = platform_.Capacity(MemorySpace::Mat) - (allocated_ ? HighWater(MemorySpace::Mat) : 0);
    if (panel > free_mat) return;
    const std::string reloads = outer.trip_count ? std::to_string(*outer.trip_count) + " times" : "once per iteration";
    Report(kMatmulReload, load.span, load.node,
           LoadText(load) + " feeds a matmul; " + LoopText(k_loop) + " loads " + std::to_string(*k_loop.trip_count) +
               " such tiles (" + std::to_string(panel) + " bytes), the same ones in every iteration of " +
               LoopText(outer) + ", so that panel is loaded " + reloads,
           "load the panel once into Mat before " + LoopText(outer) + " (it needs " + std::to_string(panel) +
               " of the " + std::to_string(free_mat) +
               " free bytes of Mat) and take each step's block from it with tile.extract");
  }

  // ---- PH004: a full buffer that forced a small tile.

  bool IsSmall(const TileShape& tile) const {
    return tile.rows < options_.min_block_rows || tile.row_bytes < transfer_bytes_;
  }

  const Site* FirstLoadIn(const Loop& loop) const {
    for (const auto& load : scan_.loads) {
      if (!load.loops.empty() && load.loops.back() == &loop && load.result) return &load;
    }
    return nullptr;
  }

  void CheckAutoTiledLoop(const Loop& loop) {
    if (!loop.attrs) return;
    auto bytes_per_element = loop.attrs->Get<int64_t>(kAutoTileBytesPerElement);
    auto capacity = loop.attrs->Get<int64_t>(kAutoTileVecCapacity);
    const Site* load = FirstLoadIn(loop);
    auto tile = load ? ShapeOfTile(load->result->type) : std::nullopt;
    if (!bytes_per_element || !capacity || !tile || !IsSmall(*tile)) return;
    const std::string iterations = loop.trip_count ? ", " + std::to_string(*loop.trip_count) + " iterations" : "";
    Report(kSmallTile, loop.span.known() ? loop.span : load->span, "ForStmt",
           "ConvertTensorToTileOps split this element-wise chain into blocks of " + tile->Text() + iterations +
               ": its tiles are all live at once and need " + std::to_string(*bytes_per_element) +
               " bytes per element, and Vec holds " + std::to_string(*capacity) +
               " bytes, so blocks (powers of two dividing the data) could be no larger",
           "keep fewer tiles live in the chain (fewer intermediate results, a narrower dtype), or tile it yourself "
           "with pl.range and slices of at least " +
               std::to_string(options_.min_block_rows) + " rows");
    auto_tiled_.insert(&loop);
  }

  void CheckNearlyFullSpaces() {
    for (MemorySpace space : {MemorySpace::Vec, MemorySpace::Mat}) {
      if (!platform_.HasSpace(space)) continue;
      const int64_t used = HighWater(space);
      const int64_t capacity = platform_.Capacity(space);
      if (used * 100 < options_.nearly_full_percent * capacity) continue;
      if (const Site* load = FirstSmallLoopLoad(space)) ReportNearlyFull(*load, space, used, capacity);
    }
  }

  const Site* FirstSmallLoopLoad(MemorySpace space) const {
    for (const auto& load : scan_.loads) {
      if (load.loops.empty() || !load.result || auto_tiled_.count(load.loops.back())) continue;
      auto tile_type = As<ir::TileType>(load.result->type);
      auto tile = ShapeOfTile(load.result->type);
      if (tile_type && tile_type->memory_space == space && tile && IsSmall(*tile)) return &load;
    }
    return nullptr;
  }

  void ReportNearlyFull(const Site& load, MemorySpace space, int64_t used, int64_t capacity) {
    const std::string space_name = ir::ToString(space);
    Report(kSmallTile, load.span, load.node,
           "function '" + function_->name + "' uses " + std::to_string(used) + " of the " + std::to_string(capacity) +
               " bytes of " + space_name + " (" + std::to_string(used * 100 / capacity) + "%), so " + LoadText(load) +
               ", loaded in every iteration of " + LoopText(*load.loops.back()) +
               ", has no room to grow; the largest buffers of " + space_name + ": " + LargestBuffers(space),
           "free " + space_name +
               " (fewer tiles live at once, narrower dtypes, shorter-lived intermediates), then load at least " +
               std::to_string(options_.min_block_rows) + " rows of at least " + std::to_string(transfer_bytes_) +
               " bytes per iteration");
  }

  // ---- buffers

  void CollectBuffers() {
    class Collector : public ir::IRVisitor {
     public:
      std::vector<Buffer> buffers;
      void VisitVarDef(const VarPtr& var) override {
        if (auto memref = ir::MemRefOf(var)) {
          auto [it, inserted] = index_.emplace(memref.get(), buffers.size());
          if (inserted) buffers.push_back(Buffer{memref.get(), {}});
          buffers[it->second].tiles.push_back("'" + var->name_hint + "'");
        }
        IRVisitor::VisitVarDef(var);
      }

     private:
      std::unordered_map<const ir::MemRef*, size_t> index_;
    };
    Collector collector;
    collector.VisitFunction(function_);
    buffers_ = std::move(collector.buffers);
  }

  int64_t HighWater(MemorySpace space) const {
    int64_t high = 0;
    for (const auto& buffer : buffers_) {
      auto offset = ir::AsConstInt(buffer.memref->byte_offset);
      if (buffer.memref->memory_space == space && offset) high = std::max(high, *offset + buffer.memref->size);
    }
    return high;
  }

  std::string LargestBuffers(MemorySpace space) const {
    constexpr size_t kShown = 3;
    std::vector<const Buffer*> in_space;
    for (const auto& buffer : buffers_) {
      if (buffer.memref->memory_space == space) in_space.push_back(&buffer);
    }
    std::stable_sort(in_space.begin(), in_space.end(),
                     [](const Buffer* a, const Buffer* b) { return a->memref->size > b->memref->size; });
    std::string text;
    for (size_t i = 0; i < in_space.size() && i < kShown; ++i) {
      text += (i ? "; " : "") + std::to_string(in_space[i]->memref->size) + " bytes (" +
              Join(in_space[i]->tiles, ", ") + ")";
    }
    return text;
  }

  const FunctionPtr& function_;
  const backend::Platform& platform_;
  const PerfHintOptions& options_;
  const bool allocated_;
  std::vector<Diagnostic>& out_;
  int64_t transfer_bytes_ = 0;
  KernelScan scan_;
  std::vector<Buffer> buffers_;
  std::unordered_set<const ir::Call*> matmul_operand_loads_;
  std::unordered_set<const Loop*> auto_tiled_;
  std::unordered_map<const Loop*, std::unordered_set<const Var*>> variant_;
  std::unordered_map<const Loop*, std::unordered_set<const Var*>> written_;
};

// One hint per code and site (unrolled copies of a load share its line), in source order.
std::vector<Diagnostic> SortedUnique(std::vector<Diagnostic> hints) {
  auto key = [](const Diagnostic& d) {
    return std::make_tuple(d.span.filename, d.span.begin_line, d.span.begin_col, d.code, d.function);
  };
  std::stable_sort(hints.begin(), hints.end(), [&](const Diagnostic& a, const Diagnostic& b) {
    auto ka = key(a);
    auto kb = key(b);
    return ka != kb ? ka < kb : a.message < b.message;
  });
  std::vector<Diagnostic> unique;
  for (auto& hint : hints) {
    if (!unique.empty() && key(unique.back()) == key(hint)) continue;
    unique.push_back(std::move(hint));
  }
  return unique;
}

}  // namespace

std::vector<Diagnostic> FindPerfHints(const ir::ProgramPtr& program, const backend::Platform& platform,
                                      const PerfHintOptions& options, bool addresses_allocated) {
  std::vector<Diagnostic> hints;
  for (const auto& function : program->functions) {
    if (!ir::IsCoreKernel(function->func_type)) continue;
    KernelChecks(function, platform, options, addresses_allocated, hints).Run();
  }
  return SortedUnique(std::move(hints));
}

}  // namespace pypto::passes
