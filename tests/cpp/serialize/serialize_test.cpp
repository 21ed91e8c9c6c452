#include <gtest/gtest.h>
#include <unistd.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>

#include "pypto/ir/serialize.h"
#include "pypto/ir/structural.h"
#include "pypto/support/error.h"
#include "structural/sample_ir.h"

using namespace pypto::ir;
using namespace pypto::ir::sample;
using Json = nlohmann::json;

namespace {

// Loads what Serialize wrote and checks the result: structurally equal, and
// serializing it again gives the same bytes (so names, spans and comments,
// which equality ignores, survived too).
NodePtr RoundTrip(const NodePtr& node) {
  std::vector<uint8_t> bytes = Serialize(node);
  NodePtr loaded = Deserialize(bytes);
  EXPECT_TRUE(StructuralEqual(node, loaded, /*map_free_vars=*/true))
      << StructuralDiff(node, loaded, true).value_or("");
  EXPECT_EQ(Serialize(loaded), bytes);
  return loaded;
}

VarPtr IndexVar(const std::string& name) { return Var::Make(name, Index()); }

ExprPtr Plus(const ExprPtr& a, const ExprPtr& b) { return BinaryExpr::Make(BinaryOp::Add, a, b); }

// The message of the pypto::Error that `action` throws, checking its kind.
template <class F>
std::string ErrorMessage(F&& action, pypto::ErrorKind kind = pypto::ErrorKind::kValue) {
  try {
    action();
  } catch (const pypto::Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    return e.message();
  }
  ADD_FAILURE() << "expected a pypto::Error";
  return "";
}

std::vector<uint8_t> Bytes(const Json& document) { return Json::to_msgpack(document); }

Json DocumentOf(const NodePtr& node) { return Json::from_msgpack(Serialize(node)); }

std::string DeserializeError(const Json& document) {
  return ErrorMessage([&] { Deserialize(Bytes(document)); });
}

Ref<MemRef> SampleMemRef() {
  auto base = Var::Make("base", PtrType::Make(MemorySpace::Vec));
  return MemRef::Make("mem", MemorySpace::Vec, base, Int(256), 2048);
}

Ref<TileType> FullTileType() {
  auto tile =
      std::make_shared<TileType>(*TileType::Make(std::vector<int64_t>{32, 32}, DataType::FP16, MemorySpace::Mat));
  tile->valid_shape = Ints({32, 16});
  tile->blayout = TileLayout::ColMajor;
  tile->slayout = TileLayout::RowMajor;
  tile->fractal = 512;
  tile->pad = PadValue::Max;
  tile->memref = SampleMemRef();
  return tile;
}

Ref<TensorType> ViewedTensorType() {
  auto m = IndexVar("M");
  TensorView view{{Int(128), Int(1)}, {m, Int(64)}, PadValue::Zero};
  return TensorType::Make({m, Int(128)}, DataType::BF16, TensorLayout::DN, view);
}

class FileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("pypto_serialize_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::filesystem::path dir_;
};

}  // namespace

// ------------------------------------------------------------ every node kind

TEST(Serialize, EveryExpressionKindRoundTrips) {
  auto x = IndexVar("x");
  auto tuple = MakeTuple::Make({x, Float(2.5)});
  std::vector<NodePtr> samples = {
      x,
      IterArg::Make("acc", Index(), Int(0)),
      SampleMemRef(),
      Int(-7, DataType::INT32),
      Float(-0.0, DataType::FP64),
      Bool(true),
      BinaryExpr::Make(BinaryOp::BitShiftRight, x, Int(2)),
      UnaryExpr::MakeCast(x, DataType::FP32),
      Call::Make(Op::Get("tile.add"), {x, Int(1)}, {{"mode", std::string("fast")}}, Index(), pypto::Span(),
                 {{"arg_directions", std::vector<int64_t>{0, 5}}}),
      tuple,
      TupleGetItem::Make(tuple, 1),
      Submit::Make(Call::Make(GlobalVar::Make("k"), {x}, {}, Index(), pypto::Span(),
                              {{"core_num", Int(4)}, {"sync_start", true}}),
                   {Var::Make("t", ScalarType::Make(DataType::TASK_ID))}, {{"allow_early_resolve", true}}),
  };
  std::set<NodeKind> covered;
  for (const auto& sample : samples) {
    SCOPED_TRACE(sample->type_name());
    EXPECT_EQ(RoundTrip(sample)->kind(), sample->kind());
    covered.insert(sample->kind());
  }
#define PYPTO_X(T) EXPECT_TRUE(covered.count(NodeKind::k##T)) << "no round-trip sample of " #T;
  PYPTO_IR_EXPR_NODES(PYPTO_X)
#undef PYPTO_X
}

TEST(Serialize, EveryStatementKindRoundTrips) {
  auto x = IndexVar("x");
  auto it = IterArg::Make("k", Index(), Int(0));
  auto r = IndexVar("r");
  auto scope = std::make_shared<ScopeStmt>(*ScopeStmt::Make(ScopeKind::Spmd, EvalStmt::Make(x), "block"));
  scope->level = Level::CORE_GROUP;
  scope->role = Role::SubWorker;
  scope->core_num = Int(24);
  scope->sync_start = true;
  scope->split = SplitMode::LeftRight;
  scope->attrs = {{"optimize", true}};
  std::vector<NodePtr> samples = {
      AssignStmt::Make(x, Int(1)),
      EvalStmt::Make(Call::Make(Op::Get("system.barrier"), {}, {}, nullptr)),
      MakeSeq({AssignStmt::Make(x, Int(1)), EvalStmt::Make(x)}),
      IfStmt::Make(Bool(true), YieldStmt::Make({Int(1)}), YieldStmt::Make({Int(2)}), {r}),
      IfStmt::Make(Bool(false), BreakStmt::Make(), nullptr),
      ForStmt::Make(x, Int(0), Int(8), Int(2), {it}, YieldStmt::Make({Plus(it, x)}), {r}, ForKind::Pipeline,
                    {{"stage", int64_t{2}}}),
      WhileStmt::Make(BinaryExpr::Make(BinaryOp::Lt, it, Int(9)), {it}, YieldStmt::Make({Plus(it, Int(1))}), {r}),
      YieldStmt::Make({x, Int(3)}),
      ReturnStmt::Make({x}),
      BreakStmt::Make(),
      ContinueStmt::Make(),
      scope,
  };
  std::set<NodeKind> covered;
  for (const auto& sample : samples) {
    SCOPED_TRACE(sample->type_name());
    RoundTrip(sample);
    covered.insert(sample->kind());
  }
#define PYPTO_X(T) EXPECT_TRUE(covered.count(NodeKind::k##T)) << "no round-trip sample of " #T;
  PYPTO_IR_STMT_NODES(PYPTO_X)
#undef PYPTO_X
}

TEST(Serialize, ScopeTaskIdsAndTheirUsesInDepsRoundTrip) {
  auto task_id = ScalarType::Make(DataType::TASK_ID);
  auto producer = std::make_shared<ScopeStmt>(*ScopeStmt::Make(ScopeKind::InCore, EvalStmt::Make(Int(1)), "p"));
  producer->task_id = Var::Make("tid", task_id);
  auto tids = Var::Make("tids", ArrayType::Make(DataType::TASK_ID, Int(2)));
  auto consumer = std::make_shared<ScopeStmt>(*ScopeStmt::Make(ScopeKind::Spmd, EvalStmt::Make(Int(2)), "c"));
  consumer->core_num = Int(4);
  consumer->attrs = {{"deps", std::vector<ExprPtr>{producer->task_id, tids}}};
  consumer->task_id = Var::Make("tid", task_id);
  auto loaded = As<SeqStmts>(RoundTrip(MakeSeq({producer, consumer})));
  ASSERT_NE(loaded, nullptr);
  auto loaded_producer = As<ScopeStmt>(loaded->stmts[0]);
  auto loaded_consumer = As<ScopeStmt>(loaded->stmts[1]);
  ASSERT_NE(loaded_producer->task_id, nullptr);
  EXPECT_EQ(loaded_producer->task_id->name_hint, "tid");
  const auto& deps = std::get<std::vector<ExprPtr>>(*loaded_consumer->attrs.Find("deps"));
  EXPECT_EQ(deps[0].get(), loaded_producer->task_id.get());
  EXPECT_NE(loaded_consumer->task_id.get(), loaded_producer->task_id.get());
  EXPECT_EQ(RoundTrip(ScopeStmt::Make(ScopeKind::Cluster, EvalStmt::Make(Int(1))))->kind(), NodeKind::kScopeStmt);
}

TEST(Serialize, SubmitKeepsItsCallDepsAndType) {
  auto tid = Var::Make("tid", ScalarType::Make(DataType::TASK_ID));
  auto call = Call::Make(GlobalVar::Make("k"), {Int(1)}, {}, TupleType::Make({Index(), Index()}));
  auto submit = Submit::Make(call, {tid}, {{"allow_early_resolve", false}});
  auto loaded = As<Submit>(RoundTrip(submit));
  ASSERT_NE(loaded, nullptr);
  EXPECT_EQ(loaded->kernel_call()->callee_name(), "k");
  EXPECT_EQ(loaded->task_id_index(), 2);
  ASSERT_EQ(loaded->deps.size(), 1u);
  EXPECT_EQ(loaded->deps[0]->type->kind(), NodeKind::kScalarType);
  EXPECT_TRUE(StructuralEqual(loaded->type, TupleType::Make({Index(), Index(), ScalarType::Make(DataType::TASK_ID)})));
}

TEST(Serialize, EveryTypeKindRoundTrips) {
  std::vector<NodePtr> samples = {
      ScalarType::Make(DataType::UINT4),
      ViewedTensorType(),
      DistributedTensorType::Make({Int(4), Int(1)}, DataType::INT32),
      FullTileType(),
      TupleType::Make({Index(), TileType::Make(std::vector<int64_t>{8}, DataType::INT8)}),
      ArrayType::Make(DataType::TASK_ID, Int(4)),
      PtrType::Make(MemorySpace::Acc),
      UnknownType::Make(),
  };
  std::set<NodeKind> covered;
  for (const auto& sample : samples) {
    SCOPED_TRACE(sample->type_name());
    RoundTrip(sample);
    covered.insert(sample->kind());
  }
#define PYPTO_X(T) EXPECT_TRUE(covered.count(NodeKind::k##T)) << "no round-trip sample of " #T;
  PYPTO_IR_TYPE_NODES(PYPTO_X)
#undef PYPTO_X
}

TEST(Serialize, TensorViewAndTileMemRefKeepEveryField) {
  auto tensor = As<TensorType>(RoundTrip(ViewedTensorType()));
  ASSERT_TRUE(tensor && tensor->view);
  EXPECT_EQ(tensor->layout, TensorLayout::DN);
  EXPECT_EQ(tensor->view->pad, PadValue::Zero);
  EXPECT_EQ(tensor->view->valid_shape[0].get(), tensor->shape[0].get()) << "the dynamic dim M stays one variable";

  auto tile = As<TileType>(RoundTrip(FullTileType()));
  ASSERT_TRUE(tile && tile->memref);
  EXPECT_EQ(tile->blayout, TileLayout::ColMajor);
  EXPECT_EQ(tile->slayout, TileLayout::RowMajor);
  EXPECT_EQ(tile->fractal, 512);
  EXPECT_EQ(tile->pad, PadValue::Max);
  EXPECT_EQ(tile->memref->size, 2048);
  EXPECT_EQ(tile->memref->name_hint, "mem");
  EXPECT_EQ(AsConstInt(tile->memref->byte_offset), 256);
  EXPECT_EQ(tile->memref->base->name_hint, "base");
}

TEST(Serialize, FunctionsAndProgramsRoundTrip) {
  auto function = std::make_shared<Function>(*SumFunction());
  function->level = Level::CHIP;
  function->role = Role::Orchestrator;
  function->attrs = {{"inline", false}};
  RoundTrip(function);

  auto caller_x = IndexVar("x");
  auto call = Call::Make(GlobalVar::Make("sum"), {caller_x}, {}, Index());
  auto caller = Function::Make("main", FunctionType::Orchestration, {caller_x}, {ParamDirection::InOut}, {Index()},
                               ReturnStmt::Make({call}));
  auto program = Program::Make("prog", {SumFunction(), TileAddFunction(), caller});
  auto loaded = As<Program>(RoundTrip(program));
  ASSERT_TRUE(loaded);
  ASSERT_EQ(loaded->functions.size(), 3u);
  EXPECT_EQ(loaded->functions[0]->name, "add");
  EXPECT_EQ(loaded->functions[1]->name, "main");
  EXPECT_EQ(loaded->functions[1]->param_directions[0], ParamDirection::InOut);
  auto loaded_call = As<Call>(As<ReturnStmt>(loaded->functions[1]->body)->values[0]);
  EXPECT_TRUE(loaded_call->is_function_call());
  EXPECT_EQ(loaded_call->callee_name(), "sum");
}

TEST(Serialize, AttrsOfEveryKindRoundTrip) {
  double nan = std::numeric_limits<double>::quiet_NaN();
  Attrs attrs{{"b", true},
              {"i", std::numeric_limits<int64_t>::min()},
              {"f", nan},
              {"s", std::string("text")},
              {"d", DataType::HF8},
              {"e", EnumAttr::Of(MemorySpace::Acc)},
              {"x", ExprPtr(Int(3))},
              {"li", std::vector<int64_t>{1, -2}},
              {"ls", std::vector<std::string>{"p", ""}},
              {"le", std::vector<ExprPtr>{Int(1), Bool(false)}}};
  std::set<size_t> alternatives;
  for (const auto& [key, value] : attrs) alternatives.insert(value.index());
  ASSERT_EQ(alternatives.size(), std::variant_size_v<AttrValue>) << "every AttrValue alternative has a sample";

  auto loaded = As<Call>(RoundTrip(Call::Make(Op::Get("tile.add"), {}, attrs, nullptr, pypto::Span(), attrs)));
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->attrs.size(), attrs.size());
  EXPECT_EQ(loaded->kwargs.Get<int64_t>("i"), std::numeric_limits<int64_t>::min());
  EXPECT_EQ(std::bit_cast<uint64_t>(*loaded->kwargs.Get<double>("f")), std::bit_cast<uint64_t>(nan));
  EXPECT_EQ(loaded->kwargs.Get<DataType>("d"), DataType::HF8);
  EXPECT_EQ(loaded->kwargs.GetEnum<MemorySpace>("e"), MemorySpace::Acc);
  EXPECT_EQ(loaded->kwargs.Get<std::vector<std::string>>("ls"), (std::vector<std::string>{"p", ""}));
}

// ------------------------------------------------------------ sharing and identity

TEST(Serialize, VariableIdentityIsPreserved) {
  auto x = IndexVar("x");
  auto twin = IndexVar("x");
  auto seq = As<SeqStmts>(MakeSeq({AssignStmt::Make(x, Int(1)), EvalStmt::Make(Plus(x, twin))}));
  auto loaded = As<SeqStmts>(RoundTrip(seq));
  ASSERT_TRUE(loaded);
  auto defined = As<AssignStmt>(loaded->stmts[0])->var;
  auto sum = As<BinaryExpr>(As<EvalStmt>(loaded->stmts[1])->expr);
  EXPECT_EQ(sum->lhs.get(), defined.get());
  EXPECT_NE(sum->rhs.get(), defined.get()) << "two variables named x stay two variables";
  EXPECT_NE(defined->unique_id, x->unique_id) << "loaded variables are new variables";
}

TEST(Serialize, SharedSubtreesStayShared) {
  auto shared_type = TensorType::Make(std::vector<int64_t>{16}, DataType::FP32);
  auto a = Var::Make("a", shared_type);
  auto b = Var::Make("b", shared_type);
  auto shared_expr = Call::Make(Op::Get("tile.add"), {a, b}, {}, shared_type);
  auto seq = As<SeqStmts>(MakeSeq({EvalStmt::Make(shared_expr), EvalStmt::Make(shared_expr)}));
  auto loaded = As<SeqStmts>(RoundTrip(seq));
  ASSERT_TRUE(loaded);
  auto first = As<Call>(As<EvalStmt>(loaded->stmts[0])->expr);
  auto second = As<Call>(As<EvalStmt>(loaded->stmts[1])->expr);
  EXPECT_EQ(first.get(), second.get());
  EXPECT_EQ(first->args[0]->type.get(), first->args[1]->type.get());
  EXPECT_EQ(first->type.get(), first->args[0]->type.get());
  EXPECT_EQ(first->op.get(), Op::Get("tile.add").get()) << "ops are interned";
}

TEST(Serialize, UnknownTypeStaysTheSingleton) {
  auto loaded = As<Call>(RoundTrip(Call::Make(Op::Get("system.barrier"), {}, {}, nullptr)));
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->type.get(), UnknownType::Make().get());
}

TEST(Serialize, NamesSpansAndCommentsArePreserved) {
  auto x = Var::Make("input_tile", Index(), pypto::Span("k.py", 3, 7, 3, 17));
  auto assign = std::make_shared<AssignStmt>(*AssignStmt::Make(x, Int(1), pypto::Span("k.py", 4, 5, 4, 20)));
  assign->leading_comments = {"# first", "# second"};
  auto loaded = As<AssignStmt>(RoundTrip(assign));
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->leading_comments, (std::vector<std::string>{"# first", "# second"}));
  EXPECT_EQ(loaded->span, pypto::Span("k.py", 4, 5, 4, 20));
  EXPECT_EQ(loaded->var->name_hint, "input_tile");
  EXPECT_EQ(loaded->var->span, pypto::Span("k.py", 3, 7, 3, 17));
}

TEST(Serialize, NullRootRoundTrips) { EXPECT_EQ(Deserialize(Serialize(nullptr)), nullptr); }

TEST(Serialize, JsonShowsTheHeaderAndReferences) {
  auto x = IndexVar("x");
  std::string text = SerializeToJson(Plus(x, x));
  auto document = Json::parse(text);
  EXPECT_EQ(document["format"], "pypto-ir");
  EXPECT_EQ(document["version"], 1);
  EXPECT_EQ(document["root"]["type"], "BinaryExpr");
  EXPECT_EQ(document["root"]["fields"]["lhs"]["type"], "Var");
  EXPECT_EQ(document["root"]["fields"]["rhs"], Json({{"ref", document["root"]["fields"]["lhs"]["id"]}}));
  EXPECT_NE(text.find("\n  \"version\": 1"), std::string::npos) << "indented by 2";
}

// ------------------------------------------------------------ files

TEST_F(FileTest, SaveAndLoadRoundTrip) {
  auto path = dir_ / "prog.ptoir";
  auto program = TwoFunctionProgram();
  SaveToFile(program, path);
  EXPECT_TRUE(StructuralEqual(program, LoadFromFile(path), true));
}

TEST_F(FileTest, MissingFileIsAnIOErrorNamingThePath) {
  auto path = dir_ / "missing.ptoir";
  EXPECT_EQ(ErrorMessage([&] { LoadFromFile(path); }, pypto::ErrorKind::kIO),
            "LoadFromFile: cannot open '" + path.string() + "': No such file or directory");
}

TEST_F(FileTest, UnwritablePathIsAnIOErrorNamingThePath) {
  auto path = dir_ / "no_such_dir" / "prog.ptoir";
  EXPECT_EQ(ErrorMessage([&] { SaveToFile(Int(1), path); }, pypto::ErrorKind::kIO),
            "SaveToFile: cannot open '" + path.string() + "' for writing: No such file or directory");
}

TEST_F(FileTest, CorruptFileNamesThePath) {
  auto path = dir_ / "bad.ptoir";
  std::ofstream(path) << "definitely not msgpack";
  std::string message = ErrorMessage([&] { LoadFromFile(path); });
  std::string expected_start =
      "LoadFromFile '" + path.string() + "': Deserialize: the 22 bytes are not valid MessagePack";
  EXPECT_EQ(message.rfind(expected_start, 0), 0u) << message;
}

// ------------------------------------------------------------ malformed input

TEST(Deserialize, TruncatedInputIsRejected) {
  auto bytes = Serialize(TwoFunctionProgram());
  bytes.resize(bytes.size() / 2);
  std::string message = ErrorMessage([&] { Deserialize(bytes); });
  EXPECT_EQ(message.rfind("Deserialize: the " + std::to_string(bytes.size()) +
                              " bytes are not valid MessagePack (truncated or corrupted data): ",
                          0),
            0u)
      << message;
  EXPECT_EQ(ErrorMessage([] { Deserialize({}); }).rfind("Deserialize: the 0 bytes are not valid MessagePack", 0), 0u);
}

TEST(Deserialize, CorruptedBytesNeverCrash) {
  const auto original = Serialize(TwoFunctionProgram());
  size_t rejected = 0;
  for (size_t i = 0; i < original.size(); ++i) {
    auto flipped = static_cast<uint8_t>(original[i] ^ 0x10);
    for (uint8_t replacement : {uint8_t{0x00}, uint8_t{0xc1}, uint8_t{0xff}, flipped}) {
      auto bytes = original;
      bytes[i] = replacement;
      try {
        Deserialize(bytes);
      } catch (const pypto::Error& e) {
        ASSERT_EQ(e.kind(), pypto::ErrorKind::kValue) << e.what();
        ASSERT_EQ(e.message().rfind("Deserialize: ", 0), 0u) << e.what();
        ++rejected;
      }
    }
  }
  EXPECT_GT(rejected, original.size()) << "0xc1 is never valid MessagePack, so every position rejects at least once";
}

ExprPtr AdditionChain(int length) {
  ExprPtr sum = Int(0);
  for (int i = 1; i <= length; ++i) sum = Plus(sum, Int(i));
  return sum;
}

TEST(Serialize, DeepExpressionsRoundTripUpToTheNestingLimit) {
  RoundTrip(AdditionChain(1500));
  EXPECT_EQ(ErrorMessage([] { Serialize(AdditionChain(2100)); }),
            "Serialize: the IR nests deeper than 4096 levels (about 2048 nested IR nodes), more than Deserialize "
            "reads back; split the deeply nested expression with assignments");
}

TEST(Deserialize, DeeplyNestedDataIsRejectedBeforeParsing) {
  std::vector<uint8_t> nested_lists(200000, 0x91);  // a list holding a list holding ...
  nested_lists.push_back(0xc0);
  EXPECT_EQ(ErrorMessage([&] { Deserialize(nested_lists); }),
            "Deserialize: the data nests deeper than 4096 levels (about 2048 nested IR nodes), the most Deserialize "
            "reads; it is corrupted or was not written by Serialize");
}

TEST(Deserialize, ForeignDocumentsAreRejected) {
  EXPECT_EQ(DeserializeError(Json(42)),
            "Deserialize: expected a header map {\"format\": \"pypto-ir\", ...} but the data holds an integer; this "
            "is not serialized PyPTO IR");
  EXPECT_EQ(DeserializeError(Json{{"format", "onnx"}, {"version", 1}, {"root", nullptr}}),
            "Deserialize: the header's \"format\" is \"onnx\", expected \"pypto-ir\"; this is not serialized PyPTO IR");
  EXPECT_EQ(DeserializeError(Json{{"version", 1}}), "Deserialize: the header has no \"format\" entry");
  EXPECT_EQ(DeserializeError(Json{{"format", "pypto-ir"}, {"version", 2}, {"root", nullptr}}),
            "Deserialize: the data has format version 2 but this build reads version 1; re-serialize it with a "
            "matching PyPTO");
  EXPECT_EQ(DeserializeError(Json{{"format", "pypto-ir"}, {"version", 1}}),
            "Deserialize: the header has no \"root\" entry");
}

TEST(Deserialize, UnknownNodeTypeIsNamedWithItsPlace) {
  auto document = DocumentOf(AssignStmt::Make(IndexVar("x"), Plus(Int(1), Int(2))));
  document["root"]["fields"]["value"]["type"] = "Frobnicate";
  EXPECT_EQ(DeserializeError(document),
            "Deserialize: unknown node type 'Frobnicate'; the data may come from a newer PyPTO (at value)");
}

TEST(Deserialize, FieldsOfTheWrongKindAreRejected) {
  auto document = DocumentOf(AssignStmt::Make(IndexVar("x"), Int(1)));
  document["root"]["fields"]["var"] = document["root"]["fields"]["value"];
  document["root"]["fields"]["value"] = {{"ref", 99}};
  EXPECT_EQ(DeserializeError(document), "Deserialize: expected a Var but found a ConstInt (at var)");

  auto loop = DocumentOf(ForStmt::Make(IndexVar("i"), Int(0), Int(4), Int(1), {}, BreakStmt::Make(), {}));
  Json start = loop["root"]["fields"]["start"];
  loop["root"]["fields"]["body"] = start;
  EXPECT_EQ(DeserializeError(loop), "Deserialize: node id " + start["id"].dump() + " is defined twice (at body)");
  loop["root"]["fields"]["body"] = {{"ref", start["id"]}};
  EXPECT_EQ(DeserializeError(loop), "Deserialize: expected a statement but found a ConstInt (at body)");

  auto it = IterArg::Make("k", Index(), Int(0));
  auto carried = DocumentOf(ForStmt::Make(IndexVar("i"), Int(0), Int(4), Int(1), {it}, YieldStmt::Make({it}), {}));
  carried["root"]["fields"]["iter_args"][0]["type"] = "Var";
  carried["root"]["fields"]["iter_args"][0]["fields"].erase("init_value");
  EXPECT_EQ(DeserializeError(carried), "Deserialize: expected an IterArg but found a Var (at iter_args[0])");
}

TEST(Deserialize, DanglingReferencesAreRejected) {
  auto document = DocumentOf(EvalStmt::Make(Int(1)));
  document["root"]["fields"]["expr"] = {{"ref", 99}};
  EXPECT_EQ(DeserializeError(document),
            "Deserialize: reference to node 99, which is not defined before it (at expr)");
  document["root"]["fields"]["expr"] = {{"ref", 0}};
  EXPECT_EQ(DeserializeError(document), "Deserialize: reference to node 0, which is not defined before it (at expr)")
      << "a node cannot contain itself";
}

TEST(Deserialize, MissingAndUnknownFieldsAreRejected) {
  auto document = DocumentOf(AssignStmt::Make(IndexVar("x"), Int(1)));
  auto missing = document;
  missing["root"]["fields"].erase("value");
  EXPECT_EQ(DeserializeError(missing), "Deserialize: AssignStmt has no \"value\" entry");
  auto extra = document;
  extra["root"]["fields"]["priority"] = 3;
  EXPECT_EQ(DeserializeError(extra),
            "Deserialize: AssignStmt has no field 'priority'; the data may come from a newer PyPTO");
  auto no_comments = document;
  no_comments["root"].erase("leading_comments");
  EXPECT_EQ(DeserializeError(no_comments), "Deserialize: AssignStmt has no \"leading_comments\" entry");
}

TEST(Deserialize, BadScalarValuesAreRejected) {
  auto document = DocumentOf(Int(5));
  auto bad_dtype = document;
  bad_dtype["root"]["fields"]["type"]["fields"]["dtype"] = 0x99;
  EXPECT_EQ(DeserializeError(bad_dtype), "Deserialize: unknown DataType code 153 (at type.dtype)");
  auto too_big = document;
  too_big["root"]["fields"]["value"] = std::numeric_limits<uint64_t>::max();
  EXPECT_EQ(DeserializeError(too_big),
            "Deserialize: the value 18446744073709551615 is out of range [-9223372036854775808, 9223372036854775807] "
            "(at value)");
  auto wrong_json_kind = document;
  wrong_json_kind["root"]["fields"]["value"] = "five";
  EXPECT_EQ(DeserializeError(wrong_json_kind),
            "Deserialize: expected an integer value but found a string (at value)");
  auto bad_span = document;
  bad_span["root"]["span"] = Json::array({"f.py", 1});
  EXPECT_EQ(DeserializeError(bad_span),
            "Deserialize: a span must be [file, begin_line, begin_col, end_line, end_col] but is [\"f.py\",1]");

  auto loop = DocumentOf(ForStmt::Make(IndexVar("i"), Int(0), Int(4), Int(1), {}, BreakStmt::Make(), {}));
  loop["root"]["fields"]["for_kind"] = 9;
  EXPECT_EQ(DeserializeError(loop), "Deserialize: 9 is not a ForKind value (at for_kind)");

  auto sum = DocumentOf(Plus(Int(1), Int(2)));
  sum["root"]["fields"]["op"] = 200;
  EXPECT_EQ(DeserializeError(sum), "Deserialize: 200 is not a BinaryOp value (at op)");
}

TEST(Deserialize, MalformedAttrsAreRejected) {
  auto document = DocumentOf(Call::Make(Op::Get("tile.add"), {}, {{"k", int64_t{1}}}, nullptr));
  auto unknown_kind = document;
  unknown_kind["root"]["fields"]["kwargs"][0][1][0] = "complex";
  EXPECT_EQ(DeserializeError(unknown_kind), "Deserialize: unknown attribute value kind 'complex' (at kwargs[\"k\"])");
  auto wrong_value = document;
  wrong_value["root"]["fields"]["kwargs"][0][1][1] = "one";
  EXPECT_EQ(DeserializeError(wrong_value),
            "Deserialize: expected an integer value but found a string (at kwargs[\"k\"])");
  auto flat = document;
  flat["root"]["fields"]["kwargs"][0] = Json::array({"k", 1});
  EXPECT_EQ(DeserializeError(flat),
            "Deserialize: attribute entry 0 is not [key, [kind, value]]: [\"k\",1] (at kwargs)");
}
