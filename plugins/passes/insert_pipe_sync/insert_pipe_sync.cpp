#include "insert_pipe_sync.h"

#include <map>
#include <utility>
#include <vector>

#include "pypto/ir/mutator.h"
#include "pypto/ir/visitor.h"
#include "sync_placement.h"

namespace pypto::passes {

namespace {

// A kernel that sets or waits for events itself keeps its own order: an
// event the pass added could take one of its ids.
class UserEventFinder : public ir::IRVisitor {
 public:
  bool found = false;
  void Visit_(const ir::Ref<ir::Call>& call) override {
    const std::string& op = call->op->name;
    found |= !call->is_function_call() && (op == "system.sync_src" || op == "system.sync_dst");
    ir::IRVisitor::Visit_(call);
  }
};

// Splices the planned statements into their blocks.
class SyncInserter : public ir::IRMutator {
 public:
  explicit SyncInserter(std::vector<pipe_sync::Insertion> insertions) {
    for (auto& ins : insertions) at_[ins.block].emplace_back(ins.index, std::move(ins.stmt));
  }

  ir::StmtPtr VisitStmt(const ir::StmtPtr& stmt) override {
    auto it = stmt ? at_.find(stmt.get()) : at_.end();
    if (it == at_.end()) return IRMutator::VisitStmt(stmt);
    const std::vector<ir::StmtPtr> children = ir::Flatten(stmt);
    const auto& insertions = it->second;
    std::vector<ir::StmtPtr> out;
    size_t next = 0;
    for (size_t i = 0; i <= children.size(); ++i) {
      for (; next < insertions.size() && insertions[next].first == i; ++next) out.push_back(insertions[next].second);
      if (i < children.size()) out.push_back(IRMutator::VisitStmt(children[i]));
    }
    return ir::MakeSeq(std::move(out), stmt->span);
  }

 private:
  std::map<const ir::Stmt*, std::vector<std::pair<size_t, ir::StmtPtr>>> at_;
};

}  // namespace

ir::FunctionPtr InsertPipeSync(const ir::FunctionPtr& kernel) {
  if (!kernel->body) return kernel;
  UserEventFinder finder;
  finder.VisitStmt(kernel->body);
  if (finder.found) return kernel;
  std::vector<pipe_sync::Insertion> insertions = pipe_sync::PlanPipeSync(*kernel);
  if (insertions.empty()) return kernel;
  return SyncInserter(std::move(insertions)).VisitFunction(kernel);
}

ir::ProgramPtr InsertPipeSyncPass::Run(const ir::ProgramPtr& program, pass::PassContext& /*ctx*/) {
  return ir::MapFunctions(program, [](const ir::FunctionPtr& f) {
    return ir::IsCoreKernel(f->func_type) ? InsertPipeSync(f) : f;
  });
}

}  // namespace pypto::passes
