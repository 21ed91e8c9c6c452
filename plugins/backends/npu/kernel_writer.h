// KernelWriter: one kernel function (InCore, AIC or AIV) of a lowered
// program -> one PTO-ISA C++ source: it includes <pto/pto-inst.hpp> and
// compiles against the simulator's implementation (sdk/include/pto) and the
// real pto-isa alike, with the entry kernel_entry(__gm__ int64_t* args) of
// core/include/pypto/runtime/kernel_args.h.
#pragma once

#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cxx_spelling.h"
#include "pypto/ir/ir.h"

namespace pypto::npu {

inline constexpr const char* kBackendName = "npu";

// One op call of a kernel: the call, the variable it defines (null for a
// call evaluated for its effect) and the statement's source position.
struct OpSite {
  const ir::Call& call;
  ir::VarPtr result;
  Span span;
  const std::string& op() const { return call.op->name; }
};

// The elements of a list argument (offsets, shapes): a MakeTuple's, or the one expression.
std::vector<ir::ExprPtr> TupleElements(const ir::ExprPtr& e);

class KernelWriter {
 public:
  explicit KernelWriter(const ir::FunctionPtr& function);
  // The kernel source; a CodegenError for what the ISA cannot express.
  std::string Write();

  // ---- used by the op emitters (tile_op_emitters.cpp) ----
  const ir::Function& function() const { return *function_; }
  [[noreturn]] void Fail(const OpSite& site, const std::string& message) const;
  // The C++ tile of tile argument `arg`.
  std::string TileArg(const OpSite& site, size_t arg);
  // Declares the site's result tile at its planned address; returns its name.
  std::string DeclareResult(const OpSite& site, std::optional<ir::PadValue> pad = std::nullopt,
                            const std::string& note = "");
  // One more C++ tile of `type` over a tile's bytes (type.memref), for an
  // instruction that needs another spelling of the same storage.
  std::string DeclareAlias(const std::string& hint, const ir::TileType& type, const Span& span,
                           const std::string& note, const std::string& op);
  // A scalar operand in `dtype` (literals are spelled in it, others cast).
  std::string ScalarAs(const ir::ExprPtr& e, ir::DataType dtype);
  std::string Scalar(const ir::ExprPtr& e);
  // `PYPTO_LOC(line);` when the line differs from the last one marked, then `NAME(operands...);  // file:line`
  void Instruction(const OpSite& site, const std::string& name, const std::vector<std::string>& operands);
  void Line(const std::string& text);
  // `PYPTO_LOC(line);`: the simulator names this line in the faults of the instructions that follow.
  void MarkLine(const Span& span);
  std::string Where(const Span& span) const;
  // The element offset of (row, col) in the storage of 2-D tile `tile` (GetValue / SetValue).
  std::string ElementOffset(const ir::ExprPtr& tile, const ir::ExprPtr& row, const ir::ExprPtr& col,
                            const std::string& op, const Span& span);

  void EmitLoad(const OpSite& site);
  void EmitStore(const OpSite& site);
  // Declares the result as a view of the tile in `arg` (same storage, no data moves).
  void EmitView(const OpSite& site, size_t arg);
  void RequireSameStorage(const OpSite& site, size_t arg);
  // tile.slice: a view at the window's address (row stride of the source when it has fewer columns).
  void EmitSlice(const OpSite& site);
  // tile.assemble: the source is copied into a window of the target's storage.
  void EmitAssemble(const OpSite& site);

  // Distributed ops (comm_emitters.cpp): one-sided transfers and signals on the comm engine.
  void EmitRemoteLoad(const OpSite& site);
  void EmitRemoteStore(const OpSite& site);
  void EmitTensorPut(const OpSite& site);          // tensor.put, tensor.remote_store
  void EmitTensorGet(const OpSite& site);
  void EmitNotify(const OpSite& site);
  void EmitWait(const OpSite& site);
  void EmitDeferWait(const OpSite& site);
  // pld.tensor.<collective>: one instruction on the window descriptors; the result is the window.
  void EmitCollective(const OpSite& site);

 private:
  struct TileInfo {
    std::string name;
    ir::MemorySpace space;
    int64_t address;
    bool dynamic_valid;
  };
  struct TensorInfo {
    std::string name;  // the GlobalTensor over the whole descriptor
    std::string desc;  // the __gm__ PyptoRtTensorDesc* parameter
    ir::Ref<ir::TensorType> type;
  };

  void DeclareParams();
  void EmitStmt(const ir::StmtPtr& stmt);
  void EmitAssign(const ir::AssignStmt& stmt);
  void EmitEval(const ir::EvalStmt& stmt);
  void EmitCall(const OpSite& site);
  void EmitLoopBody(const ir::StmtPtr& body, const std::vector<ir::IterArgPtr>& iter_args,
                    const std::vector<ir::VarPtr>& return_vars, const Span& span);
  void EmitFor(const ir::ForStmt& stmt);
  void EmitWhile(const ir::WhileStmt& stmt);
  void EmitIf(const ir::IfStmt& stmt);
  void EmitYield(const ir::YieldStmt& stmt);
  void EmitBlock(const ir::StmtPtr& body);

  // Loop-carried and branch values: a C++ variable per IR variable, set by yields.
  void DeclareCarried(const ir::VarPtr& var, const ir::ExprPtr& init, const Span& span);
  void CarryInto(const ir::VarPtr& target, const ir::ExprPtr& value, const Span& span);

  std::string DeclareTile(const ir::VarPtr& var, const Span& span, std::optional<ir::PadValue> pad,
                          const std::string& note, const std::string& op);
  // A C++ tile of `type` assigned to its planned address.
  TileInfo DeclareStorage(const std::string& hint, const ir::TileType& type, const Span& span,
                             std::optional<ir::PadValue> pad, const std::string& note, const std::string& op);
  // DeclareTile with the C++ tile spelled from `type` instead of the variable's own type.
  std::string DeclareTileAs(const ir::VarPtr& var, const ir::Ref<ir::TileType>& type, const Span& span,
                            std::optional<ir::PadValue> pad, const std::string& note, const std::string& op);
  const TileInfo& TileOf(const ir::ExprPtr& e, const std::string& op, const Span& span) const;
  const TensorInfo& TensorOf(const ir::ExprPtr& e, const std::string& op, const Span& span) const;
  std::string Window(const OpSite& site, const char* instruction, const TensorInfo& tensor, const ir::ExprPtr& offsets,
                     const std::vector<int64_t>& extents, const std::string& name_hint,
                     const std::vector<ir::ExprPtr>& valid = {});
  std::string TensorDim(const TensorInfo& tensor, size_t axis) const;
  std::string ScalarCall(const ir::Call& call);
  // system.get_comm_ctx / rank / nranks as a scalar expression, or nullopt for other ops.
  std::optional<std::string> CommScalar(const ir::Call& call);
  // The GlobalTensor of a transfer region: `offsets` (or the origin) and `extents` (or the whole tensor).
  std::string Region(const OpSite& site, const char* instruction, size_t tensor_arg,
                     const std::optional<ir::ExprPtr>& offsets, const std::optional<ir::ExprPtr>& extents);
  // The one-element GlobalTensor of a signal cell.
  std::string Cell(const OpSite& site, const char* instruction, const TensorInfo& signal, const ir::ExprPtr& offsets);
  std::string Binary(const ir::BinaryExpr& e);
  std::string Unary(const ir::UnaryExpr& e);
  std::string CxxScalarType(ir::DataType dtype, const Span& span) const;
  [[noreturn]] void FailAt(const std::string& op, const std::string& message, const Span& span) const;

  ir::FunctionPtr function_;
  NameTable names_;
  std::map<const ir::Var*, std::string> scalars_;
  std::map<const ir::Var*, TileInfo> tiles_;
  std::map<const ir::Var*, TensorInfo> tensors_;
  std::vector<std::vector<ir::VarPtr>> yield_targets_;
  std::ostringstream body_;
  int indent_ = 1;
  int marked_line_ = -1;    // the line of the last PYPTO_LOC on the straight-line path, -1 after a brace
  bool uses_args_ = false;  // the body reads the block index from the entry's args
  bool uses_comm_ = false;  // the kernel includes pypto/isa/comm.h
};

}  // namespace pypto::npu
