#include "init_memref.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "pypto/ir/mutator.h"
#include "pypto/ir/tile_storage.h"
#include "pypto/ir/visitor.h"
#include "pypto/ops/registry.h"
#include "pypto/ops/type_rules.h"
#include "pypto/support/error.h"

namespace pypto::passes {

using ir::As;
using ir::ExprPtr;
using ir::FunctionPtr;
using ir::MemorySpace;
using ir::Ref;
using ir::StmtPtr;
using ir::VarPtr;

namespace {

// Ops whose result is the source tile's storage under another shape or window.
const std::set<std::string> kViewOps = {"tile.reshape", "tile.slice", "tile.set_validshape"};

Ref<ir::TileType> TileTypeOf(const ExprPtr& e) { return e ? As<ir::TileType>(e->type) : nullptr; }

// The tile variable `e` is, if it is one.
VarPtr TileVar(const ExprPtr& e) {
  auto var = As<ir::Var>(e);
  return var && TileTypeOf(var) ? var : nullptr;
}

// The tile whose storage the value of an assignment must reuse: the aliased
// variable of `y = x`, the input an op writes its result into, or the source
// of a view.
VarPtr SharedSource(const ExprPtr& value) {
  if (auto var = TileVar(value)) return var;
  auto call = As<ir::Call>(value);
  if (!call || call->is_function_call()) return nullptr;
  if (kViewOps.count(call->callee_name()) && !call->args.empty()) return TileVar(call->args[0]);
  const ops::OpDef* def = ops::OpRegistry::Global().Find(call->callee_name());
  if (!def || !def->output_reuses_input()) return nullptr;
  size_t index = static_cast<size_t>(*def->output_reuses_input());
  return index < call->args.size() ? TileVar(call->args[index]) : nullptr;
}

// The values a body's trailing yield passes on; empty when it has none.
std::vector<ExprPtr> TrailingYield(const StmtPtr& body) {
  if (!body) return {};
  std::vector<StmtPtr> stmts = ir::Flatten(body);
  auto yield = stmts.empty() ? nullptr : As<ir::YieldStmt>(stmts.back());
  return yield ? yield->values : std::vector<ExprPtr>{};
}

std::string Where(const VarPtr& var) { return var->span.known() ? " (at " + var->span.ToString() + ")" : ""; }

ExprPtr Times(const ExprPtr& e, int64_t factor) {
  if (auto value = ir::AsConstInt(e)) return ir::Int(*value * factor);
  if (factor == 1) return e;
  return ir::BinaryExpr::Make(ir::BinaryOp::Mul, e, ir::Int(factor));
}

ExprPtr Plus(const ExprPtr& a, const ExprPtr& b) {
  auto x = ir::AsConstInt(a);
  auto y = ir::AsConstInt(b);
  if (x && y) return ir::Int(*x + *y);
  if (x == 0) return b;
  if (y == 0) return a;
  return ir::BinaryExpr::Make(ir::BinaryOp::Add, a, b);
}

// Where a view starts in its source's storage (bytes from the source's
// start) and how many bytes from there it spans.
struct ViewPlace {
  ExprPtr offset;
  int64_t footprint = 0;
};

// The place of `view = tile.slice(source, shape, offset)`, or nullopt when a
// shape is not static (InitMemRef reports that tile). A window of a fractal
// layout at a non-zero origin is not one stretch of bytes: an error.
std::optional<ViewPlace> SlicePlace(const ir::Call& slice, const VarPtr& source, const VarPtr& view,
                                    const std::string& function) {
  auto type = TileTypeOf(source);
  auto shape = ir::StaticShape(type->shape);
  auto window = ir::StaticShape(TileTypeOf(view)->shape);
  auto origin = As<ir::MakeTuple>(slice.args[2]);
  if (!shape || !window || !origin || origin->elements.size() != shape->size()) return std::nullopt;
  const size_t rank = shape->size();
  ir::TileStorageOrder order = ir::StorageOrderOf(*type, *shape);
  std::vector<int64_t> storage = ir::StorageShape(*type, *shape);
  std::vector<int64_t> strides(rank, 1);
  for (size_t k = 0; k + 1 < rank; ++k) {
    size_t inner = order == ir::TileStorageOrder::kColMajor ? k + 1 : rank - 2 - k;
    size_t outer = order == ir::TileStorageOrder::kColMajor ? k : rank - 1 - k;
    strides[inner] = strides[outer] * storage[outer];
  }
  const int64_t bytes = type->dtype.StorageBytes(1);
  ExprPtr offset = ir::Int(0);
  int64_t last = 0;
  bool at_origin = true;
  for (size_t k = 0; k < rank; ++k) {
    offset = Plus(offset, Times(origin->elements[k], strides[k] * bytes));
    at_origin = at_origin && ir::AsConstInt(origin->elements[k]) == 0;
    last += ((*window)[k] - 1) * strides[k];
  }
  if (order == ir::TileStorageOrder::kFractal && !at_origin) {
    throw Error(ErrorKind::kValue,
                "InitMemRef: tile.slice '" + view->name_hint + "' in function '" + function + "'" + Where(view) +
                    " takes a window of '" + source->name_hint + "', whose " + ir::ToString(*type->memory_space) +
                    " layout stores elements in fractal blocks, at a non-zero origin: the window is not one "
                    "stretch of the buffer, so it cannot be a view; copy it out with tile.extract instead",
                view->span);
  }
  return ViewPlace{offset, type->dtype.StorageBytes(last + 1)};
}

class UnionFind {
 public:
  void Add(const ir::Var* v) { parent_.emplace(v, v); }
  const ir::Var* Find(const ir::Var* v) {
    while (parent_.at(v) != v) v = parent_[v] = parent_.at(parent_.at(v));
    return v;
  }
  void Union(const ir::Var* a, const ir::Var* b) {
    if (!parent_.count(a) || !parent_.count(b)) return;
    parent_[Find(b)] = Find(a);
  }

 private:
  std::unordered_map<const ir::Var*, const ir::Var*> parent_;
};

// Every tile variable of a function in definition order, the groups of
// tiles that must sit in one buffer, and where in its buffer each tile
// starts: a view at its place in the source, every other sharer where the
// tile it shares with starts.
class BufferGrouper : public ir::IRVisitor {
 public:
  using IRVisitor::Visit_;

  explicit BufferGrouper(std::string function) : function_(std::move(function)) {}

  std::vector<VarPtr> tiles;
  UnionFind groups;

  void VisitVarDef(const VarPtr& var) override {
    if (TileTypeOf(var)) {
      tiles.push_back(var);
      groups.Add(var.get());
    }
    IRVisitor::VisitVarDef(var);
  }

  void Visit_(const Ref<ir::AssignStmt>& stmt) override {
    IRVisitor::Visit_(stmt);
    if (!TileTypeOf(stmt->var)) return;
    auto source = SharedSource(stmt->value);
    if (!source) return;
    groups.Union(source.get(), stmt->var.get());
    Place place{source, ir::Int(0), 0};
    auto call = As<ir::Call>(stmt->value);
    if (call && call->callee_name() == "tile.slice") {
      if (auto view = SlicePlace(*call, source, stmt->var, function_)) {
        place.offset = view->offset;
        place.footprint = view->footprint;
      }
    }
    places_[stmt->var.get()] = place;
  }

  void Visit_(const Ref<ir::ForStmt>& loop) override {
    IRVisitor::Visit_(loop);
    JoinCarried(loop->iter_args, loop->body, loop->return_vars);
  }

  void Visit_(const Ref<ir::WhileStmt>& loop) override {
    IRVisitor::Visit_(loop);
    JoinCarried(loop->iter_args, loop->body, loop->return_vars);
  }

  // Only one branch runs, so each phi and the values both branches yield for it share.
  void Visit_(const Ref<ir::IfStmt>& stmt) override {
    IRVisitor::Visit_(stmt);
    std::vector<ExprPtr> then_values = TrailingYield(stmt->then_body);
    JoinEach(then_values, stmt->return_vars, /*define=*/true);
    JoinEach(TrailingYield(stmt->else_body), stmt->return_vars, /*define=*/false);
  }

  // Where `tile` starts in its buffer, in bytes from the buffer's start.
  ExprPtr OffsetOf(const VarPtr& tile) {
    auto known = offsets_.find(tile.get());
    if (known != offsets_.end()) return known->second;
    auto place = places_.find(tile.get());
    ExprPtr offset = place == places_.end() ? ir::Int(0) : Plus(OffsetOf(place->second.source), place->second.offset);
    offsets_[tile.get()] = offset;
    return offset;
  }

  // The bytes a view spans from its start; 0 for tiles that are not views.
  int64_t FootprintOf(const VarPtr& tile) const {
    auto place = places_.find(tile.get());
    return place == places_.end() ? 0 : place->second.footprint;
  }

  // Tiles that share one storage place by being one value (a loop's yield
  // and its iter_arg, a branch's yield and the phi) must start at one offset.
  void CheckOffsets() {
    for (const auto& [a, b] : same_place_) {
      ExprPtr x = OffsetOf(a);
      ExprPtr y = OffsetOf(b);
      if (ops::SameDim(x, y)) continue;
      throw Error(ErrorKind::kValue,
                  "InitMemRef: tiles '" + a->name_hint + "' and '" + b->name_hint + "' in function '" + function_ +
                      "' are one loop-carried or branch value but start at different places of their buffer (byte " +
                      ops::DimString(x) + " and byte " + ops::DimString(y) +
                      "): one of them is a tile.slice window; carry whole tiles, or copy the window out with "
                      "tile.extract",
                  b->span);
    }
  }

 private:
  struct Place {
    VarPtr source;
    ExprPtr offset;     // bytes from the source's start
    int64_t footprint;  // bytes a view spans; 0 when it spans what its source does
  };

  // A loop's init value, iter_arg, yielded value and return var are one carried buffer.
  void JoinCarried(const std::vector<ir::IterArgPtr>& iter_args, const StmtPtr& body,
                   const std::vector<VarPtr>& return_vars) {
    std::vector<VarPtr> carried(iter_args.begin(), iter_args.end());
    std::vector<ExprPtr> inits;
    for (const auto& iter_arg : iter_args) inits.push_back(iter_arg->init_value);
    JoinEach(inits, carried, /*define=*/true);
    JoinEach(TrailingYield(body), carried, /*define=*/false);
    JoinEach(std::vector<ExprPtr>(carried.begin(), carried.end()), return_vars, /*define=*/true);
  }

  // Each target shares with its value; with `define` the target starts
  // where the value does, else the two must start at one place.
  void JoinEach(const std::vector<ExprPtr>& values, const std::vector<VarPtr>& targets, bool define) {
    for (size_t i = 0; i < values.size() && i < targets.size(); ++i) {
      auto value = TileVar(values[i]);
      if (!value || !TileTypeOf(targets[i])) continue;
      groups.Union(targets[i].get(), value.get());
      if (define) {
        places_[targets[i].get()] = Place{value, ir::Int(0), 0};
      } else {
        same_place_.emplace_back(targets[i], value);
      }
    }
  }

  std::string function_;
  std::unordered_map<const ir::Var*, Place> places_;  // tile -> the tile it starts relative to
  std::unordered_map<const ir::Var*, ExprPtr> offsets_;
  std::vector<std::pair<VarPtr, VarPtr>> same_place_;
};

std::string LowerName(MemorySpace space) {
  std::string name = ir::ToString(space);
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) { return std::tolower(c); });
  return name;
}

MemorySpace SpaceOf(const VarPtr& tile, const std::string& function) {
  auto space = TileTypeOf(tile)->memory_space;
  if (space) return *space;
  throw Error(ErrorKind::kValue,
              "InitMemRef: tile '" + tile->name_hint + "' in function '" + function + "'" + Where(tile) +
                  " has no memory space; run InferTileMemorySpace before InitMemRef (or give the op producing it "
                  "a target_memory)",
              tile->span);
}

int64_t BytesOf(const VarPtr& tile, const std::string& function) {
  auto type = TileTypeOf(tile);
  auto shape = ir::StaticShape(type->shape);
  if (!shape) {
    throw Error(ErrorKind::kValue,
                "InitMemRef: tile '" + tile->name_hint + "' in function '" + function + "'" + Where(tile) +
                    " has the dynamic shape " + ir::TypeToString(type) +
                    "; an on-chip buffer needs static extents: give the tile a static shape and put the dynamic "
                    "extents in its valid_shape",
                tile->span);
  }
  return ir::StorageBytesOf(*type, *shape);
}

// One buffer: the tiles that share it, in definition order.
struct Buffer {
  std::vector<VarPtr> tiles;
  MemorySpace space = MemorySpace::Vec;
  int64_t bytes = 0;
};

std::vector<Buffer> GroupBuffers(BufferGrouper& grouper, const std::string& function) {
  std::vector<Buffer> buffers;
  std::map<const ir::Var*, size_t> index_of_root;
  for (const auto& tile : grouper.tiles) {
    const ir::Var* root = grouper.groups.Find(tile.get());
    auto [it, inserted] = index_of_root.emplace(root, buffers.size());
    if (inserted) buffers.push_back(Buffer{{}, SpaceOf(tile, function), 0});
    Buffer& buffer = buffers[it->second];
    MemorySpace space = SpaceOf(tile, function);
    if (space != buffer.space) {
      const VarPtr& first = buffer.tiles.front();
      throw Error(ErrorKind::kValue,
                  "InitMemRef: tiles '" + first->name_hint + "' (" + ir::ToString(buffer.space) + ") and '" +
                      tile->name_hint + "' (" + ir::ToString(space) + ") in function '" + function +
                      "' must share one buffer (a loop carry, a branch result, an in-place op or a view) but are in "
                      "different memory spaces; insert a tile.move so that both are in one space",
                  tile->span);
    }
    buffer.tiles.push_back(tile);
    buffer.bytes = std::max(buffer.bytes, BytesOf(tile, function));
  }
  return buffers;
}

// Rebuilds every tile variable with its buffer's MemRef in its type.
class MemRefAttacher : public ir::IRMutator {
 public:
  explicit MemRefAttacher(std::unordered_map<const ir::Var*, ir::MemRefPtr> memrefs) : memrefs_(std::move(memrefs)) {}

  VarPtr VisitVarDef(const VarPtr& var) override {
    auto it = memrefs_.find(var.get());
    if (it == memrefs_.end()) return IRMutator::VisitVarDef(var);
    auto type = std::make_shared<ir::TileType>(*TileTypeOf(var));
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
  std::unordered_map<const ir::Var*, ir::MemRefPtr> memrefs_;
};

// True when every on-chip tile already has a MemRef (the pass ran before).
bool AlreadyHasMemRefs(const std::vector<VarPtr>& tiles, const std::string& function) {
  size_t with = 0;
  const ir::Var* without = nullptr;
  for (const auto& tile : tiles) {
    if (TileTypeOf(tile)->memref) {
      ++with;
    } else if (TileTypeOf(tile)->memory_space != MemorySpace::DDR && !without) {
      without = tile.get();
    }
  }
  if (with == 0) return false;
  if (!without) return true;
  throw Error(ErrorKind::kValue, "InitMemRef: function '" + function +
                                     "' has tiles with MemRefs and tiles without ('" + without->name_hint +
                                     "' has none); InitMemRef assigns all buffers at once, so run it on a function "
                                     "whose tiles have no MemRefs yet",
              without->span);
}

FunctionPtr AttachMemRefs(const FunctionPtr& function) {
  BufferGrouper grouper(function->name);
  grouper.VisitFunction(function);
  if (grouper.tiles.empty() || AlreadyHasMemRefs(grouper.tiles, function->name)) return function;
  grouper.CheckOffsets();

  std::unordered_map<const ir::Var*, ir::MemRefPtr> memrefs;
  std::vector<StmtPtr> allocs;
  std::map<MemorySpace, int> count_per_space;
  for (const Buffer& buffer : GroupBuffers(grouper, function->name)) {
    if (buffer.space == MemorySpace::DDR) continue;  // global memory is not planned here
    const std::string id = LowerName(buffer.space) + "_" + std::to_string(count_per_space[buffer.space]++);
    auto base = ir::Var::Make("base_" + id, ir::PtrType::Make(buffer.space), function->span);
    auto memref = ir::MemRef::Make("mem_" + id, buffer.space, base, ir::Int(0), buffer.bytes, function->span);
    ir::Attrs kwargs;
    kwargs.Set("memory_space", ir::EnumAttr::Of(buffer.space));
    allocs.push_back(ir::AssignStmt::Make(
        base, ops::OpRegistry::Global().Create("tile.alloc", {ir::Int(buffer.bytes)}, kwargs, function->span),
        function->span));
    // A tile that starts inside the buffer (a tile.slice window) gets a MemRef
    // of its own on the same base, at its byte offset.
    std::map<std::string, ir::MemRefPtr> views;
    for (const auto& tile : buffer.tiles) {
      ExprPtr offset = grouper.OffsetOf(tile);
      if (ir::AsConstInt(offset) == 0) {
        memrefs[tile.get()] = memref;
        continue;
      }
      auto& view = views[ops::DimString(offset)];
      if (!view) {
        int64_t footprint = grouper.FootprintOf(tile);
        view = ir::MemRef::Make(memref->name_hint + "_view" + std::to_string(views.size() - 1), buffer.space, base,
                                offset, footprint > 0 ? footprint : BytesOf(tile, function->name), function->span);
      }
      memrefs[tile.get()] = view;
    }
  }
  if (allocs.empty()) return function;

  auto rebuilt = std::make_shared<ir::Function>(*MemRefAttacher(std::move(memrefs)).VisitFunction(function));
  std::vector<StmtPtr> body = std::move(allocs);
  if (auto seq = As<ir::SeqStmts>(rebuilt->body)) {
    body.insert(body.end(), seq->stmts.begin(), seq->stmts.end());
  } else if (rebuilt->body) {
    body.push_back(rebuilt->body);
  }
  rebuilt->body = ir::SeqStmts::Make(std::move(body), rebuilt->body ? rebuilt->body->span : function->span);
  return rebuilt;
}

}  // namespace

ir::ProgramPtr InitMemRefPass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  std::vector<FunctionPtr> functions;
  bool changed = false;
  for (const auto& function : program->functions) {
    functions.push_back(ir::IsCoreKernel(function->func_type) ? AttachMemRefs(function) : function);
    changed |= functions.back() != function;
  }
  if (!changed) return program;
  return ir::Program::Make(program->name, std::move(functions), program->span);
}

}  // namespace pypto::passes
