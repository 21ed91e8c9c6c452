#include "kernel_writer.h"

#include <algorithm>

#include "pypto/backend/backend.h"
#include "pypto/ir/tile_storage.h"
#include "tile_op_emitters.h"

namespace pypto::npu {

using namespace pypto::ir;

namespace {

std::string Hex(int64_t value) {
  std::ostringstream out;
  out << "0x" << std::hex << value;
  return out.str();
}

std::string Join(const std::vector<std::string>& parts, const std::string& sep = ", ") {
  std::string out;
  for (size_t i = 0; i < parts.size(); ++i) out += (i ? sep : "") + parts[i];
  return out;
}

// The statement's position, else its value's.
Span SpanOf(const Span& stmt, const ExprPtr& value) { return stmt.known() || !value ? stmt : value->span; }

// `text` without the parentheses around all of it, for conditions: if (i < 16).
std::string Unparenthesized(const std::string& text) {
  if (text.size() < 2 || text.front() != '(' || text.back() != ')') return text;
  int depth = 0;
  for (size_t i = 0; i + 1 < text.size(); ++i) {
    depth += text[i] == '(' ? 1 : text[i] == ')' ? -1 : 0;
    if (depth == 0) return text;  // the first '(' closes before the end
  }
  return text.substr(1, text.size() - 2);
}

// Strides come from the tensor's descriptor: a view may be strided in any dim.
const char* const kAllDynamicStride = "Stride<DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC, DYNAMIC>";

// The dims of a tensor right-aligned to the ISA's five: dim `axis` of a rank `rank` tensor.
size_t FiveDimIndex(size_t rank, size_t axis) { return 5 - rank + axis; }

}  // namespace

std::vector<ExprPtr> TupleElements(const ExprPtr& e) {
  if (auto tuple = As<MakeTuple>(e)) return tuple->elements;
  return {e};
}

KernelWriter::KernelWriter(const FunctionPtr& function) : function_(function) {}

void KernelWriter::FailAt(const std::string& op, const std::string& message, const Span& span) const {
  std::string where = span.known() ? " (line " + std::to_string(span.begin_line) + ")" : "";
  throw backend::MakeCodegenError(kBackendName, function_->name, op, message + where, span);
}

void KernelWriter::Fail(const OpSite& site, const std::string& message) const { FailAt(site.op(), message, site.span); }

void KernelWriter::MarkLine(const Span& span) {
  int line = std::max(span.begin_line, 0);
  if (line == marked_line_) return;
  Line("PYPTO_LOC(" + std::to_string(line) + ");");
  marked_line_ = line;
}

std::string KernelWriter::Where(const Span& span) const {
  if (!span.known()) return "";
  return "  // " + span.filename + ":" + std::to_string(span.begin_line);
}

void KernelWriter::Line(const std::string& text) {
  body_ << std::string(2 * indent_, ' ') << text << "\n";
  // Code after a brace may run after any other line: the next instruction says its line again.
  if (!text.empty() && (text.back() == '{' || text.front() == '}')) marked_line_ = -1;
}

void KernelWriter::Instruction(const OpSite& site, const std::string& name, const std::vector<std::string>& operands) {
  MarkLine(site.span);
  Line(name + "(" + Join(operands) + ");" + Where(site.span));
}

std::string KernelWriter::ElementOffset(const ExprPtr& tile, const ExprPtr& row, const ExprPtr& col,
                                        const std::string& op, const Span& span) {
  auto type = As<TileType>(tile->type);
  auto shape = type ? StaticShape(type->shape) : std::nullopt;
  if (!shape || shape->empty() || shape->size() > 2) FailAt(op, "the tile must be 1-D or 2-D with a static shape", span);
  if (type->slayout && *type->slayout != TileLayout::NoneBox) {
    FailAt(op, "element access reads a tile in its plain row- or column-major order, and this tile is boxed "
               "(fractal); move it to a Vec tile first", span);
  }
  int64_t rows = shape->size() == 1 ? 1 : (*shape)[0];
  int64_t cols = shape->back();
  std::string r = ScalarAs(row, DataType::INT32), c = ScalarAs(col, DataType::INT32);
  if (type->blayout && *type->blayout == TileLayout::ColMajor && cols != 1) {
    return c + " * " + std::to_string(rows) + " + " + r;
  }
  return r + " * " + std::to_string(cols) + " + " + c;
}

std::string KernelWriter::CxxScalarType(DataType dtype, const Span& span) const {
  auto type = ScalarCxxType(dtype);
  if (!type) FailAt("", std::string("a scalar of dtype ") + dtype.name() + " has no C++ type in a kernel", span);
  return *type;
}

// ---------------------------------------------------------------------------
// The kernel source
// ---------------------------------------------------------------------------

std::string KernelWriter::Write() {
  // Claimed first: a kernel named like a C++ keyword ("double") gets a valid body name.
  const std::string body_name = names_.Fresh(function_->name);
  DeclareParams();
  EmitBlock(function_->body);

  // The entry unpacks the slots (pypto/runtime/kernel_args.h): tensors
  // first, then scalars, each in parameter order; the body takes them in the
  // IR's order.
  std::ostringstream unpack;
  std::map<const Var*, std::string> passed;
  int slot = 0;
  for (const auto& p : function_->params) {
    auto it = tensors_.find(p.get());
    if (it == tensors_.end()) continue;
    const std::string& desc = it->second.desc;
    unpack << "  __gm__ PyptoRtTensorDesc* " << desc << " = reinterpret_cast<__gm__ PyptoRtTensorDesc*>(args["
           << slot++ << "]);\n";
    passed[p.get()] = desc;
  }
  for (const auto& p : function_->params) {
    if (tensors_.count(p.get()) != 0) continue;
    DataType dtype = *ScalarDType(p->type);
    const std::string& name = scalars_.at(p.get());
    std::string bits = names_.Fresh(name + "_conv");
    unpack << "  union { uint64_t u64; " << *ElementType(dtype) << " val; } " << bits << ";\n"
           << "  " << bits << ".u64 = static_cast<uint64_t>(args[" << slot++ << "]);\n";
    passed[p.get()] = ComputeDType(dtype) != dtype ? "static_cast<float>(" + bits + ".val)" : bits + ".val";
  }
  std::vector<std::string> params;
  std::vector<std::string> call_args;
  for (const auto& p : function_->params) {
    if (auto it = tensors_.find(p.get()); it != tensors_.end()) {
      params.push_back("__gm__ PyptoRtTensorDesc* " + it->second.desc);
    } else {
      params.push_back(CxxScalarType(*ScalarDType(p->type), p->span) + " " + scalars_.at(p.get()));
    }
    call_args.push_back(passed.at(p.get()));
  }
  if (uses_args_) {
    params.push_back("__gm__ int64_t* args");
    call_args.push_back("args");
  }

  const Span& span = function_->span;
  std::string file = span.filename.empty() ? "<unknown>" : span.filename;
  std::ostringstream out;
  out << "// Generated by PyPTO from " << file << ":" << span.begin_line << " (function " << function_->name << ")\n"
      << "#include <stdint.h>\n"
      << "#include <pto/pto-inst.hpp>\n"
      << "#include \"pypto/runtime/kernel_args.h\"\n"
      << (uses_comm_ ? "#include \"pypto/isa/comm.h\"\n" : "") << "\n"
      << "// The user's source line of the instructions that follow, for the simulator's fault messages.\n"
      << "#ifndef PYPTO_LOC\n#define PYPTO_LOC(line)\n#endif\n\n"
      << "using namespace pto;\n\n";
  out << "static __aicore__ void " << body_name << "(" << Join(params) << ") {\n"
      << body_.str() << "}\n\n"
      << "extern \"C\" __aicore__ void kernel_entry(__gm__ int64_t* args) {\n";
  if (slot == 0 && !uses_args_) out << "  (void)args;\n";
  out << unpack.str() << "  " << body_name << "(" << Join(call_args) << ");\n"
      << "}\n";
  return out.str();
}

void KernelWriter::DeclareParams() {
  for (const auto& p : function_->params) {
    if (auto tensor = As<TensorType>(p->type)) {
      auto element = ElementType(tensor->dtype);
      if (!element) FailAt("", std::string("tensor '") + p->name_hint + "' has dtype " + tensor->dtype.name() +
                                   ", which the ISA cannot load", p->span);
      if (tensor->rank() < 1 || tensor->rank() > 5) {
        FailAt("", "tensor '" + p->name_hint + "' has rank " + std::to_string(tensor->rank()) +
                       "; global tensors have 1 to 5 dims", p->span);
      }
      TensorInfo info{names_.Fresh(p->name_hint), "", tensor};
      info.desc = names_.Fresh(info.name + "_tensor");
      tensors_[p.get()] = info;
    } else if (ScalarDType(p->type)) {
      scalars_[p.get()] = names_.Fresh(p->name_hint);
    } else {
      FailAt("", "parameter '" + p->name_hint + "' has type " + TypeToString(p->type) +
                     "; kernel parameters are tensors and scalars", p->span);
    }
  }
  for (const auto& p : function_->params) {
    auto it = tensors_.find(p.get());
    if (it == tensors_.end()) continue;
    const TensorInfo& t = it->second;
    // Right-aligned to the ISA's five dims; the descriptor holds the view's shape and strides.
    size_t rank = t.type->rank();
    std::vector<std::string> dims(5, "1"), dim_values(5, "1"), strides(5, "0");
    for (size_t axis = 0; axis < rank; ++axis) {
      size_t k = FiveDimIndex(rank, axis);
      auto v = AsConstInt(t.type->shape[axis]);
      dims[k] = v ? std::to_string(*v) : "DYNAMIC";
      dim_values[k] = v ? std::to_string(*v) : t.desc + "->shape[" + std::to_string(axis) + "]";
      strides[k] = t.desc + "->strides[" + std::to_string(axis) + "]";
    }
    std::string element = *ElementType(t.type->dtype);
    std::string type = names_.Fresh(t.name + "_global");
    Line("using " + type + " = GlobalTensor<" + element + ", Shape<" + Join(dims) + ">, " + kAllDynamicStride + ">;");
    Line(type + " " + t.name + "(reinterpret_cast<__gm__ " + element + "*>(" + t.desc + "->data), " + type +
         "::Shape(" + Join(dim_values) + "), " + type + "::Stride(" + Join(strides) + "));");
    // A dynamic dim named by a variable (pl.dynamic) reads the descriptor.
    for (size_t axis = 0; axis < t.type->rank(); ++axis) {
      auto var = As<Var>(t.type->shape[axis]);
      if (!var || scalars_.count(var.get()) != 0) continue;
      std::string name = names_.Fresh(var->name_hint);
      scalars_[var.get()] = name;
      Line("const int64_t " + name + " = " + TensorDim(t, axis) + ";");
    }
  }
}

// ---------------------------------------------------------------------------
// Statements
// ---------------------------------------------------------------------------

void KernelWriter::EmitBlock(const StmtPtr& body) {
  if (!body) return;
  std::vector<StmtPtr> stmts = Flatten(body);
  for (size_t i = 0; i < stmts.size(); ++i) {
    // The function's closing `return` needs no code.
    bool last_return = indent_ == 1 && i + 1 == stmts.size() && IsA<ReturnStmt>(stmts[i]);
    if (!last_return) EmitStmt(stmts[i]);
  }
}

void KernelWriter::EmitStmt(const StmtPtr& stmt) {
  switch (stmt->kind()) {
    case NodeKind::kAssignStmt: return EmitAssign(*As<AssignStmt>(stmt));
    case NodeKind::kEvalStmt: return EmitEval(*As<EvalStmt>(stmt));
    case NodeKind::kSeqStmts: return EmitBlock(stmt);
    case NodeKind::kForStmt: return EmitFor(*As<ForStmt>(stmt));
    case NodeKind::kWhileStmt: return EmitWhile(*As<WhileStmt>(stmt));
    case NodeKind::kIfStmt: return EmitIf(*As<IfStmt>(stmt));
    case NodeKind::kYieldStmt: return EmitYield(*As<YieldStmt>(stmt));
    case NodeKind::kReturnStmt: return Line("return;");
    case NodeKind::kBreakStmt: return Line("break;");
    case NodeKind::kContinueStmt: return Line("continue;");
    case NodeKind::kScopeStmt: return EmitBlock(As<ScopeStmt>(stmt)->body);
    default:
      FailAt("", std::string("statement ") + stmt->type_name() + " has no kernel translation", stmt->span);
  }
}

void KernelWriter::EmitAssign(const AssignStmt& stmt) {
  Span span = SpanOf(stmt.span, stmt.value);
  if (auto call = As<Call>(stmt.value); call && !ScalarDType(stmt.var->type)) {
    return EmitCall(OpSite{*call, stmt.var, span});
  }
  if (auto dtype = ScalarDType(stmt.var->type)) {
    std::string value = ScalarAs(stmt.value, *dtype);
    std::string name = names_.Fresh(stmt.var->name_hint);
    Line("const " + CxxScalarType(*dtype, span) + " " + name + " = " + value + ";" + Where(span));
    scalars_[stmt.var.get()] = name;
    return;
  }
  if (auto var = As<Var>(stmt.value)) {
    // A plain copy of a tile or tensor value is the same storage under a new name.
    if (auto it = tiles_.find(var.get()); it != tiles_.end()) {
      tiles_[stmt.var.get()] = it->second;
      return;
    }
    if (auto it = tensors_.find(var.get()); it != tensors_.end()) {
      tensors_[stmt.var.get()] = it->second;
      return;
    }
  }
  FailAt("", "'" + stmt.var->name_hint + " = ...' of type " + TypeToString(stmt.var->type) +
                 " has no kernel translation (expected an op call; run FlattenCallExpr)",
         span);
}

void KernelWriter::EmitEval(const EvalStmt& stmt) {
  auto call = As<Call>(stmt.expr);
  if (!call) FailAt("", "an expression statement must be an op call", stmt.span);
  EmitCall(OpSite{*call, nullptr, SpanOf(stmt.span, stmt.expr)});
}

void KernelWriter::EmitCall(const OpSite& site) {
  if (site.call.is_function_call()) {
    Fail(site, "a kernel cannot call function '" + site.call.callee_name() +
                   "'; inline it (InlineFunctions) or call it from the orchestration");
  }
  const OpEmitter* emit = FindOpEmitter(site.op());
  if (!emit) {
    Fail(site, "the npu backend has no PTO-ISA translation of this op; express it with the tile ops listed in "
               "plugins/backends/npu/README.md");
  }
  (*emit)(*this, site);
}

void KernelWriter::DeclareCarried(const VarPtr& var, const ExprPtr& init, const Span& span) {
  if (IsA<TensorType>(var->type)) {
    // A tensor carried through a loop or branch is the one tensor: stores write it in place.
    if (init) tensors_[var.get()] = TensorOf(init, "", span);
    return;
  }
  if (IsA<TileType>(var->type)) {
    DeclareTile(var, span, std::nullopt, "", "");
    if (init) CarryInto(var, init, span);
    return;
  }
  auto dtype = ScalarDType(var->type);
  if (!dtype) FailAt("", "'" + var->name_hint + "' of type " + TypeToString(var->type) + " cannot be carried", span);
  std::string name = names_.Fresh(var->name_hint);
  scalars_[var.get()] = name;
  Line(CxxScalarType(*dtype, span) + " " + name + (init ? " = " + ScalarAs(init, *dtype) : "{}") + ";");
}

void KernelWriter::CarryInto(const VarPtr& target, const ExprPtr& value, const Span& span) {
  if (IsA<TensorType>(target->type)) {
    const TensorInfo& from = TensorOf(value, "", span);
    auto it = tensors_.find(target.get());
    if (it == tensors_.end()) {
      tensors_[target.get()] = from;
    } else if (it->second.name != from.name) {
      FailAt("", "'" + target->name_hint + "' takes two different tensors; a kernel carries one tensor per value",
             span);
    }
    return;
  }
  if (IsA<TileType>(target->type)) {
    const TileInfo& to = tiles_.at(target.get());
    const TileInfo& from = TileOf(value, "", span);
    if (to.space == from.space && to.address == from.address) {
      // Same storage: only a dynamic valid region has to follow.
      if (to.dynamic_valid) Line(to.name + ".SetValidShape(" + from.name + ".GetValidRow(), " + from.name +
                                 ".GetValidCol());");
      return;
    }
    MarkLine(span);
    Line("TMOV(" + to.name + ", " + from.name + ");" + Where(span));
    return;
  }
  Line(scalars_.at(target.get()) + " = " + ScalarAs(value, *ScalarDType(target->type)) + ";");
}

// The body of a loop whose header line is written: its yields assign the
// carried variables, and the loop's results are the carried values after it.
void KernelWriter::EmitLoopBody(const StmtPtr& body, const std::vector<ir::IterArgPtr>& iter_args,
                                const std::vector<VarPtr>& return_vars, const Span& span) {
  ++indent_;
  yield_targets_.push_back({iter_args.begin(), iter_args.end()});
  EmitBlock(body);
  yield_targets_.pop_back();
  --indent_;
  Line("}");
  for (size_t i = 0; i < return_vars.size(); ++i) DeclareCarried(return_vars[i], iter_args[i], span);
}

void KernelWriter::EmitFor(const ForStmt& stmt) {
  for (const auto& arg : stmt.iter_args) DeclareCarried(arg, arg->init_value, stmt.span);
  auto step = AsConstInt(stmt.step);
  if (step && *step == 0) FailAt("", "pl.range with step 0 never ends", stmt.span);
  std::string var = names_.Fresh(stmt.loop_var->name_hint);
  scalars_[stmt.loop_var.get()] = var;
  DataType dtype = ScalarDType(stmt.loop_var->type).value_or(DataType::INDEX);
  std::string type = CxxScalarType(dtype, stmt.span);
  std::string cmp = step && *step < 0 ? " > " : " < ";
  Line("for (" + type + " " + var + " = " + ScalarAs(stmt.start, dtype) + "; " + var + cmp +
       ScalarAs(stmt.stop, dtype) + "; " + var + " += " + ScalarAs(stmt.step, dtype) + ") {" + Where(stmt.span));
  EmitLoopBody(stmt.body, stmt.iter_args, stmt.return_vars, stmt.span);
}

void KernelWriter::EmitWhile(const WhileStmt& stmt) {
  for (const auto& arg : stmt.iter_args) DeclareCarried(arg, arg->init_value, stmt.span);
  Line("while (" + Unparenthesized(ScalarAs(stmt.condition, DataType::BOOL)) + ") {" + Where(stmt.span));
  EmitLoopBody(stmt.body, stmt.iter_args, stmt.return_vars, stmt.span);
}

void KernelWriter::EmitIf(const IfStmt& stmt) {
  for (const auto& var : stmt.return_vars) {
    // A tensor phi is the tensor its branches yield; it is bound at the first yield.
    if (!IsA<TensorType>(var->type)) DeclareCarried(var, nullptr, stmt.span);
  }
  Line("if (" + Unparenthesized(ScalarAs(stmt.condition, DataType::BOOL)) + ") {" + Where(stmt.span));
  ++indent_;
  yield_targets_.push_back(stmt.return_vars);
  EmitBlock(stmt.then_body);
  --indent_;
  if (stmt.else_body) {
    Line("} else {");
    ++indent_;
    EmitBlock(stmt.else_body);
    --indent_;
  }
  yield_targets_.pop_back();
  Line("}");
}

void KernelWriter::EmitYield(const YieldStmt& stmt) {
  if (yield_targets_.empty()) FailAt("", "pl.yield_ outside a loop or branch", stmt.span);
  const std::vector<VarPtr>& targets = yield_targets_.back();
  if (targets.size() != stmt.values.size()) {
    FailAt("", "pl.yield_ of " + std::to_string(stmt.values.size()) + " values for " +
                   std::to_string(targets.size()) + " loop or branch results", stmt.span);
  }
  for (size_t i = 0; i < targets.size(); ++i) CarryInto(targets[i], stmt.values[i], stmt.span);
}

// ---------------------------------------------------------------------------
// Tiles and tensors
// ---------------------------------------------------------------------------

std::string KernelWriter::DeclareTile(const VarPtr& var, const Span& span, std::optional<PadValue> pad,
                                      const std::string& note, const std::string& op) {
  auto type = As<TileType>(var->type);
  if (!type) FailAt(op, "'" + var->name_hint + "' is a " + TypeToString(var->type) + ", not a tile", span);
  return DeclareTileAs(var, type, span, pad, note, op);
}

std::string KernelWriter::DeclareTileAs(const VarPtr& var, const Ref<TileType>& type, const Span& span,
                                        std::optional<PadValue> pad, const std::string& note, const std::string& op) {
  TileInfo info = DeclareStorage(var->name_hint, *type, span, pad, note, op);
  tiles_[var.get()] = info;
  return info.name;
}

std::string KernelWriter::DeclareAlias(const std::string& hint, const TileType& type, const Span& span,
                                       const std::string& note, const std::string& op) {
  return DeclareStorage(hint, type, span, std::nullopt, note, op).name;
}

KernelWriter::TileInfo KernelWriter::DeclareStorage(const std::string& hint, const TileType& type, const Span& span,
                                                    std::optional<PadValue> pad, const std::string& note,
                                                    const std::string& op) {
  TileSpellingResult spelled = SpellTile(type, pad);
  if (!spelled.spelling) FailAt(op, "tile '" + hint + "': " + spelled.problem, span);
  const MemRefPtr& memref = type.memref;
  auto address = memref ? AsConstInt(memref->byte_offset) : std::nullopt;
  if (!address) {
    FailAt(op, "tile '" + hint + "' has no planned address; the npu backend needs tiles with memory "
                   "spaces and allocated addresses (run InitMemRef, MemoryReuse and AllocateMemoryAddr)", span);
  }
  const TileSpelling& s = *spelled.spelling;
  std::string name = names_.Fresh(hint);
  std::string ctor;
  if (s.dynamic_valid) {
    ctor = "(" + ScalarAs(s.valid_rows, DataType::INT32) + ", " + ScalarAs(s.valid_cols, DataType::INT32) + ")";
  }
  Line(s.type + " " + name + ctor + ";");
  MarkLine(span);
  Line("TASSIGN(" + name + ", " + Hex(*address) + ");" + (note.empty() ? "" : "  // " + note));
  return TileInfo{name, memref->memory_space, *address, s.dynamic_valid};
}

std::string KernelWriter::DeclareResult(const OpSite& site, std::optional<PadValue> pad, const std::string& note) {
  if (!site.result) Fail(site, "the op's result tile is not assigned to a variable");
  return DeclareTile(site.result, site.span, pad, note, site.op());
}

const KernelWriter::TileInfo& KernelWriter::TileOf(const ExprPtr& e, const std::string& op, const Span& span) const {
  auto var = As<Var>(e);
  auto it = var ? tiles_.find(var.get()) : tiles_.end();
  if (it == tiles_.end()) {
    FailAt(op, "operand " + (var ? "'" + var->name_hint + "'" : std::string("expression")) +
                   " is not a tile defined in this kernel (nested calls must be flattened: FlattenCallExpr)", span);
  }
  return it->second;
}

std::string KernelWriter::TileArg(const OpSite& site, size_t arg) {
  if (arg >= site.call.args.size()) Fail(site, "missing tile argument " + std::to_string(arg));
  return TileOf(site.call.args[arg], site.op(), site.span).name;
}

const KernelWriter::TensorInfo& KernelWriter::TensorOf(const ExprPtr& e, const std::string& op,
                                                       const Span& span) const {
  auto var = As<Var>(e);
  auto it = var ? tensors_.find(var.get()) : tensors_.end();
  if (it == tensors_.end()) {
    FailAt(op, "operand " + (var ? "'" + var->name_hint + "'" : std::string("expression")) +
                   " is not a tensor parameter of the kernel (kernels read and write the tensors they are passed)",
           span);
  }
  return it->second;
}

std::string KernelWriter::TensorDim(const TensorInfo& tensor, size_t axis) const {
  if (auto v = AsConstInt(tensor.type->shape[axis])) return std::to_string(*v);
  return tensor.name + ".GetShape(" + std::to_string(FiveDimIndex(tensor.type->rank(), axis)) + ")";
}

// A GlobalTensor over the window at `offsets` with the tile's `extents`, cut
// at the tensor's end by pto::WindowExtent (kernel_abi.h), which reports a
// window leaving the tensor as a fault of `instruction`; with the tensor's strides.
std::string KernelWriter::Window(const OpSite& site, const char* instruction, const TensorInfo& tensor,
                                 const ExprPtr& offsets, const std::vector<int64_t>& extents,
                                 const std::string& name_hint, const std::vector<ExprPtr>& valid) {
  size_t rank = tensor.type->rank();
  std::vector<ExprPtr> origin = TupleElements(offsets);
  if (origin.size() != rank || extents.size() != rank) {
    Fail(site, "the window has " + std::to_string(origin.size()) + " offsets and " + std::to_string(extents.size()) +
                   " extents for a rank " + std::to_string(rank) + " tensor");
  }
  std::string pointer = tensor.name + ".data()";
  std::vector<std::string> shape_dims(5, "1"), dyn(5, "1");
  bool dynamic = false;
  for (size_t i = 0; i < rank; ++i) {
    auto off = AsConstInt(origin[i]);
    auto dim = AsConstInt(tensor.type->shape[i]);
    std::string offset = ScalarAs(origin[i], DataType::INDEX);
    size_t k = FiveDimIndex(rank, i);
    if (!off || *off != 0) pointer += " + " + offset + " * " + tensor.name + ".GetStride(" + std::to_string(k) + ")";
    // The instruction moves the tile's valid region: a smaller valid extent
    // (a partial tile at the tensor's end) is the window's extent.
    std::optional<int64_t> want = extents[i];
    std::string want_text = std::to_string(extents[i]);
    if (i < valid.size()) {
      want = AsConstInt(valid[i]);
      want_text = ScalarAs(valid[i], DataType::INDEX);
    }
    std::string extent;
    if (off && dim && want) {
      extent = std::to_string(*off < 0 || *off >= *dim ? 0 : std::min(*dim - *off, *want));
      shape_dims[k] = extent;
    } else {
      dynamic = true;
      extent = "pypto::WindowExtent(" + TensorDim(tensor, i) + ", " + offset + ", " + want_text + ", \"" +
               instruction + "\")";
      shape_dims[k] = "DYNAMIC";
    }
    dyn[k] = extent;
  }
  std::string element = *ElementType(tensor.type->dtype);
  std::string name = names_.Fresh(name_hint);
  std::vector<std::string> strides;
  for (size_t k = 0; k < 5; ++k) strides.push_back(tensor.name + ".GetStride(" + std::to_string(k) + ")");
  // A window that may leave its tensor is reported at the instruction's line.
  if (dynamic) MarkLine(site.span);
  std::string type = "GlobalTensor<" + element + ", Shape<" + Join(shape_dims) + ">, " + kAllDynamicStride + ">";
  Line(type + " " + name + "(" + pointer + ", Shape<" + Join(shape_dims) + ">(" + (dynamic ? Join(dyn) : "") + "), " +
       kAllDynamicStride + "(" + Join(strides) + "));");
  return name;
}

void KernelWriter::EmitLoad(const OpSite& site) {
  const TensorInfo& tensor = TensorOf(site.call.args[0], site.op(), site.span);
  auto extents = StaticShape(TupleElements(site.call.args[2]));
  if (!extents) Fail(site, "the load's shapes must be constants (the tile's static extents)");
  std::string tile = DeclareResult(site);
  std::vector<ExprPtr> valid = site.call.args.size() > 3 ? TupleElements(site.call.args[3]) : std::vector<ExprPtr>{};
  std::string window = Window(site, "TLOAD", tensor, site.call.args[1], *extents, tile + "_src", valid);
  Instruction(site, "TLOAD", {tile, window});
}

void KernelWriter::EmitStore(const OpSite& site) {
  if (site.call.kwargs.Get<int64_t>("atomic").value_or(0) != 0) {
    Fail(site, "atomic=1 (atomic add) has no PTO-ISA store on the simulator; accumulate in a tile and store once");
  }
  const TensorInfo& tensor = TensorOf(site.call.args[2], site.op(), site.span);
  auto tile_type = As<TileType>(site.call.args[0]->type);
  auto extents = tile_type ? StaticShape(tile_type->shape) : std::nullopt;
  if (!extents || extents->size() != tensor.type->rank()) {
    Fail(site, "the stored tile must have static extents and the tensor's rank " +
                   std::to_string(tensor.type->rank()));
  }
  std::string tile = TileArg(site, 0);
  std::string window =
      Window(site, "TSTORE", tensor, site.call.args[1], *extents, tensor.name + "_dst", tile_type->valid_shape);
  Instruction(site, "TSTORE", {window, tile});
  // The result is the tensor, written in place.
  if (site.result) tensors_[site.result.get()] = tensor;
}

void KernelWriter::EmitView(const OpSite& site, size_t arg) {
  std::string source = TileArg(site, arg);
  RequireSameStorage(site, arg);
  DeclareResult(site, std::nullopt, "view of " + source);
}

// A reshape is a view of the same bytes only where both shapes lay the
// elements out one after another; rows padded to whole 32-byte lines
// (ir::StorageShape) put gaps between them.
void KernelWriter::RequireSameStorage(const OpSite& site, size_t arg) {
  auto source = As<TileType>(site.call.args[arg]->type);
  auto view = As<TileType>(site.call.type);
  auto source_shape = source ? StaticShape(source->shape) : std::nullopt;
  auto view_shape = view ? StaticShape(view->shape) : std::nullopt;
  if (!source_shape || !view_shape || *source_shape == *view_shape) return;
  auto gapless = [](const TileType& type, const std::vector<int64_t>& shape) {
    bool vector = shape.size() < 2 || shape[0] == 1 || shape[1] == 1;
    return vector || ir::StorageShape(type, shape) == shape;
  };
  if (gapless(*source, *source_shape) && gapless(*view, *view_shape)) return;
  const TileType& padded = gapless(*source, *source_shape) ? *view : *source;
  auto shape = StaticShape(padded.shape);
  Fail(site, "the tile " + TypeToString(std::make_shared<TileType>(padded)) + " is stored with its rows padded to " +
                 std::to_string(ir::StorageShape(padded, *shape).back()) +
                 " elements (whole 32-byte lines, as the ISA's tiles are), so the reshape is not a view of the same "
                 "bytes; reshape tiles whose rows are a multiple of 32 bytes, or copy through a tensor");
}

void KernelWriter::EmitSlice(const OpSite& site) {
  std::string source = TileArg(site, 0);
  if (!site.result) Fail(site, "the op's result tile is not assigned to a variable");
  auto source_type = As<TileType>(site.call.args[0]->type);
  auto view_type = As<TileType>(site.result->type);
  auto source_shape = StaticShape(source_type->shape);
  auto view_shape = view_type ? StaticShape(view_type->shape) : std::nullopt;
  bool row_major = !(source_type->blayout && *source_type->blayout == TileLayout::ColMajor);
  if (source_type->rank() != 2 || !source_shape || !view_shape || !row_major ||
      (*view_shape)[1] == (*source_shape)[1]) {
    DeclareResult(site, std::nullopt, "view of " + source);
    return;
  }
  // Fewer columns than the source: the window's rows are the source's rows,
  // so it is a tile of the source's row length, valid over the window.
  auto address = view_type->memref ? AsConstInt(view_type->memref->byte_offset) : std::nullopt;
  if (address && *address % 32 != 0) {
    Fail(site, "the window starts at byte " + std::to_string(*address) + " of its memory space, not a multiple of 32 (the ISA's tile alignment); slice at an offset whose start is 32-byte "
                   "aligned, or copy the window with tile.extract");
  }
  auto window = std::make_shared<TileType>(*view_type);
  window->valid_shape = view_type->valid_shape.empty() ? view_type->shape : view_type->valid_shape;
  window->shape = {Int((*view_shape)[0]), Int((*source_shape)[1])};
  DeclareTileAs(site.result, window, site.span, std::nullopt, "window of " + source, site.op());
}

void KernelWriter::EmitAssemble(const OpSite& site) {
  const TileInfo& target = TileOf(site.call.args[0], site.op(), site.span);
  std::string source = TileArg(site, 1);
  auto target_type = As<TileType>(site.call.args[0]->type);
  auto source_type = As<TileType>(site.call.args[1]->type);
  auto target_shape = StaticShape(target_type->shape);
  auto source_shape = StaticShape(source_type->shape);
  auto origin = StaticShape(TupleElements(site.call.args[2]));
  if (!origin || target_type->rank() != 2 || !target_shape || !source_shape) {
    Fail(site, "tile.assemble needs 2-D tiles of static shape and a constant offset");
  }
  if (target.space != MemorySpace::Vec || (target_type->blayout && *target_type->blayout == TileLayout::ColMajor)) {
    Fail(site, "tile.assemble writes row-major Vec tiles only; move the tiles to MemorySpace.Vec first");
  }
  // The window [r0, r0 + rows) x [c0, c0 + cols) of a row-major target is a
  // tile of the target's row length starting at element (r0, c0), with the
  // source's extents as its valid region.
  int64_t r0 = (*origin)[0], c0 = (*origin)[1];
  int64_t row_len = ir::StorageShape(*target_type, *target_shape)[1];
  int64_t rows = (*source_shape)[0];
  int64_t bytes = (r0 * row_len + c0) * target_type->dtype.get_byte();
  if (bytes % 32 != 0) {
    Fail(site, "the window at [" + std::to_string(r0) + ", " + std::to_string(c0) + "] starts at byte " +
                   std::to_string(bytes) + " of the target, not a multiple of 32 (the ISA's tile alignment); "
                   "assemble at an offset whose start is 32-byte aligned");
  }
  std::string element = *ElementType(target_type->dtype);
  std::string window = names_.Fresh(target.name + "_window");
  std::string vr =
      ScalarAs(source_type->valid_shape.empty() ? Int(rows) : source_type->valid_shape[0], DataType::INT32);
  std::string vc = ScalarAs(source_type->valid_shape.empty() ? Int((*source_shape)[1]) : source_type->valid_shape[1],
                            DataType::INT32);
  Line("Tile<TileType::Vec, " + element + ", " + std::to_string(rows) + ", " + std::to_string(row_len) +
       ", BLayout::RowMajor, DYNAMIC, DYNAMIC> " + window + "(" + vr + ", " + vc + ");");
  MarkLine(site.span);
  Line("TASSIGN(" + window + ", " + Hex(target.address + bytes) + ");  // [" + std::to_string(r0) + ", " +
       std::to_string(c0) + "] of " + target.name);
  Instruction(site, "TMOV", {window, source});
  if (site.result) tiles_[site.result.get()] = target;
}

// ---------------------------------------------------------------------------
// Scalar expressions
// ---------------------------------------------------------------------------

std::string KernelWriter::ScalarAs(const ExprPtr& e, DataType dtype) {
  if (auto c = As<ConstInt>(e)) return IntLiteral(c->value, dtype);
  if (auto c = As<ConstFloat>(e)) return FloatLiteral(c->value, dtype);
  if (auto c = As<ConstBool>(e)) return dtype.is_bool() ? (c->value ? "true" : "false") : (c->value ? "1" : "0");
  std::string text = Scalar(e);
  auto own = ScalarDType(e->type);
  if (own && ComputeDType(*own) == ComputeDType(dtype)) return text;
  if (own && own->is_index_like() && dtype.is_index_like()) return text;
  return "static_cast<" + CxxScalarType(dtype, e->span) + ">(" + text + ")";
}

std::string KernelWriter::Scalar(const ExprPtr& e) {
  switch (e->kind()) {
    case NodeKind::kVar:
    case NodeKind::kIterArg: {
      auto it = scalars_.find(As<Var>(e).get());
      if (it == scalars_.end()) {
        FailAt("", "scalar '" + As<Var>(e)->name_hint + "' is not defined in this kernel", e->span);
      }
      return it->second;
    }
    case NodeKind::kConstInt: return IntLiteral(As<ConstInt>(e)->value, As<ConstInt>(e)->dtype());
    case NodeKind::kConstFloat: return FloatLiteral(As<ConstFloat>(e)->value, As<ConstFloat>(e)->dtype());
    case NodeKind::kConstBool: return As<ConstBool>(e)->value ? "true" : "false";
    case NodeKind::kBinaryExpr: return Binary(*As<BinaryExpr>(e));
    case NodeKind::kUnaryExpr: return Unary(*As<UnaryExpr>(e));
    case NodeKind::kCall: return ScalarCall(*As<Call>(e));
    default: FailAt("", std::string(e->type_name()) + " is not a scalar expression a kernel can compute", e->span);
  }
}

std::string KernelWriter::Binary(const BinaryExpr& e) {
  DataType result = e.dtype();
  // Comparisons compare in the operands' promoted dtype; arithmetic computes in the result's.
  DataType operand = IsComparison(e.op) ? PromoteTypes(*ScalarDType(e.lhs->type), *ScalarDType(e.rhs->type)) : result;
  if (e.op == BinaryOp::And || e.op == BinaryOp::Or || e.op == BinaryOp::Xor) operand = DataType::BOOL;
  std::string a = ScalarAs(e.lhs, operand);
  std::string b = ScalarAs(e.rhs, operand);
  bool is_float = operand.is_float();
  switch (e.op) {
    case BinaryOp::Add: return "(" + a + " + " + b + ")";
    case BinaryOp::Sub: return "(" + a + " - " + b + ")";
    case BinaryOp::Mul: return "(" + a + " * " + b + ")";
    case BinaryOp::FloatDiv: return "(" + a + " / " + b + ")";
    case BinaryOp::FloorDiv:
      if (is_float) return "__builtin_floor(" + a + " / " + b + ")";
      // Python's floor division: C++ truncates, so step down when the signs differ and it is inexact.
      return "(" + a + " / " + b + " - ((" + a + " % " + b + " != 0) && ((" + a + " < 0) != (" + b + " < 0))))";
    case BinaryOp::FloorMod:
      if (is_float) return "(" + a + " - __builtin_floor(" + a + " / " + b + ") * " + b + ")";
      // Python's modulo takes the divisor's sign.
      return "(((" + a + " % " + b + ") + " + b + ") % " + b + ")";
    case BinaryOp::Min: return "(" + a + " < " + b + " ? " + a + " : " + b + ")";
    case BinaryOp::Max: return "(" + a + " > " + b + " ? " + a + " : " + b + ")";
    case BinaryOp::Pow:
      if (is_float) return "__builtin_pow(" + a + ", " + b + ")";
      FailAt("", "integer ** has no kernel translation; compute the power in the orchestration and pass it in",
             e.span);
    case BinaryOp::Eq: return "(" + a + " == " + b + ")";
    case BinaryOp::Ne: return "(" + a + " != " + b + ")";
    case BinaryOp::Lt: return "(" + a + " < " + b + ")";
    case BinaryOp::Le: return "(" + a + " <= " + b + ")";
    case BinaryOp::Gt: return "(" + a + " > " + b + ")";
    case BinaryOp::Ge: return "(" + a + " >= " + b + ")";
    case BinaryOp::And: return "(" + a + " && " + b + ")";
    case BinaryOp::Or: return "(" + a + " || " + b + ")";
    case BinaryOp::Xor: return "(" + a + " != " + b + ")";
    case BinaryOp::BitAnd: return "(" + a + " & " + b + ")";
    case BinaryOp::BitOr: return "(" + a + " | " + b + ")";
    case BinaryOp::BitXor: return "(" + a + " ^ " + b + ")";
    case BinaryOp::BitShiftLeft: return "(" + a + " << " + b + ")";
    case BinaryOp::BitShiftRight: return "(" + a + " >> " + b + ")";
  }
  FailAt("", std::string("scalar operator ") + BinaryOpName(e.op) + " has no kernel translation", e.span);
}

std::string KernelWriter::Unary(const UnaryExpr& e) {
  DataType result = e.dtype();
  switch (e.op) {
    case UnaryOp::Cast: return ScalarAs(e.operand, result);
    case UnaryOp::Neg: return "(-" + ScalarAs(e.operand, result) + ")";
    case UnaryOp::Not: return "(!" + ScalarAs(e.operand, DataType::BOOL) + ")";
    case UnaryOp::BitNot: return "(~" + ScalarAs(e.operand, result) + ")";
    case UnaryOp::Abs: {
      std::string x = ScalarAs(e.operand, result);
      if (result.is_float()) return "__builtin_fabs(" + x + ")";
      return "(" + x + " < 0 ? -" + x + " : " + x + ")";
    }
  }
  FailAt("", std::string("scalar operator ") + UnaryOpName(e.op) + " has no kernel translation", e.span);
}

std::string KernelWriter::ScalarCall(const Call& call) {
  const std::string& op = call.op->name;
  if (op == "tile.get_block_idx" || op == "tile.get_block_num" || op == "tile.get_subblock_idx") {
    uses_args_ = true;
    std::string read = op == "tile.get_block_idx" ? "get_block_idx" : op == "tile.get_block_num" ? "get_block_num"
                                                                                                   : "get_sub_block_id";
    return "static_cast<int64_t>(" + read + "(args))";
  }
  if (op == "system.reserve_buffer" || op == "system.import_peer_buffer") {
    // The simulator keeps the rings itself; the address names the bytes the allocator kept free.
    int64_t base = call.kwargs.Get<int64_t>("base").value_or(-1);
    if (base < 0) FailAt(op, "the buffer has no address yet: AllocateMemoryAddr places it, so run that pass", call.span);
    return "int64_t{" + std::to_string(base) + "}";
  }
  if (op == "tensor.dim") {
    const TensorInfo& tensor = TensorOf(call.args[0], op, call.span);
    auto axis = AsConstInt(call.args[1]);
    int64_t rank = static_cast<int64_t>(tensor.type->rank());
    if (!axis || *axis < -rank || *axis >= rank) FailAt(op, "the axis must be a constant in range", call.span);
    return TensorDim(tensor, static_cast<size_t>(*axis < 0 ? *axis + rank : *axis));
  }
  if (op == "tile.read") {
    const TileInfo& tile = TileOf(call.args[0], op, call.span);
    std::vector<ExprPtr> indices = TupleElements(call.args[1]);
    if (indices.size() == 1) indices.insert(indices.begin(), Int(0));
    if (indices.size() != 2) FailAt(op, "tile.read of a 2-D tile takes two indices", call.span);
    MarkLine(call.span);
    std::string at = tile.name + ".GetValue(" + ElementOffset(call.args[0], indices[0], indices[1], op, call.span) + ")";
    return "static_cast<" + CxxScalarType(*ScalarDType(call.type), call.span) + ">(" + at + ")";
  }
  if (auto comm = CommScalar(call)) return *comm;
  FailAt(op, "this op does not compute a scalar in a kernel", call.span);
}

}  // namespace pypto::npu
