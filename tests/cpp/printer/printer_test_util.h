// Builders and the print helpers the printer tests share. Every text a test
// prints is also written out for the Python syntax check (see CMakeLists.txt).
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "pypto/ir/printer.h"

namespace pypto::ir::printer_test {

inline TypePtr ScalarOf(DataType dtype = DataType::INDEX) { return ScalarType::Make(dtype); }
inline VarPtr ScalarVar(const std::string& name, DataType dtype = DataType::INDEX) {
  return Var::Make(name, ScalarOf(dtype));
}
inline ExprPtr Bin(BinaryOp op, const ExprPtr& lhs, const ExprPtr& rhs) { return BinaryExpr::Make(op, lhs, rhs); }
inline ExprPtr Un(UnaryOp op, const ExprPtr& operand) { return UnaryExpr::Make(op, operand); }
inline CallPtr OpCall(const std::string& op, std::vector<ExprPtr> args, Attrs kwargs = {}, TypePtr type = nullptr,
                      Attrs attrs = {}) {
  return Call::Make(Op::Get(op), std::move(args), std::move(kwargs), std::move(type), Span(), std::move(attrs));
}
inline ExprPtr List(std::vector<ExprPtr> elements) { return MakeTuple::Make(std::move(elements)); }
inline StmtPtr Eval(const ExprPtr& expr) { return EvalStmt::Make(expr); }
inline StmtPtr Seq(std::vector<StmtPtr> stmts) { return SeqStmts::Make(std::move(stmts)); }

// When PYPTO_PRINTER_PYTHON_DIR is set (by the ctest fixture that runs this
// binary), writes `text` there as <Suite>.<Test>.<n>.py. The folder is
// emptied on the first write of a run, so it holds exactly this run's texts.
inline void SaveForSyntaxCheck(const std::string& text) {
  const char* dir = std::getenv("PYPTO_PRINTER_PYTHON_DIR");
  if (dir == nullptr) return;
  static const bool prepared = [dir] {
    std::filesystem::remove_all(dir);
    return std::filesystem::create_directories(dir);
  }();
  ASSERT_TRUE(prepared || std::filesystem::is_directory(dir)) << "cannot create " << dir;
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::string test_name = std::string(test->test_suite_name()) + "." + test->name();
  static std::map<std::string, int> counts;
  const std::filesystem::path path =
      std::filesystem::path(dir) / (test_name + "." + std::to_string(counts[test_name]++) + ".py");
  std::ofstream file(path);
  file << text << "\n";
  ASSERT_TRUE(file.good()) << "cannot write " << path;
}

inline std::string Print(const NodePtr& node, const PrintOptions& options = {}) {
  std::string text = PrintNode(node, options);
  SaveForSyntaxCheck(text);
  return text;
}
inline std::string PrintConcise(const NodePtr& node) { return Print(node, PrintOptions{"pl", true}); }

}  // namespace pypto::ir::printer_test
