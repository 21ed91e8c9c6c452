#include <gtest/gtest.h>
#include <llvm/IR/IRBuilder.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>

#include "jit/jit_test_util.h"
#include "pypto/jit/cxx_compiler.h"
#include "pypto/jit/jit_session.h"
#include "pypto/support/error.h"

// Exported from the test binary (-rdynamic) and called from JIT code.
extern "C" int pypto_jit_test_triple(int x) { return 3 * x; }

namespace pypto::jit {
namespace {

using testing::kAddSource;

int Negate(int x) { return -x; }

// define i32 @entry(i32 %x) { %r = call i32 @<callee>(i32 %x); ret i32 %r }
std::pair<std::unique_ptr<llvm::LLVMContext>, std::unique_ptr<llvm::Module>> CallerModule(const std::string& entry,
                                                                                          const std::string& callee) {
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("orchestration_" + entry, *context);
  llvm::Type* i32 = llvm::Type::getInt32Ty(*context);
  auto* fn_type = llvm::FunctionType::get(i32, {i32}, false);
  llvm::FunctionCallee target = module->getOrInsertFunction(callee, fn_type);
  auto* fn = llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage, entry, *module);
  llvm::IRBuilder<> builder(llvm::BasicBlock::Create(*context, "entry", fn));
  builder.CreateRet(builder.CreateCall(target, {fn->getArg(0)}));
  return {std::move(context), std::move(module)};
}

TEST(JitSession, IRBuilderModuleCallsAProcessSymbol) {
  JitSession session;
  auto [context, module] = CallerModule("entry", "pypto_jit_test_triple");
  session.AddModule(std::move(context), std::move(module));
  EXPECT_EQ(session.LookupFunction<int(int)>("entry")(14), 42);
}

TEST(JitSession, IRBuilderModuleCallsAnExplicitlyDefinedSymbol) {
  JitSession session;
  session.DefineSymbol("pypto_negate", reinterpret_cast<void*>(&Negate));
  auto [context, module] = CallerModule("entry", "pypto_negate");
  session.AddModule(std::move(context), std::move(module));
  EXPECT_EQ(session.LookupFunction<int(int)>("entry")(5), -5);
}

TEST(JitSession, IRBuilderModuleCallsACompiledKernel) {
  CxxCompiler compiler(std::nullopt);
  JitSession session;
  session.AddObject(compiler.Compile("extern \"C\" int kernel_twice(int x) { return 2 * x; }\n"));
  auto [context, module] = CallerModule("entry", "kernel_twice");
  session.AddModule(std::move(context), std::move(module));
  EXPECT_EQ(session.LookupFunction<int(int)>("entry")(21), 42);
}

TEST(JitSession, CoreLibrarySymbolsResolve) {
  JitSession session;
  void* address = session.Lookup("_ZN5pypto13ErrorKindNameENS_9ErrorKindE");
  EXPECT_EQ(address, reinterpret_cast<void*>(&pypto::ErrorKindName));
}

TEST(JitSession, MissingSymbolIsAnErrorNamingIt) {
  JitSession session;
  try {
    session.Lookup("no_such_kernel");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kCompile);
    EXPECT_NE(e.message().find("'no_such_kernel'"), std::string::npos) << e.message();
  }
}

TEST(JitSession, FindGivesADefinedGlobalAndNullForAMissingOne) {
  JitSession session;
  session.AddModuleText("blocks", "@pypto_sync_start_blocks_main = constant i32 6\n");
  const auto* blocks = static_cast<const int32_t*>(session.Find("pypto_sync_start_blocks_main"));
  ASSERT_NE(blocks, nullptr);
  EXPECT_EQ(*blocks, 6);
  EXPECT_EQ(session.Find("pypto_sync_start_blocks_other"), nullptr);
}

TEST(JitSession, UnresolvedReferenceInsideAModuleIsAnError) {
  JitSession session;
  auto [context, module] = CallerModule("entry", "pypto_symbol_nobody_defines");
  session.AddModule(std::move(context), std::move(module));
  try {
    session.Lookup("entry");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kCompile);
    EXPECT_NE(e.message().find("pypto_symbol_nobody_defines"), std::string::npos) << e.message();
  }
}

TEST(JitSession, DuplicateDefinitionIsAnError) {
  CxxCompiler compiler(std::nullopt);
  JitSession session;
  CompiledObject object = compiler.Compile(kAddSource);
  session.AddObject(object);
  EXPECT_THROW(session.AddObject(object), Error);
}

TEST(JitSession, MalformedModuleIsAnError) {
  JitSession session;
  auto context = std::make_unique<llvm::LLVMContext>();
  auto module = std::make_unique<llvm::Module>("broken", *context);
  auto* fn_type = llvm::FunctionType::get(llvm::Type::getInt32Ty(*context), false);
  auto* fn = llvm::Function::Create(fn_type, llvm::Function::ExternalLinkage, "no_terminator", *module);
  llvm::BasicBlock::Create(*context, "entry", fn);
  try {
    session.AddModule(std::move(context), std::move(module));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kCompile);
    EXPECT_NE(e.message().find("'broken'"), std::string::npos) << e.message();
  }
}

}  // namespace
}  // namespace pypto::jit
