// InsertPipeSync on kernels built with the IR helpers and planned by the
// memory passes: its place in the pipelines, event ids when more than eight
// events of one pipe pair are live, and events that balance however often
// nested loops run. The printed-IR cases are in tests/passes/InsertPipeSync/.
#include "insert_pipe_sync.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "pypto/backend/platform.h"
#include "pypto/pass/manager.h"
#include "pypto/pass/pipeline.h"
#include "pypto/pass/registry.h"
#include "support/pass_test_util.h"

namespace pypto::test {
namespace {

using passes::InsertPipeSyncPass;

Attrs Vec() { return Attrs{{"target_memory", EnumAttr::Of(MemorySpace::Vec)}}; }

CallPtr LoadRows(const VarPtr& tensor, const ExprPtr& row) {
  return Op("tile.load", {tensor, MakeTuple::Make({row, Int(0)}), Tuple({16, 64})}, Vec());
}

// InitMemRef, MemoryReuse and AllocateMemoryAddr, then the pass.
ProgramPtr PlannedAndSynced(FunctionPtr kernel) {
  pass::PassManager manager(pass::ParsePipelineString(
      "name: sync\n"
      "input_properties: [SSAForm, TileMemoryInferred, IncoreTileOps]\n"
      "passes: [InitMemRef, MemoryReuse, AllocateMemoryAddr, InsertPipeSync]\n",
      "sync.yaml"));
  pass::PassContext ctx;
  ctx.set_platform(backend::Platform::Get("a2a3sim"));
  return manager.Run(Program::Make("kernels", {std::move(kernel)}), ctx);
}

// The events a kernel sets and waits for, executed: loops run `trips` times
// (or as their constant bounds say when `trips` < 0), and both branches of an
// if are tried. Returns the first misuse, "" when every wait has its set, no
// event is set twice and none is left set.
class EventReplay {
 public:
  explicit EventReplay(int trips) : trips_(trips) {}

  std::string Run(const StmtPtr& body) {
    Walk(body);
    if (error_.empty() && !set_.empty()) error_ = "an event is left set when the kernel returns";
    return error_;
  }

 private:
  void Walk(const StmtPtr& body) {
    for (const StmtPtr& s : Flatten(body)) {
      if (!error_.empty()) return;
      if (auto loop = As<ForStmt>(s)) {
        int trips = trips_;
        if (trips < 0) {
          trips = static_cast<int>((*AsConstInt(loop->stop) - *AsConstInt(loop->start)) / *AsConstInt(loop->step));
        }
        for (int i = 0; i < trips; ++i) Walk(loop->body);
      } else if (auto branch = As<IfStmt>(s)) {
        std::set<std::pair<std::string, int64_t>> before = set_;
        Walk(branch->then_body);
        std::set<std::pair<std::string, int64_t>> after_then = set_;
        set_ = before;
        if (branch->else_body) Walk(branch->else_body);
        if (set_ != after_then) error_ = "the branches of an if leave different events set";
      } else if (auto eval = As<EvalStmt>(s)) {
        Event(As<Call>(eval->expr));
      }
    }
  }

  void Event(const CallPtr& call) {
    if (!call) return;
    const std::string& op = call->op->name;
    if (op != "system.sync_src" && op != "system.sync_dst") return;
    std::string pair = std::to_string(*call->kwargs.Get<int64_t>("set_pipe")) + "->" +
                       std::to_string(*call->kwargs.Get<int64_t>("wait_pipe"));
    auto key = std::make_pair(pair, *call->kwargs.Get<int64_t>("event_id"));
    ids_[pair].insert(key.second);
    if (op == "system.sync_src" && !set_.insert(key).second) error_ = "event " + pair + " set twice";
    if (op == "system.sync_dst" && set_.erase(key) == 0) error_ = "wait for event " + pair + " that is not set";
  }

 public:
  std::map<std::string, std::set<int64_t>> ids_;

 private:
  int trips_;
  std::set<std::pair<std::string, int64_t>> set_;
  std::string error_;
};

TEST(InsertPipeSync, DescribesItself) {
  InsertPipeSyncPass pass;
  EXPECT_EQ(pass.name(), "InsertPipeSync");
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::IncoreTileOps));
  EXPECT_TRUE(pass.required().Has(pass::IRProperty::AllocatedMemoryAddr));
  EXPECT_TRUE(pass.produced().Has(pass::IRProperty::PipesSynchronized));
}

TEST(InsertPipeSync, IsRegisteredByItsPluginAndRunsLastInTheDefaultPipelines) {
  EXPECT_EQ(pass::PassRegistry::Global().Create("InsertPipeSync")->name(), "InsertPipeSync");
  for (const char* pipeline : {"default", "debug"}) {
    std::vector<std::string> names = pass::PassManager::FromPipeline(pipeline).pass_names();
    ASSERT_GE(names.size(), 2u);
    EXPECT_EQ(names.back(), "InsertPipeSync") << pipeline;
    EXPECT_EQ(names[names.size() - 2], "InsertCommFence") << pipeline;
  }
}

// Ten loads, then ten adds each of one loaded tile: ten MTE2 -> V events are
// live at once, and a pipe pair has eight.
FunctionPtr TenLoadsThenTenAdds() {
  auto x = TensorVar("x", {160, 64});
  auto out = TensorVar("out", {160, 64});
  std::vector<StmtPtr> body;
  std::vector<VarPtr> loaded(10), added(10);
  for (int i = 0; i < 10; ++i) body.push_back(Let(loaded[i], "t" + std::to_string(i), LoadRows(x, Int(16 * i))));
  for (int i = 0; i < 10; ++i) body.push_back(Let(added[i], "u" + std::to_string(i), Op("tile.adds", {loaded[i], Float(1.0)})));
  for (int i = 0; i < 10; ++i) {
    VarPtr stored;
    body.push_back(Let(stored, "r" + std::to_string(i), Op("tile.store", {added[i], Tuple({16 * i, 0}), out})));
  }
  body.push_back(Return({}));
  return Kernel({x, out}, {ParamDirection::In, ParamDirection::Out}, Seq(body), {});
}

TEST(InsertPipeSync, MoreLiveEventsThanIdsStillBalanceAndUseEightAtMost) {
  ProgramPtr synced = PlannedAndSynced(TenLoadsThenTenAdds());
  EventReplay replay(-1);
  EXPECT_EQ(replay.Run(synced->functions[0]->body), "") << Printed(synced);
  ASSERT_EQ(replay.ids_.count("1->4"), 1u) << Printed(synced);
  EXPECT_EQ(replay.ids_["1->4"].size(), 8u) << Printed(synced);
  for (int64_t id : replay.ids_["1->4"]) EXPECT_TRUE(id >= 0 && id < 8) << id;
}

// for i in range(0, 64, 16): for j in range(0, 64, 16): a row block is loaded,
// squared into a second buffer and stored; the outer loop adds the rows of a
// second tensor to its own block before the inner loop.
FunctionPtr NestedLoops() {
  auto x = TensorVar("x", {64, 64});
  auto y = TensorVar("y", {64, 64});
  auto out = TensorVar("out", {64, 64}, DataType::FP16);
  auto i = IndexVar("i");
  auto j = IndexVar("j");
  auto acc = IterArg::Make("acc", out->type, out);
  auto inner_acc = IterArg::Make("inner_acc", out->type, acc);
  VarPtr t, u, stored, yt, ys;
  auto inner_body = Seq({Let(t, "t", LoadRows(x, j)), Let(u, "u", Op("tile.cast", {t}, Attrs{{"target_type", DataType::FP16}})),
                         Let(stored, "stored", Op("tile.store", {u, MakeTuple::Make({j, Int(0)}), inner_acc})),
                         Yield({stored})});
  auto inner_out = Var::Make("inner_out", out->type);
  auto inner = ForStmt::Make(j, Int(0), Int(64), Int(16), {inner_acc}, inner_body, {inner_out});
  auto outer_body = Seq({Let(yt, "yt", LoadRows(y, i)), Let(ys, "ys", Op("tile.muls", {yt, Float(2.0)})),
                         inner, Yield({inner_out})});
  auto result = Var::Make("result", out->type);
  auto outer = ForStmt::Make(i, Int(0), Int(64), Int(16), {acc}, outer_body, {result});
  return Kernel({x, y, out}, {ParamDirection::In, ParamDirection::In, ParamDirection::Out},
                Seq({outer, Return({})}), {});
}

TEST(InsertPipeSync, EventsOfNestedLoopsBalanceForAnyTripCount) {
  ProgramPtr synced = PlannedAndSynced(NestedLoops());
  EventReplay once(1);
  once.Run(synced->functions[0]->body);
  EXPECT_GE(once.ids_.size(), 3u) << "the loops need events of several pipe pairs\n" << Printed(synced);
  if (std::getenv("PYPTO_TEST_PRINT")) std::cerr << Printed(synced);
  for (int trips : {0, 1, 3}) {
    EXPECT_EQ(EventReplay(trips).Run(synced->functions[0]->body), "") << trips << " trips\n" << Printed(synced);
  }
}

TEST(InsertPipeSync, ASecondRunReturnsTheSameProgram) {
  ProgramPtr once = PlannedAndSynced(NestedLoops());
  EXPECT_EQ(RunPass<InsertPipeSyncPass>(once), once);
}

TEST(InsertPipeSync, KernelsWithoutTileWorkAndOtherFunctionsAreReturnedAsTheyAre) {
  auto x = TensorVar("x", {16, 64});
  auto kernel = Kernel({x}, {ParamDirection::In}, Seq({Eval(Op("system.bar_all", {})), Return({})}), {});
  auto orchestration = Fn("main", FunctionType::Orchestration, {x}, {}, Seq({Return({})}));
  auto program = Program::Make("test", {kernel, orchestration});
  EXPECT_EQ(RunPass<InsertPipeSyncPass>(program), program);
}

}  // namespace
}  // namespace pypto::test
