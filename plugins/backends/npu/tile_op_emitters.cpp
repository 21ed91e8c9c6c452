#include "tile_op_emitters.h"

#include <algorithm>
#include <map>
#include <optional>

#include "kernel_writer.h"

namespace pypto::npu {

using namespace pypto::ir;

namespace {

DataType TileDType(const OpSite& site, size_t arg) { return As<TileType>(site.call.args[arg]->type)->dtype; }

// The scalar operand `arg` in the compute type of tile argument `tile_arg`.
std::string ScalarFor(KernelWriter& w, const OpSite& site, size_t arg, size_t tile_arg) {
  return w.ScalarAs(site.call.args[arg], ComputeDType(TileDType(site, tile_arg)));
}

// Tile operands of one element-wise instruction must cover the result: the
// ISA does not broadcast (row_expand_* / col_expand_* do).
// `args` have the shape of the result, or of argument `like` where the result
// is not element-wise shaped (a compare's packed mask).
void RequireSameShape(KernelWriter& w, const OpSite& site, const std::vector<size_t>& args,
                      std::optional<size_t> like = std::nullopt) {
  auto result = As<TileType>(like ? site.call.args[*like]->type : site.call.type);
  for (size_t i : args) {
    auto operand = As<TileType>(site.call.args[i]->type);
    auto a = StaticShape(operand->shape);
    auto b = StaticShape(result->shape);
    if (a != b) {
      w.Fail(site, "operand " + std::to_string(i) + " has shape " + TypeToString(operand) + " but " +
                       (like ? "operand " + std::to_string(*like) : std::string("the result")) + " is " +
                       TypeToString(result) + "; the ISA's element-wise instructions do not broadcast, use "
                       "tile.row_expand_* / tile.col_expand_* for a row or column operand");
    }
  }
}

// dst = NAME(tile operands...)
OpEmitter TileForm(std::string name, std::vector<size_t> tiles, bool same_shape = false) {
  return [name, tiles, same_shape](KernelWriter& w, const OpSite& site) {
    if (same_shape) RequireSameShape(w, site, tiles);
    std::vector<std::string> operands;
    for (size_t i : tiles) operands.push_back(w.TileArg(site, i));
    std::string dst = w.DeclareResult(site);
    operands.insert(operands.begin(), dst);
    w.Instruction(site, name, operands);
  };
}

bool IsColumnVector(const ExprPtr& tile) {
  auto type = tile ? As<TileType>(tile->type) : nullptr;
  return type && ColumnAsRow(*type).has_value();
}

// The row-major tile over the bytes of `column`, whose C++ tile is `name`.
std::string RowOf(KernelWriter& w, const OpSite& site, const Var& column, const std::string& name) {
  auto row = ColumnAsRow(*As<TileType>(column.type));
  return w.DeclareAlias(column.name_hint + "_row", **row, site.span, "the column " + name + " as one row", site.op());
}

// dst = NAME(tile, scalar[, tmp]). pto-isa's tile-scalar instructions take
// row-major tiles only, so a column vector goes in as its row.
OpEmitter ScalarForm(std::string name, bool with_tmp = false) {
  return [name, with_tmp](KernelWriter& w, const OpSite& site) {
    std::string src = w.TileArg(site, 0);
    std::string dst = w.DeclareResult(site);
    if (IsColumnVector(site.call.args[0]) && IsColumnVector(site.result)) {
      src = RowOf(w, site, *As<Var>(site.call.args[0]), src);
      dst = RowOf(w, site, *site.result, dst);
    }
    std::vector<std::string> operands = {dst, src, ScalarFor(w, site, 1, 0)};
    if (with_tmp) operands.push_back(w.TileArg(site, 2));
    w.Instruction(site, name, operands);
  };
}

// A reduction; `has_tmp`: argument 1, when given, is the registry's scratch tile.
// `after_tmp`: the operands the instruction takes after its scratch tile (TCOLSUM's
// isBinary: with a scratch tile the chip sums the rows as a binary tree).
OpEmitter Reduction(std::string name, bool has_tmp, std::vector<std::string> after_tmp = {}) {
  return [name, has_tmp, after_tmp](KernelWriter& w, const OpSite& site) {
    std::vector<std::string> operands = {w.TileArg(site, 0)};
    if (has_tmp && site.call.args.size() > 1) {
      operands.push_back(w.TileArg(site, 1));
      operands.insert(operands.end(), after_tmp.begin(), after_tmp.end());
    }
    operands.insert(operands.begin(), w.DeclareResult(site));
    w.Instruction(site, name, operands);
  };
}

int64_t IntKwarg(const OpSite& site, const std::string& key, int64_t fallback) {
  return site.call.kwargs.Get<int64_t>(key).value_or(fallback);
}

std::string CmpMode(KernelWriter& w, const OpSite& site) {
  int64_t mode = IntKwarg(site, "cmp_type", 0);
  const char* name = CmpModeName(mode);
  if (!name) w.Fail(site, "cmp_type " + std::to_string(mode) + " is not 0..5 (eq, ne, lt, le, gt, ge)");
  return std::string("CmpMode::") + name;
}

void EmitCast(KernelWriter& w, const OpSite& site) {
  int64_t mode = IntKwarg(site, "mode", 2);
  const char* name = RoundModeName(mode);
  if (!name) w.Fail(site, "mode " + std::to_string(mode) + " is not a rounding mode 0..6");
  std::string src = w.TileArg(site, 0);
  w.Instruction(site, "TCVT", {w.DeclareResult(site), src, std::string("RoundMode::") + name});
}

void EmitCmp(KernelWriter& w, const OpSite& site) {
  RequireSameShape(w, site, {1}, 0);
  std::string a = w.TileArg(site, 0), b = w.TileArg(site, 1);
  w.Instruction(site, "TCMP", {w.DeclareResult(site), a, b, CmpMode(w, site)});
}

void EmitCmps(KernelWriter& w, const OpSite& site) {
  std::string a = w.TileArg(site, 0);
  std::string s = ScalarFor(w, site, 1, 0);
  w.Instruction(site, "TCMPS", {w.DeclareResult(site), a, s, CmpMode(w, site)});
}

// Every numeric element type of one to four bytes: what pto-isa's data
// movement instructions take.
const std::vector<DataType> kNumeric8To32Bits = {DataType::INT8,  DataType::UINT8,  DataType::INT16,
                                                 DataType::UINT16, DataType::INT32,  DataType::UINT32,
                                                 DataType::FP16,  DataType::BF16,   DataType::FP32};

// pto-isa declares some instructions for a few element types only (a
// static_assert in the instruction): the op's input (argument `input_arg`)
// must have one of them.
OpEmitter OnlyFor(std::string instruction, std::vector<DataType> dtypes, OpEmitter emit, size_t input_arg = 0) {
  return [instruction, dtypes, emit, input_arg](KernelWriter& w, const OpSite& site) {
    auto input = As<TileType>(site.call.args.at(input_arg)->type);
    if (input && std::find(dtypes.begin(), dtypes.end(), input->dtype) == dtypes.end()) {
      std::string names;
      for (DataType d : dtypes) names += (names.empty() ? "" : ", ") + std::string(d.name());
      w.Fail(site, instruction + " takes " + names + " tiles only, and this input is " + input->dtype.name() +
                       ": cast it to one of them first (pl.cast), and the result back if you need its dtype");
    }
    emit(w, site);
  };
}

void EmitFillpad(KernelWriter& w, const OpSite& site) {
  auto pad = site.call.kwargs.GetEnum<PadValue>("pad_value").value_or(PadValue::Zero);
  std::string src = w.TileArg(site, 0);
  w.Instruction(site, "TFILLPAD", {w.DeclareResult(site, pad), src});
}

void EmitFull(KernelWriter& w, const OpSite& site) {
  DataType dtype = As<TileType>(site.call.type)->dtype;
  std::string value = w.ScalarAs(site.call.args[1], ComputeDType(dtype));
  w.Instruction(site, "TEXPANDS", {w.DeclareResult(site), value});
}

void EmitExpands(KernelWriter& w, const OpSite& site) {
  std::string value = ScalarFor(w, site, 1, 0);
  w.Instruction(site, "TEXPANDS", {w.DeclareResult(site), value});
}

void EmitExtract(KernelWriter& w, const OpSite& site) {
  std::string src = w.TileArg(site, 0);
  std::string row = w.ScalarAs(site.call.args[1], DataType::INT32);
  std::string col = w.ScalarAs(site.call.args[2], DataType::INT32);
  w.Instruction(site, "TEXTRACT", {w.DeclareResult(site), src, row, col});
}

// TTRANS and TSEL take a scratch tile, which the language lets a program
// leave out: MaterializeScratchTiles (in the default pipeline) adds one.
void RequireScratch(KernelWriter& w, const OpSite& site, const char* instruction) {
  if (site.call.args.size() > 3) return;
  w.Fail(site, std::string(instruction) + " takes a scratch tile and this " + site.call.op->name +
                   " has none: pass one as its `tmp` operand, or compile with a pipeline that runs "
                   "MaterializeScratchTiles");
}

void EmitTranspose(KernelWriter& w, const OpSite& site) {
  auto a1 = AsConstInt(site.call.args[1]);
  auto a2 = AsConstInt(site.call.args[2]);
  bool swaps_2d = a1 && a2 && ((*a1 == 0 && *a2 == 1) || (*a1 == 1 && *a2 == 0) || (*a1 == -2 && *a2 == -1) ||
                               (*a1 == -1 && *a2 == -2));
  if (!swaps_2d) w.Fail(site, "TTRANS swaps the two axes of a 2-D tile; the axes must be 0 and 1");
  RequireScratch(w, site, "TTRANS");
  w.Instruction(site, "TTRANS", {w.DeclareResult(site), w.TileArg(site, 0), w.TileArg(site, 3)});
}

void EmitMatmulAcc(KernelWriter& w, const OpSite& site) {
  std::string acc = w.TileArg(site, 0), left = w.TileArg(site, 1), right = w.TileArg(site, 2);
  std::string dst = w.DeclareResult(site);
  if (site.call.args.size() > 3) {
    // init_cond: the first step of a K loop overwrites instead of accumulating.
    std::string cond = w.ScalarAs(site.call.args[3], DataType::BOOL);
    w.Line("if (" + cond + ") {");
    w.Instruction(site, "  TMATMUL", {dst, left, right});
    w.Line("} else {");
    w.Instruction(site, "  TMATMUL_ACC", {dst, acc, left, right});
    w.Line("}");
    return;
  }
  w.Instruction(site, "TMATMUL_ACC", {dst, acc, left, right});
}

void EmitWrite(KernelWriter& w, const OpSite& site) {
  std::string tile = w.TileArg(site, 0);
  auto indices = As<MakeTuple>(site.call.args[1]);
  std::vector<ExprPtr> at = indices ? indices->elements : std::vector<ExprPtr>{site.call.args[1]};
  if (at.size() == 1) at.insert(at.begin(), Int(0));
  if (at.size() != 2) w.Fail(site, "tile.write of a 2-D tile takes two indices");
  DataType dtype = TileDType(site, 0);
  std::string value = w.ScalarAs(site.call.args[2], ComputeDType(dtype));
  if (ComputeDType(dtype) != dtype) value = "static_cast<" + *ElementType(dtype) + ">(" + value + ")";
  std::string dst = w.DeclareResult(site, std::nullopt, "the storage of " + tile);
  w.MarkLine(site.span);
  w.Line(dst + ".SetValue(" + w.ElementOffset(site.call.args[0], at[0], at[1], site.op(), site.span) + ", " + value +
         ");" + w.Where(site.span));
}

// Ops that order work between pipes or cores: the simulated core runs each
// instruction to completion in program order, so an intra-core barrier is
// already satisfied.
// The ISA's name of a pipe code of the sync ops (ops::PipeType).
std::string IsaPipe(int64_t code) {
  static const char* const kNames[] = {"PIPE_MTE1", "PIPE_MTE2", "PIPE_MTE3", "PIPE_M",
                                       "PIPE_V",    "PIPE_S",    "PIPE_FIX",  "PIPE_ALL"};
  return code >= 0 && code < 8 ? kNames[code] : "PIPE_ALL";
}

void EmitPipeBarrier(KernelWriter& w, const OpSite& site) {
  const std::string& op = site.op();
  const char* pipe = op == "system.bar_v" ? "PIPE_V" : op == "system.bar_m" ? "PIPE_M" : "PIPE_ALL";
  w.Instruction(site, "pipe_barrier", {pipe});
}

// system.sync_src / sync_dst: set_flag / wait_flag of one event between two pipes.
OpEmitter PipeEvent(const char* instruction) {
  return [instruction](KernelWriter& w, const OpSite& site) {
    const ir::Attrs& kwargs = site.call.kwargs;
    int64_t event = kwargs.Get<int64_t>("event_id").value_or(0);
    w.Instruction(site, instruction,
                  {IsaPipe(kwargs.Get<int64_t>("set_pipe").value_or(7)), IsaPipe(kwargs.Get<int64_t>("wait_pipe").value_or(7)),
                   "EVENT_ID" + std::to_string(event)});
  };
}

// The cross-core pipe (sdk/include/pypto/isa/pipe.h). Its ends are the kernels of one cluster task, which only a
// Group function's AIC and AIV members are: an InCore kernel runs alone, where every pipe op faults.
void RequirePipeCore(KernelWriter& w, const OpSite& site, FunctionType core) {
  FunctionType type = w.function().func_type;
  if (type == core) return;
  const char* side = core == FunctionType::AIC ? "the cube core: put it in a @pl.function(type=pl.FunctionType.AIC)"
                                               : "a vector core: put it in a @pl.function(type=pl.FunctionType.AIV)";
  w.Fail(site, "a cross-core pipe op runs on " + std::string(side) + " kernel that a Group function calls with its "
               "peer; '" + w.function().name + "' is " + ToString(type));
}

std::string PipeSplitOf(KernelWriter& w, const OpSite& site) {
  int64_t split = IntKwarg(site, "split", 0);
  static const char* const kNames[] = {"NONE", "UP_DOWN", "LEFT_RIGHT"};
  if (split < 0 || split > 2) {
    w.Fail(site, "split " + std::to_string(split) + " is not 0..2 (none, up_down, left_right)");
  }
  return std::string("PipeSplit::") + kNames[split];
}

OpEmitter PipePush(std::string name, FunctionType core) {
  return [name, core](KernelWriter& w, const OpSite& site) {
    RequirePipeCore(w, site, core);
    w.Instruction(site, name, {w.TileArg(site, 0), PipeSplitOf(w, site)});
  };
}

OpEmitter PipePop(std::string name, FunctionType core) {
  return [name, core](KernelWriter& w, const OpSite& site) {
    RequirePipeCore(w, site, core);
    std::string split = PipeSplitOf(w, site);
    w.Instruction(site, name, {w.DeclareResult(site, std::nullopt, "received through the pipe"), split});
  };
}

// The free names no tile: the ring frees the oldest slot this core popped.
OpEmitter PipeFree(std::string name, FunctionType core) {
  return [name, core](KernelWriter& w, const OpSite& site) {
    RequirePipeCore(w, site, core);
    w.Instruction(site, name, {});
  };
}

OpEmitter PipeInit(std::string name, FunctionType core) {
  return [name, core](KernelWriter& w, const OpSite& site) {
    RequirePipeCore(w, site, core);
    w.Instruction(site, name,
                  {std::to_string(IntKwarg(site, "dir_mask", 0)), std::to_string(IntKwarg(site, "slot_size", 0)),
                   std::to_string(IntKwarg(site, "slot_num", 0))});
  };
}

void RefuseOp(const std::string& advice, KernelWriter& w, const OpSite& site) { w.Fail(site, advice); }

OpEmitter Refuse(std::string advice) {
  return [advice](KernelWriter& w, const OpSite& site) { RefuseOp(advice, w, site); };
}

std::map<std::string, OpEmitter> BuildTable() {
  std::map<std::string, OpEmitter> t;
  // Data movement and storage
  t["tile.load"] = [](KernelWriter& w, const OpSite& s) { w.EmitLoad(s); };
  t["tile.store"] = [](KernelWriter& w, const OpSite& s) { w.EmitStore(s); };
  t["tile.move"] = TileForm("TMOV", {0});
  t["tile.alloc"] = [](KernelWriter&, const OpSite&) {};  // the addresses are in the tiles' MemRefs
  t["tile.create"] = [](KernelWriter& w, const OpSite& s) { w.DeclareResult(s, std::nullopt, "scratch"); };
  t["tile.full"] = EmitFull;
  t["tile.expands"] = EmitExpands;
  t["tile.slice"] = [](KernelWriter& w, const OpSite& s) { w.EmitSlice(s); };
  t["tile.reshape"] = [](KernelWriter& w, const OpSite& s) { w.EmitView(s, 0); };
  t["tile.set_validshape"] = [](KernelWriter& w, const OpSite& s) { w.EmitView(s, 0); };
  t["tile.extract"] = EmitExtract;
  t["tile.assemble"] = [](KernelWriter& w, const OpSite& s) { w.EmitAssemble(s); };
  t["tile.transpose"] = EmitTranspose;
  t["tile.concat"] = OnlyFor("TCONCAT", kNumeric8To32Bits, TileForm("TCONCAT", {0, 1}));
  std::vector<DataType> fillable = kNumeric8To32Bits;
  fillable.insert(fillable.begin(), DataType::BOOL);
  t["tile.fillpad"] = OnlyFor("TFILLPAD", fillable, EmitFillpad);
  t["tile.cast"] = EmitCast;
  t["tile.write"] = EmitWrite;
  // Element-wise, tile op tile
  for (auto [op, instr] : std::map<std::string, std::string>{{"tile.add", "TADD"},
                                                             {"tile.sub", "TSUB"},
                                                             {"tile.mul", "TMUL"},
                                                             {"tile.div", "TDIV"},
                                                             {"tile.maximum", "TMAX"},
                                                             {"tile.minimum", "TMIN"},
                                                             {"tile.fmod", "TFMOD"},
                                                             {"tile.and", "TAND"},
                                                             {"tile.or", "TOR"},
                                                             {"tile.shl", "TSHL"},
                                                             {"tile.shr", "TSHR"}}) {
    t[op] = TileForm(instr, {0, 1}, true);
  }
  t["tile.rem"] = TileForm("TREM", {0, 1, 2}, false);
  t["tile.xor"] = TileForm("TXOR", {0, 1, 2}, false);
  // Element-wise, tile op scalar
  for (auto [op, instr] : std::map<std::string, std::string>{{"tile.adds", "TADDS"},
                                                             {"tile.subs", "TSUBS"},
                                                             {"tile.muls", "TMULS"},
                                                             {"tile.divs", "TDIVS"},
                                                             {"tile.maximums", "TMAXS"},
                                                             {"tile.minimums", "TMINS"},
                                                             {"tile.fmods", "TFMODS"},
                                                             {"tile.ands", "TANDS"},
                                                             {"tile.ors", "TORS"},
                                                             {"tile.shls", "TSHLS"},
                                                             {"tile.shrs", "TSHRS"},
                                                             {"tile.lrelu", "TLRELU"}}) {
    t[op] = ScalarForm(instr);
  }
  t["tile.rems"] = ScalarForm("TREMS", true);
  t["tile.xors"] = ScalarForm("TXORS", true);
  // Unary
  for (auto [op, instr] : std::map<std::string, std::string>{{"tile.exp", "TEXP"},
                                                             {"tile.log", "TLOG"},
                                                             {"tile.sqrt", "TSQRT"},
                                                             {"tile.rsqrt", "TRSQRT"},
                                                             {"tile.recip", "TRECIP"},
                                                             {"tile.neg", "TNEG"},
                                                             {"tile.relu", "TRELU"},
                                                             {"tile.not", "TNOT"}}) {
    t[op] = TileForm(instr, {0});
  }
  for (const char* op : {"tile.sin", "tile.cos"}) {
    t[op] = Refuse("PTO-ISA has no sine or cosine instruction; the LowerCompositeOps pass computes it from "
                   "multiplies, adds and casts, so run it before the npu backend (the default pipeline does)");
  }
  t["tile.abs"] = OnlyFor("TABS", {DataType::INT8, DataType::INT16, DataType::INT32, DataType::FP16, DataType::BF16,
                                   DataType::FP32},
                          TileForm("TABS", {0}));
  // Compare and select
  // The a2a3 instructions' element types (pto/npu/a2a3/TCmp.hpp, TCmps.hpp,
  // TSel.hpp), which are narrower than the CPU simulation's.
  t["tile.cmp"] = OnlyFor("TCMP", {DataType::INT32, DataType::FP16, DataType::FP32}, EmitCmp);
  t["tile.cmps"] =
      OnlyFor("TCMPS", {DataType::INT16, DataType::UINT16, DataType::INT32, DataType::FP16, DataType::FP32}, EmitCmps);
  t["tile.sel"] = OnlyFor("TSEL",
                          {DataType::INT16, DataType::UINT16, DataType::FP16, DataType::BF16, DataType::INT32,
                           DataType::UINT32, DataType::FP32},
                          [](KernelWriter& w, const OpSite& s) {
                            RequireScratch(w, s, "TSEL");
                            TileForm("TSEL", {0, 1, 2, 3})(w, s);
                          },
                          1);
  // Reductions
  t["tile.row_sum"] = OnlyFor("TROWSUM", {DataType::FP16, DataType::BF16, DataType::FP32, DataType::INT16, DataType::INT32},
                              Reduction("TROWSUM", true));
  for (auto [op, instr] : std::map<std::string, std::string>{{"tile.row_max", "TROWMAX"},
                                                             {"tile.row_min", "TROWMIN"},
                                                             {"tile.row_prod", "TROWPROD"},
                                                             {"tile.row_argmax", "TROWARGMAX"},
                                                             {"tile.row_argmin", "TROWARGMIN"},
                                                             {"tile.col_argmax", "TCOLARGMAX"},
                                                             {"tile.col_argmin", "TCOLARGMIN"}}) {
    t[op] = Reduction(instr, true);
  }
  t["tile.col_sum"] = OnlyFor("TCOLSUM", {DataType::FP16, DataType::BF16, DataType::FP32},
                              Reduction("TCOLSUM", true, {"true"}));
  t["tile.col_max"] = OnlyFor("TCOLMAX", {DataType::INT8, DataType::UINT8, DataType::FP16, DataType::BF16, DataType::FP32},
                              Reduction("TCOLMAX", false));
  t["tile.col_min"] = Reduction("TCOLMIN", false);
  t["tile.col_prod"] = Reduction("TCOLPROD", false);
  // Broadcasts: the target of row_expand / col_expand only gives the shape.
  t["tile.row_expand"] = OnlyFor("TROWEXPAND", kNumeric8To32Bits, TileForm("TROWEXPAND", {1}), 1);
  t["tile.col_expand"] = OnlyFor("TCOLEXPAND", kNumeric8To32Bits, TileForm("TCOLEXPAND", {1}), 1);
  // The a2a3 chip's expand arithmetic (pto/npu/a2a3/T{Row,Col}Expand*.hpp)
  // is narrower than its CPU simulation: no BF16, no unsigned, and division
  // and exp(a - b) on floats only.
  const std::vector<DataType> arithmetic = {DataType::INT16, DataType::INT32, DataType::FP16, DataType::FP32};
  const std::vector<DataType> floats = {DataType::FP16, DataType::FP32};
  for (std::string kind : {"add", "sub", "mul", "div", "max", "min", "expdif"}) {
    std::string upper;
    for (char c : kind) upper += static_cast<char>(c - 'a' + 'A');
    const auto& dtypes = kind == "div" || kind == "expdif" ? floats : arithmetic;
    t["tile.row_expand_" + kind] = OnlyFor("TROWEXPAND" + upper, dtypes, TileForm("TROWEXPAND" + upper, {0, 1}));
    t["tile.col_expand_" + kind] = OnlyFor("TCOLEXPAND" + upper, dtypes, TileForm("TCOLEXPAND" + upper, {0, 1}));
  }
  // Cube
  t["tile.matmul"] = TileForm("TMATMUL", {0, 1});
  t["tile.matmul_acc"] = EmitMatmulAcc;
  t["tile.matmul_bias"] = TileForm("TMATMUL_BIAS", {0, 1, 2});
  // Distributed: one-sided transfers and signals (comm_emitters.cpp)
  t["tile.remote_load"] = [](KernelWriter& w, const OpSite& s) { w.EmitRemoteLoad(s); };
  t["tile.remote_store"] = [](KernelWriter& w, const OpSite& s) { w.EmitRemoteStore(s); };
  t["tensor.put"] = [](KernelWriter& w, const OpSite& s) { w.EmitTensorPut(s); };
  t["tensor.remote_store"] = [](KernelWriter& w, const OpSite& s) { w.EmitTensorPut(s); };
  t["tensor.get"] = [](KernelWriter& w, const OpSite& s) { w.EmitTensorGet(s); };
  t["system.notify"] = [](KernelWriter& w, const OpSite& s) { w.EmitNotify(s); };
  t["system.wait"] = [](KernelWriter& w, const OpSite& s) { w.EmitWait(s); };
  t["system.defer_wait"] = [](KernelWriter& w, const OpSite& s) { w.EmitDeferWait(s); };
  for (std::string op : {"tensor.allreduce", "tensor.barrier", "tensor.broadcast", "tensor.reduce_scatter",
                         "tensor.allgather", "tensor.all_to_all", "tensor.all_to_all_v"}) {
    t[op] = [](KernelWriter& w, const OpSite& s) { w.EmitCollective(s); };
  }
  // Cross-core pipe between a cluster's AIC and AIV lanes
  t["tile.tpush_to_aiv"] = PipePush("TPUSH_TO_AIV", FunctionType::AIC);
  t["tile.tpush_to_aic"] = PipePush("TPUSH_TO_AIC", FunctionType::AIV);
  t["tile.tpop_from_aic"] = PipePop("TPOP_FROM_AIC", FunctionType::AIV);
  t["tile.tpop_from_aiv"] = PipePop("TPOP_FROM_AIV", FunctionType::AIC);
  t["system.tfree_to_aic"] = PipeFree("TFREE_TO_AIC", FunctionType::AIV);
  t["system.tfree_to_aiv"] = PipeFree("TFREE_TO_AIV", FunctionType::AIC);
  t["system.aic_initialize_pipe"] = PipeInit("AIC_INITIALIZE_PIPE", FunctionType::AIC);
  t["system.aiv_initialize_pipe"] = PipeInit("AIV_INITIALIZE_PIPE", FunctionType::AIV);
  // What the ISA has no instruction for
  t["tile.addc"] = Refuse("the ISA has no three-operand add; write two tile.add calls");
  t["tile.subc"] = Refuse("the ISA has no three-operand subtract; write two tile.sub calls");
  // Ordering within one core
  for (std::string op : {"system.bar_all", "system.bar_m", "system.bar_v"}) t[op] = EmitPipeBarrier;
  t["system.sync_src"] = PipeEvent("set_flag");
  t["system.sync_dst"] = PipeEvent("wait_flag");
  // Ordering against other cores: peers see this core's global-memory writes in order only
  // after a data barrier (InsertCommFence places the fences around signals).
  t["system.fence"] = [](KernelWriter& w, const OpSite& s) { w.Instruction(s, "dsb", {"DSB_DDR"}); };
  t["system.syncall"] = Refuse(
      "a barrier across the cores of a task has no simulator instruction; split the kernel into two tasks");
  return t;
}

const std::map<std::string, OpEmitter>& Table() {
  static const std::map<std::string, OpEmitter> table = BuildTable();
  return table;
}

}  // namespace

const OpEmitter* FindOpEmitter(const std::string& op) {
  auto it = Table().find(op);
  return it == Table().end() ? nullptr : &it->second;
}

std::vector<std::string> TranslatedOps() {
  std::vector<std::string> ops;
  for (const auto& [name, emitter] : Table()) ops.push_back(name);
  return ops;
}

}  // namespace pypto::npu
