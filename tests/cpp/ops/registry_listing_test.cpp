// The registry as a whole: listing order, declarations every op must carry,
// placement per op, and the read/write effects passes rely on.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "op_test_util.h"

namespace pypto::ops::testing {
namespace {

std::vector<const OpDef*> OurOps() {
  std::vector<const OpDef*> ops;
  for (const OpDef* op : OpRegistry::Global().List()) {
    const std::string ns = op->name_space();
    if (ns == "tensor" || ns == "tile" || ns == "system" || ns == "array") ops.push_back(op);
  }
  return ops;
}

TEST(OpRegistryListing, NamesAreSortedAndUnique) {
  std::vector<std::string> names;
  for (const OpDef* op : OpRegistry::Global().List()) names.push_back(op->name());
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size());
}

TEST(OpRegistryListing, RegistersTheOperatorSet) {
  std::map<std::string, int> per_namespace;
  for (const OpDef* op : OurOps()) ++per_namespace[op->name_space()];
  EXPECT_EQ(per_namespace["tensor"], 95);
  EXPECT_EQ(per_namespace["tile"], 103);
  EXPECT_EQ(per_namespace["system"], 24);
  EXPECT_EQ(per_namespace["array"], 3);
}

TEST(OpRegistryListing, EveryOpIsDescribedAndDeducesTypes) {
  for (const OpDef* op : OurOps()) {
    EXPECT_FALSE(op->description().empty()) << op->name();
    EXPECT_TRUE(op->has_type_deduce()) << op->name();
  }
}

const std::set<std::string> kPipeOps = {"tile.tpush_to_aiv",          "tile.tpush_to_aic",
                                        "tile.tpop_from_aic",         "tile.tpop_from_aiv",
                                        "system.tfree_to_aic",        "system.tfree_to_aiv",
                                        "system.aic_initialize_pipe", "system.aiv_initialize_pipe",
                                        "system.reserve_buffer",      "system.import_peer_buffer"};

TEST(OpRegistryListing, CategoriesFollowNamespaces) {
  for (const OpDef* op : OurOps()) {
    const std::string ns = op->name_space();
    // The distributed ops (pld): the tile forms are tile ops to the memory planner, the rest comm ops.
    if (op->dsl_module() == "pld") {
      EXPECT_EQ(op->category(), ns == "tile" ? OpCategory::kTileOp : OpCategory::kCommOp) << op->name();
      continue;
    }
    // The cross-core pipe ops keep upstream's names: tpush/tpop in tile, tfree and the inits in system.
    if (kPipeOps.count(op->name())) {
      EXPECT_EQ(op->category(), OpCategory::kCrossCoreOp) << op->name();
      continue;
    }
    if (ns == "system") {
      EXPECT_TRUE(op->category() == OpCategory::kSyncOp || op->category() == OpCategory::kSystemOp) << op->name();
      continue;
    }
    const std::map<std::string, OpCategory> expected = {
        {"tensor", OpCategory::kTensorOp}, {"tile", OpCategory::kTileOp}, {"array", OpCategory::kArrayOp}};
    EXPECT_EQ(op->category(), expected.at(ns)) << op->name();
  }
}

// A @pl.jit.host orchestrator's own ops, and the collectives it shares with kernels.
const std::set<std::string> kHostOrchestratorOps = {"system.world_size", "system.dispatch", "tensor.alloc_window_buffer",
                                                    "tensor.window", "tensor.rank_slice", "tensor.host_slice"};
const std::set<std::string> kCollectives = {"tensor.allreduce",      "tensor.barrier",   "tensor.broadcast",
                                            "tensor.reduce_scatter", "tensor.allgather", "tensor.all_to_all",
                                            "tensor.all_to_all_v"};

TEST(OpRegistryListing, Placement) {
  const std::set<std::string> control_plane = {"tensor.slice", "tensor.reshape", "tensor.transpose", "tensor.dim",
                                               "tensor.read",  "tensor.write",   "tensor.assemble"};
  for (const OpDef* op : OurOps()) {
    const std::string ns = op->name_space();
    Placement expected = Placement::kAnywhere;
    if (op->name() == "tensor.create" || op->name() == "tensor.dump_tag" || op->name() == "system.task_dummy") {
      expected = Placement::kOrchestrationOnly;
    } else if (kHostOrchestratorOps.count(op->name())) {
      expected = Placement::kHostOnly;
    } else if (kCollectives.count(op->name())) {
      expected = Placement::kInCoreOrHost;
    } else if (ns == "tile" || op->category() == OpCategory::kSyncOp || kPipeOps.count(op->name()) ||
               op->dsl_module() == "pld" ||
               (ns == "tensor" && !control_plane.count(op->name()))) {
      expected = Placement::kInCoreOnly;
    }
    EXPECT_EQ(op->placement(), expected) << op->name() << " is placed " << PlacementName(op->placement());
  }
}

// Ops whose result is one of their arguments' storage, and that argument's effect.
const std::map<std::string, std::pair<int, ArgEffect>> kWriters = {
    {"tensor.assemble", {0, ArgEffect::kReadWrite}},   {"tensor.write", {0, ArgEffect::kWrite}},
    {"tensor.matmul_acc", {0, ArgEffect::kReadWrite}}, {"tile.store", {2, ArgEffect::kWrite}},
    {"tile.assemble", {0, ArgEffect::kReadWrite}},     {"tile.write", {0, ArgEffect::kReadWrite}},
    {"tile.matmul_acc", {0, ArgEffect::kReadWrite}},   {"array.update_element", {0, ArgEffect::kReadWrite}},
};

TEST(OpRegistryListing, WritersDeclareTheirEffectAndReuse) {
  for (const auto& [name, effect] : kWriters) {
    const OpDef& op = OpRegistry::Global().Get(name);
    EXPECT_EQ(op.output_reuses_input(), effect.first) << name;
    EXPECT_EQ(op.arg_effect(effect.first), effect.second) << name;
  }
}

// The distributed ops write windows, locally or on a peer: each declares an effect on its window
// operands, so that the tasks touching one window keep their order on this rank.
const std::map<std::string, std::vector<int>> kCommWriters = {
    {"system.notify", {0}},         {"system.wait", {0}},        {"tile.remote_store", {1}},
    {"tensor.put", {0}},            {"tensor.get", {0}},         {"tensor.remote_store", {1}},
    {"tensor.allreduce", {0, 1}},   {"tensor.barrier", {0}},     {"tensor.broadcast", {0, 1}},
    {"tensor.reduce_scatter", {0, 1}}, {"tensor.allgather", {1, 2}}, {"tensor.all_to_all", {1, 2}},
    {"tensor.all_to_all_v", {1, 2, 4}},
};

TEST(OpRegistryListing, CommOpsDeclareTheirWindowEffects) {
  for (const auto& [name, windows] : kCommWriters) {
    const OpDef& op = OpRegistry::Global().Get(name);
    EXPECT_EQ(op.dsl_module(), "pld") << name;
    for (int index : windows) EXPECT_NE(op.arg_effect(index), ArgEffect::kRead) << name << " argument " << index;
  }
}

// A cross-core pipe's free hands the popped tile's slot back to the producer, which overwrites it: for the order
// of this core's pipes the free writes the tile (InsertPipeSync makes it wait for the tile's readers). It returns
// nothing, so it reuses no argument.
const std::set<std::string> kSlotReleasers = {"system.tfree_to_aic", "system.tfree_to_aiv"};

TEST(OpRegistryListing, AFreeWritesThePoppedTileForTheOrderOfThePipes) {
  for (const std::string& name : kSlotReleasers) {
    const OpDef& op = OpRegistry::Global().Get(name);
    EXPECT_EQ(op.arg_effect(0), ArgEffect::kReadWrite) << name;
    EXPECT_FALSE(op.output_reuses_input()) << name;
  }
}

TEST(OpRegistryListing, OnlyDeclaredWritersWrite) {
  for (const OpDef* op : OurOps()) {
    if (kCommWriters.count(op->name()) || kSlotReleasers.count(op->name())) continue;
    for (const auto& [index, effect] : op->arg_effects()) {
      if (effect == ArgEffect::kRead) continue;
      EXPECT_TRUE(kWriters.count(op->name()))
          << op->name() << " has effect " << ArgEffectName(effect) << " on argument " << index;
    }
    if (auto reused = op->output_reuses_input()) {
      EXPECT_NE(op->arg_effect(*reused), ArgEffect::kRead) << op->name() << " reuses an argument it only reads";
    }
  }
}

TEST(OpRegistryListing, KeywordDependentEffects) {
  const OpDef& store = OpRegistry::Global().Get("tile.store");
  EXPECT_EQ(store.arg_effect(2, Attrs{}), ArgEffect::kWrite);
  EXPECT_EQ(store.arg_effect(2, Attrs{{"atomic", int64_t{1}}}), ArgEffect::kReadWrite);
  EXPECT_EQ(store.arg_effect(0, Attrs{{"atomic", int64_t{1}}}), ArgEffect::kRead);
  const OpDef& syncall = OpRegistry::Global().Get("system.syncall");
  EXPECT_EQ(syncall.arg_effect(0, Attrs{}), ArgEffect::kRead);
  EXPECT_EQ(syncall.arg_effect(0, Attrs{{"mode", std::string("soft")}}), ArgEffect::kReadWrite);
}

TEST(OpRegistryListing, InplaceHazardsAreMarked) {
  for (const char* name : {"tile.move", "tile.transpose", "tile.row_sum", "tile.recip", "tile.rsqrt", "tile.extract",
                           "tile.concat", "tile.fmod", "tile.cast"}) {
    EXPECT_TRUE(OpRegistry::Global().Get(name).not_inplace_safe()) << name;
  }
  EXPECT_FALSE(OpRegistry::Global().Get("tile.add").not_inplace_safe());
}

TEST(OpRegistryListing, MemoryRulesOfDataMovement) {
  const OpRegistry& reg = OpRegistry::Global();
  EXPECT_EQ(*reg.Get("tile.store").input_memory(0), (std::vector<MemorySpace>{MemorySpace::Vec, MemorySpace::Acc}));
  EXPECT_EQ(*reg.Get("tile.matmul").input_memory(0), std::vector<MemorySpace>{MemorySpace::Left});
  EXPECT_EQ(*reg.Get("tile.matmul").input_memory(1), std::vector<MemorySpace>{MemorySpace::Right});
  EXPECT_EQ(reg.Get("tile.matmul").output_memory().kind, OutputMemoryRule::Kind::kFixed);
  EXPECT_EQ(reg.Get("tile.matmul").output_memory().space, MemorySpace::Acc);
  EXPECT_EQ(reg.Get("tile.load").output_memory().kind, OutputMemoryRule::Kind::kFromKwarg);
  EXPECT_EQ(reg.Get("tile.load").output_memory().kwarg, "target_memory");
  EXPECT_EQ(reg.Get("tile.slice").output_memory().kind, OutputMemoryRule::Kind::kInheritInput);
  EXPECT_EQ(reg.Get("tile.add").output_memory().space, MemorySpace::Vec);
}

TEST(OpRegistryListing, SignaturesShowTheSchema) {
  EXPECT_EQ(OpRegistry::Global().Get("tile.load").Signature(),
            "tile.load(tensor, offsets, shapes, valid_shape=None, target_memory=...)");
  EXPECT_EQ(OpRegistry::Global().Get("tensor.matmul").Signature(),
            "tensor.matmul(lhs, rhs, out_dtype=..., a_trans=..., b_trans=...)");
  EXPECT_EQ(OpRegistry::Global().Get("tile.move").Signature(), "tile.move(tile, target_memory)");
}

TEST(OpRegistryListing, CreateBuildsATypedCallOfTheInternedOp) {
  auto a = Tensor({64, 32});
  CallPtr call = OpRegistry::Global().Create("tensor.add", {a, a});
  EXPECT_EQ(call->op, Op::Get("tensor.add"));
  EXPECT_EQ(Describe(call->type), "Tensor[[64, 32], FP32]");
  EXPECT_EQ(Describe(OpRegistry::Global().DeduceType(*call)), "Tensor[[64, 32], FP32]");
}

}  // namespace
}  // namespace pypto::ops::testing
