// The distributed ops of a kernel -> the comm instructions of sdk/include/pypto/isa/comm.h. Window
// operands become GlobalTensor views of the kernel's window parameters; the engine maps their local
// addresses to the same offsets on the peer.
#include "kernel_writer.h"
#include "pypto/ir/ir.h"

namespace pypto::npu {

using namespace pypto::ir;

namespace {

std::string DTypeCode(DataType dtype) { return std::to_string(static_cast<int>(dtype.code())); }

int64_t IntKwarg(const OpSite& site, const char* key) { return site.call.kwargs.Get<int64_t>(key).value_or(0); }

}  // namespace

std::optional<std::string> KernelWriter::CommScalar(const Call& call) {
  const std::string& op = call.op->name;
  // A comm context is the address of its window: the engine knows the window's comm domain from it.
  auto context_of = [&](const ExprPtr& window) {
    return "static_cast<int64_t>(reinterpret_cast<__INTPTR_TYPE__>(" + TensorOf(window, op, call.span).desc + "->data))";
  };
  if (op == "system.get_comm_ctx") {
    uses_comm_ = true;
    return context_of(call.args[0]);
  }
  if (op == "system.rank" || op == "system.nranks") {
    uses_comm_ = true;
    const ExprPtr& ctx = call.args[0];
    std::string context = IsA<DistributedTensorType>(ctx->type) ? context_of(ctx) : ScalarAs(ctx, DataType::INT64);
    return std::string(op == "system.rank" ? "COMM_RANK(" : "COMM_NRANKS(") + context + ")";
  }
  return std::nullopt;
}

std::string KernelWriter::Region(const OpSite& site, const char* instruction, size_t tensor_arg,
                                 const std::optional<ExprPtr>& offsets, const std::optional<ExprPtr>& extents) {
  const TensorInfo& tensor = TensorOf(site.call.args[tensor_arg], site.op(), site.span);
  std::vector<ExprPtr> shape = extents ? TupleElements(*extents) : tensor.type->shape;
  auto static_extents = StaticShape(shape);
  if (!static_extents) Fail(site, "the transferred region must have a static shape; give shape=[...] with constants");
  ExprPtr origin = offsets ? *offsets : MakeTuple::Make(std::vector<ExprPtr>(tensor.type->rank(), ConstInt::Make(0)));
  return Window(site, instruction, tensor, origin, *static_extents, tensor.name + "_region");
}

std::string KernelWriter::Cell(const OpSite& site, const char* instruction, const TensorInfo& signal,
                               const ExprPtr& offsets) {
  return Window(site, instruction, signal, offsets, std::vector<int64_t>(signal.type->rank(), 1),
                signal.name + "_cell");
}

void KernelWriter::EmitRemoteLoad(const OpSite& site) {
  uses_comm_ = true;
  const TensorInfo& window = TensorOf(site.call.args[0], site.op(), site.span);
  auto extents = StaticShape(TupleElements(site.call.args[3]));
  if (!extents) Fail(site, "the remote load's shapes must be constants (the tile's static extents)");
  std::string tile = DeclareResult(site);
  std::vector<ExprPtr> valid = site.call.args.size() > 4 ? TupleElements(site.call.args[4]) : std::vector<ExprPtr>{};
  std::string region = Window(site, "TREMOTE_LOAD", window, site.call.args[2], *extents, tile + "_src", valid);
  Instruction(site, "TREMOTE_LOAD", {tile, region, ScalarAs(site.call.args[1], DataType::INT32)});
}

void KernelWriter::EmitRemoteStore(const OpSite& site) {
  uses_comm_ = true;
  const TensorInfo& window = TensorOf(site.call.args[1], site.op(), site.span);
  auto tile_type = As<TileType>(site.call.args[0]->type);
  auto extents = tile_type ? StaticShape(tile_type->shape) : std::nullopt;
  if (!extents) Fail(site, "the stored tile must have static extents");
  std::string tile = TileArg(site, 0);
  std::string region =
      Window(site, "TREMOTE_STORE", window, site.call.args[3], *extents, window.name + "_dst", tile_type->valid_shape);
  Instruction(site, "TREMOTE_STORE", {region, tile, ScalarAs(site.call.args[2], DataType::INT32),
                                      std::to_string(IntKwarg(site, "atomic")), DTypeCode(tile_type->dtype)});
}

// tensor.put(dst, peer, src[, dst_offsets, src_offsets, shape]) and
// tensor.remote_store(tensor, window, peer, offsets): local GM -> the peer's window.
void KernelWriter::EmitTensorPut(const OpSite& site) {
  uses_comm_ = true;
  const auto& args = site.call.args;
  bool is_put = site.op() == "tensor.put";
  size_t dst_arg = is_put ? 0 : 1, src_arg = is_put ? 2 : 0, peer_arg = is_put ? 1 : 2;
  std::optional<ExprPtr> dst_offsets, src_offsets, shape;
  if (is_put && args.size() == 6) {
    dst_offsets = args[3];
    src_offsets = args[4];
    shape = args[5];
  } else if (!is_put) {
    dst_offsets = args[3];
    shape = MakeTuple::Make(As<TensorType>(args[0]->type)->shape);
  }
  std::string dst = Region(site, "TPUT", dst_arg, dst_offsets, shape);
  std::string src = Region(site, "TPUT", src_arg, src_offsets, shape);
  DataType dtype = As<TensorType>(args[dst_arg]->type)->dtype;
  Instruction(site, "TPUT", {dst, ScalarAs(args[peer_arg], DataType::INT32), src,
                             std::to_string(IntKwarg(site, "atomic")), DTypeCode(dtype)});
}

void KernelWriter::EmitTensorGet(const OpSite& site) {
  uses_comm_ = true;
  const auto& args = site.call.args;
  std::optional<ExprPtr> dst_offsets, src_offsets, shape;
  if (args.size() == 6) {
    dst_offsets = args[3];
    src_offsets = args[4];
    shape = args[5];
  }
  std::string dst = Region(site, "TGET", 0, dst_offsets, shape);
  std::string src = Region(site, "TGET", 2, src_offsets, shape);
  Instruction(site, "TGET", {dst, ScalarAs(args[1], DataType::INT32), src});
}

void KernelWriter::EmitNotify(const OpSite& site) {
  uses_comm_ = true;
  const TensorInfo& signal = TensorOf(site.call.args[0], site.op(), site.span);
  std::string cell = Cell(site, "TNOTIFY", signal, site.call.args[2]);
  Instruction(site, "TNOTIFY", {cell, ScalarAs(site.call.args[1], DataType::INT32),
                                ScalarAs(site.call.args[3], DataType::INT32), std::to_string(IntKwarg(site, "op"))});
}

void KernelWriter::EmitWait(const OpSite& site) {
  uses_comm_ = true;
  const TensorInfo& signal = TensorOf(site.call.args[0], site.op(), site.span);
  std::string cell = Cell(site, "TWAIT", signal, site.call.args[1]);
  int64_t cmp = site.call.kwargs.Get<int64_t>("cmp").value_or(1);
  Instruction(site, "TWAIT", {"*" + signal.desc, cell, ScalarAs(site.call.args[2], DataType::INT32), std::to_string(cmp)});
}

void KernelWriter::EmitDeferWait(const OpSite& site) {
  uses_comm_ = true;
  const TensorInfo& signal = TensorOf(site.call.args[0], site.op(), site.span);
  std::string cell = Cell(site, "TDEFER_WAIT", signal, site.call.args[1]);
  std::string file = site.span.filename.empty() ? "<unknown>" : site.span.filename;
  Instruction(site, "TDEFER_WAIT",
              {"*" + signal.desc, cell, ScalarAs(site.call.args[2], DataType::INT32), StringLiteral(file)});
}

void KernelWriter::EmitCollective(const OpSite& site) {
  uses_comm_ = true;
  const std::string& op = site.op();
  std::vector<std::string> descs;
  for (const auto& arg : site.call.args) descs.push_back("*" + TensorOf(arg, op, site.span).desc);
  int64_t reduce = IntKwarg(site, "op");
  if (op == "tensor.allreduce") {
    if (descs.size() < 2) {
      Fail(site, "a kernel's allreduce needs its signal window: pld.tensor.allreduce(data, sig, ...) with sig an INT32 "
                 "pld.DistributedTensor [NR, 1] (only a host orchestrator's allreduce may omit it)");
    }
    bool ring = site.call.kwargs.Get<std::string>("mode").value_or("mesh") == "ring";
    Instruction(site, "TALLREDUCE", {descs[0], descs[1], std::to_string(reduce), ring ? "1" : "0"});
  } else if (op == "tensor.barrier") {
    Instruction(site, "TBARRIER", {descs[0]});
  } else if (op == "tensor.broadcast") {
    Instruction(site, "TBROADCAST", {descs[0], descs[1], std::to_string(IntKwarg(site, "root"))});
  } else if (op == "tensor.reduce_scatter") {
    Instruction(site, "TREDUCE_SCATTER", {descs[0], descs[1], std::to_string(reduce)});
  } else if (op == "tensor.allgather") {
    Instruction(site, "TALLGATHER", {descs[0], descs[1], descs[2]});
  } else if (op == "tensor.all_to_all_v") {
    Instruction(site, "TALL_TO_ALL_V", {descs[0], descs[1], descs[2], descs[3], descs[4]});
  } else {
    Instruction(site, "TALL_TO_ALL", {descs[0], descs[1], descs[2]});
  }
  // The result is the window, rebound: later ops read it through the result's name.
  size_t window = op == "tensor.allgather" || op == "tensor.all_to_all" || op == "tensor.all_to_all_v" ? 1 : 0;
  if (site.result) tensors_[site.result.get()] = TensorOf(site.call.args[window], op, site.span);
}

}  // namespace pypto::npu
