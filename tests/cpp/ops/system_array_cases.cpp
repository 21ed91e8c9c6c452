// system.* and array.* cases.
#include "op_test_util.h"

namespace pypto::ops::testing {

namespace {
const std::vector<std::string> kBarriers = {"system.bar_v", "system.bar_m", "system.bar_all", "system.fence"};
const std::vector<std::string> kFlags = {"system.sync_src", "system.sync_dst"};
const std::vector<std::string> kQueries = {"system.available_cluster_count", "system.available_aiv_count"};

Attrs FlagKwargs(int64_t set_pipe, int64_t wait_pipe, int64_t event_id) {
  return {{"set_pipe", set_pipe}, {"wait_pipe", wait_pipe}, {"event_id", event_id}};
}
}  // namespace

std::vector<SuccessCase> SystemArraySuccessCases() {
  ExprPtr tasks = Var::Make("tasks", ArrayType::Make(DataType::TASK_ID, Int(4)));
  std::vector<SuccessCase> cases = {
      {"system.syncall", {}, {}, "Unknown"},
      {"system.syncall",
       {Tensor({16}, DataType::INT32), Int(8)},
       {{"mode", std::string("soft")}, {"core_type", std::string("aiv_only")}},
       "Unknown"},
      {"system.task_dummy", {}, {}, "Scalar[TASK_ID]"},
      {"system.task_dummy",
       {},
       {{"deps", std::vector<ExprPtr>{Scalar(DataType::TASK_ID, "tid"), tasks}}},
       "Scalar[TASK_ID]"},
      {"array.create", {Int(4)}, {{"dtype", DataType::TASK_ID}}, "Array[4, TASK_ID]"},
      {"array.create", {Int(2)}, {{"dtype", DataType::BOOL}}, "Array[2, BOOL]"},
      {"array.get_element", {tasks, Int(3)}, {}, "Scalar[TASK_ID]"},
      {"array.get_element", {tasks, Scalar(DataType::INDEX, "i")}, {}, "Scalar[TASK_ID]"},
      {"array.update_element", {tasks, Int(0), Scalar(DataType::TASK_ID, "tid")}, {}, "Array[4, TASK_ID]"},
      {"array.update_element",
       {Var::Make("counts", ArrayType::Make(DataType::INT32, Int(8))), Int(7), Int(1)},
       {},
       "Array[8, INT32]"},
  };
  for (const auto& op : kBarriers) cases.push_back({op, {}, {}, "Unknown"});
  for (const auto& op : kFlags) cases.push_back({op, {}, FlagKwargs(1, 4, 0), "Unknown"});
  for (const auto& op : kQueries) cases.push_back({op, {}, {}, "Scalar[INT32]"});
  return cases;
}

std::vector<ErrorCase> SystemArrayErrorCases() {
  ExprPtr tasks = Var::Make("tasks", ArrayType::Make(DataType::TASK_ID, Int(4)));
  std::vector<ErrorCase> cases = {
      {"system.syncall",
       {Tensor({16}, DataType::INT32)},
       {},
       "system.syncall: mode='hard' takes no arguments; pass mode='soft' to use gm_workspace"},
      {"system.syncall",
       {},
       {{"mode", std::string("soft")}},
       "system.syncall: mode='soft' needs the gm_workspace argument"},
      {"system.syncall",
       {Tensor({8}, DataType::INT32)},
       {{"mode", std::string("soft")}},
       "system.syncall: gm_workspace [8] holds 8 elements; the soft barrier needs at least 16"},
      {"system.syncall",
       {Tensor({16}, DataType::FP32)},
       {{"mode", std::string("soft")}},
       "system.syncall: argument 'gm_workspace' (position 0) must be an INT32 Tensor, got Tensor[[16], FP32]"},
      {"system.syncall",
       {},
       {{"core_type", std::string("cube")}},
       "system.syncall: keyword 'core_type' must be 'aiv_only', 'aic_only' or 'mix', got 'cube'"},
      {"system.syncall",
       {},
       {{"mode", std::string("spin")}},
       "system.syncall: keyword 'mode' must be 'hard' or 'soft', got 'spin'"},
      {"system.sync_src",
       {},
       FlagKwargs(8, 4, 0),
       "system.sync_src: keyword 'set_pipe' must be one of 0=MTE1, 1=MTE2, 2=MTE3, 3=M, 4=V, 5=S, 6=FIX, 7=ALL, got 8"},
      {"system.sync_dst", {}, FlagKwargs(1, 4, 8), "system.sync_dst: keyword 'event_id' must be 0..7, got 8"},
      {"system.sync_dst",
       {},
       {{"set_pipe", int64_t{1}}, {"wait_pipe", int64_t{4}}},
       "system.sync_dst is missing the required keyword argument 'event_id'"},
      {"system.task_dummy",
       {},
       {{"deps", std::vector<ExprPtr>{Scalar(DataType::TASK_ID, "tid"), Scalar(DataType::INDEX, "i")}}},
       "system.task_dummy: deps entry 1 has type Scalar[INDEX]; deps= takes task ids (pl.Scalar[pl.TASK_ID]) or "
       "arrays of them"},
      {"array.create", {Int(0)}, {{"dtype", DataType::INT32}}, "array.create: extent must be positive, got 0"},
      {"array.create",
       {Scalar(DataType::INDEX, "n")},
       {{"dtype", DataType::INT32}},
       "array.create: argument 'extent' (position 0) must be an integer constant, got Scalar[INDEX]"},
      {"array.create",
       {Int(4)},
       {{"dtype", DataType::FP32}},
       "array.create: dtype must be an integer, BOOL or TASK_ID, got FP32"},
      {"array.get_element",
       {tasks, Int(4)},
       {},
       "array.get_element: index 4 is out of range for an array of 4 elements"},
      {"array.get_element",
       {Tensor({4}), Int(0)},
       {},
       "array.get_element: argument 'array' (position 0) must be an Array, got Tensor[[4], FP32]"},
      {"array.get_element",
       {tasks, Float(1.0)},
       {},
       "array.get_element: argument 'index' (position 1) must be an integer scalar, got Scalar[FP32]"},
      {"array.update_element",
       {tasks, Int(0), Int(1)},
       {},
       "array.update_element: argument 'value' (position 2) must be a TASK_ID scalar, got Scalar[INDEX]"},
  };
  for (const auto& op : kBarriers) {
    cases.push_back({op, {Int(0)}, {}, op + " takes 0 positional argument(s) but 1 were given"});
  }
  for (const auto& op : kQueries) {
    cases.push_back({op,
                     {},
                     {{"core_type", std::string("mix")}},
                     op + " got an unexpected keyword argument 'core_type'; it takes no keyword arguments"});
  }
  return cases;
}

}  // namespace pypto::ops::testing
