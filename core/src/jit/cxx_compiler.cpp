#include "pypto/jit/cxx_compiler.h"

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/Basic/Version.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Driver/Compilation.h>
#include <clang/Driver/Driver.h>
#include <clang/Driver/Job.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Frontend/Utils.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/ADT/StringMap.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>

#include "hash.h"
#include "llvm_target.h"
#include "pypto/support/error.h"
#include "pypto/version.h"

namespace pypto::jit {

namespace {

// The source is handed to Clang as a remapped (in-memory) file at this path;
// a #line directive makes diagnostics name CompileOptions::name instead.
constexpr const char* kVirtualSourcePath = "/pypto-jit/input.cpp";

std::string HostCpuDescription() {
  static const std::string description = [] {
    std::string text = llvm::sys::getHostCPUName().str();
    llvm::StringMap<bool> features;
    if (llvm::sys::getHostCPUFeatures(features)) {
      std::vector<std::string> enabled;
      for (const auto& entry : features) {
        if (entry.second) enabled.push_back(entry.first().str());
      }
      std::sort(enabled.begin(), enabled.end());
      for (const auto& f : enabled) text += "," + f;
    }
    return text;
  }();
  return description;
}

std::string EscapeForLineDirective(const std::string& name) {
  std::string out;
  for (char c : name) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

// Forwards every diagnostic to a text printer (file:line:col, message, source
// line and caret) and remembers where the first error is.
class CollectingConsumer : public clang::DiagnosticConsumer {
 public:
  explicit CollectingConsumer(clang::DiagnosticOptions* options) : stream_(text_), printer_(stream_, options) {}

  void BeginSourceFile(const clang::LangOptions& lang, const clang::Preprocessor* pp) override {
    printer_.BeginSourceFile(lang, pp);
  }
  void EndSourceFile() override { printer_.EndSourceFile(); }

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);
    printer_.HandleDiagnostic(level, info);
    if (level < clang::DiagnosticsEngine::Error || first_error_.known()) return;
    if (info.hasSourceManager() && info.getLocation().isValid()) {
      clang::PresumedLoc loc = info.getSourceManager().getPresumedLoc(info.getLocation());
      if (loc.isValid()) {
        first_error_ = Span(loc.getFilename(), static_cast<int>(loc.getLine()), static_cast<int>(loc.getColumn()));
      }
    }
  }

  const std::string& text() {
    stream_.flush();
    return text_;
  }
  const Span& first_error() const { return first_error_; }

 private:
  std::string text_;
  llvm::raw_string_ostream stream_;
  clang::TextDiagnosticPrinter printer_;
  Span first_error_;
};

class AllHeadersCollector : public clang::DependencyCollector {
 public:
  bool needSystemDependencies() override { return true; }
};

[[noreturn]] void ThrowCompileError(const CompileOptions& options, CollectingConsumer& diagnostics,
                                    const std::string& fallback) {
  std::string text = diagnostics.text();
  if (text.empty()) text = fallback + "\n";
  throw Error(ErrorKind::kCompile,
              "C++ compilation of '" + options.name + "' failed:\n" + text +
                  "Fix the C++ source at the location above; if PyPTO generated it, report the diagnostics together "
                  "with the program that produced it.",
              diagnostics.first_error());
}

std::vector<std::string> DriverArguments(const CompileOptions& options) {
  std::vector<std::string> args = {
      "clang++", "-c", "-x", "c++", "-std=" + options.std, "-O" + std::to_string(options.opt_level),
      // Position-independent code links anywhere in the JIT's address space.
      "-fPIC", "-fno-exceptions", "-fno-color-diagnostics", "-resource-dir", PYPTO_CLANG_RESOURCE_DIR};
  if (!options.march.empty()) args.push_back("-march=" + options.march);
  if (options.freestanding) args.push_back("-ffreestanding");
  for (const auto& dir : options.include_dirs) args.push_back("-I" + std::filesystem::absolute(dir).string());
  for (const auto& define : options.defines) args.push_back("-D" + define);
  for (const auto& flag : options.extra_flags) args.push_back(flag);
  args.push_back(kVirtualSourcePath);
  args.push_back("-o");
  args.push_back("/pypto-jit/output.o");
  return args;
}

// Cache payload: the object plus every header it was built from (system
// headers too: a libstdc++ upgrade changes them without changing the compiler
// version), so that a changed header makes the entry stale even though the key,
// which cannot know the headers before compiling, is unchanged.
struct Dependency {
  std::string path;
  uint64_t checksum = 0;
};

std::string ReadFile(const std::string& path, bool* ok) {
  std::ifstream in(path, std::ios::binary);
  *ok = static_cast<bool>(in);
  if (!*ok) return {};
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

void AppendU64(std::string& out, uint64_t value) { out.append(reinterpret_cast<const char*>(&value), sizeof(value)); }

bool ReadU64(std::string_view& in, uint64_t* value) {
  if (in.size() < sizeof(*value)) return false;
  std::memcpy(value, in.data(), sizeof(*value));
  in.remove_prefix(sizeof(*value));
  return true;
}

std::string EncodePayload(const std::vector<Dependency>& deps, const std::string& object) {
  std::string out;
  AppendU64(out, deps.size());
  for (const auto& dep : deps) {
    AppendU64(out, dep.path.size());
    out += dep.path;
    AppendU64(out, dep.checksum);
  }
  out += object;
  return out;
}

// Returns false when the payload is malformed.
bool DecodePayload(std::string_view in, std::vector<Dependency>* deps, std::string* object) {
  uint64_t count = 0;
  if (!ReadU64(in, &count)) return false;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t size = 0;
    Dependency dep;
    if (!ReadU64(in, &size) || in.size() < size) return false;
    dep.path = std::string(in.substr(0, size));
    in.remove_prefix(size);
    if (!ReadU64(in, &dep.checksum)) return false;
    deps->push_back(std::move(dep));
  }
  *object = std::string(in);
  return true;
}

bool DependenciesUnchanged(const std::vector<Dependency>& deps) {
  for (const auto& dep : deps) {
    bool ok = false;
    std::string contents = ReadFile(dep.path, &ok);
    if (!ok || Checksum64(contents) != dep.checksum) return false;
  }
  return true;
}

}  // namespace

CxxCompiler::CxxCompiler() : CxxCompiler(ObjectCache::DefaultDirectory()) {}

CxxCompiler::CxxCompiler(std::optional<std::filesystem::path> cache_dir) {
  if (cache_dir) cache_.emplace(*cache_dir);
}

CxxCompiler::~CxxCompiler() = default;

CxxCompiler::Stats CxxCompiler::stats() const {
  return Stats{compiles_.load(), cache_hits_.load(), cache_rejected_.load(), cache_store_failures_.load()};
}

std::string CxxCompiler::CacheKey(const std::string& source, const CompileOptions& options) const {
  KeyHasher hasher;
  hasher.Add("pypto-jit-object-v1")
      .Add(PYPTO_VERSION_STRING)
      .Add(LLVM_VERSION_STRING)
      .Add(clang::getClangFullVersion())
      .Add(HostCpuDescription())
      .Add(options.name)
      .Add(source);
  for (const auto& arg : DriverArguments(options)) hasher.Add(arg);
  return hasher.HexDigest();
}

CompiledObject CxxCompiler::Compile(const std::string& source, const CompileOptions& options) {
  std::string key = cache_ ? CacheKey(source, options) : std::string();
  if (cache_) {
    ObjectCache::LoadResult loaded = cache_->Load(key);
    if (loaded.status == ObjectCache::Status::kHit) {
      std::vector<Dependency> deps;
      std::string object;
      if (DecodePayload(loaded.payload, &deps, &object) && DependenciesUnchanged(deps)) {
        cache_hits_.fetch_add(1);
        return CompiledObject{options.name, std::move(object), true};
      }
      cache_rejected_.fetch_add(1);
    } else if (loaded.status == ObjectCache::Status::kCorrupt) {
      cache_rejected_.fetch_add(1);
    }
  }

  std::vector<std::string> dependency_paths;
  std::string object = CompileUncached(source, options, &dependency_paths);
  if (cache_) {
    std::vector<Dependency> deps;
    for (const auto& path : dependency_paths) {
      bool ok = false;
      std::string contents = ReadFile(path, &ok);
      if (ok) deps.push_back({path, Checksum64(contents)});
    }
    if (!cache_->Store(key, EncodePayload(deps, object))) cache_store_failures_.fetch_add(1);
  }
  return CompiledObject{options.name, std::move(object), false};
}

std::string CxxCompiler::CompileUncached(const std::string& source, const CompileOptions& options,
                                         std::vector<std::string>* dependencies) {
  InitializeNativeTargetOnce();
  compiles_.fetch_add(1);

  llvm::IntrusiveRefCntPtr<clang::DiagnosticOptions> diag_options = new clang::DiagnosticOptions();
  diag_options->ShowColors = false;
  // Honour the #line directive, so that diagnostics name CompileOptions::name.
  diag_options->ShowPresumedLoc = true;
  CollectingConsumer diagnostics(diag_options.get());
  llvm::IntrusiveRefCntPtr<clang::DiagnosticIDs> diag_ids(new clang::DiagnosticIDs());
  clang::DiagnosticsEngine driver_diags(diag_ids, diag_options, &diagnostics, /*ShouldOwnClient=*/false);

  // The driver turns user-level flags (-march=native, -O3, the GCC installation
  // for libstdc++ headers) into the exact cc1 arguments the clang binary would use.
  clang::driver::Driver driver(PYPTO_CLANG_RESOURCE_DIR "/../../../bin/clang++", llvm::sys::getDefaultTargetTriple(),
                               driver_diags, "pypto jit");
  driver.setCheckInputsExist(false);
  std::vector<std::string> arg_strings = DriverArguments(options);
  std::vector<const char*> args;
  for (const auto& a : arg_strings) args.push_back(a.c_str());
  std::unique_ptr<clang::driver::Compilation> compilation(driver.BuildCompilation(args));
  if (!compilation || driver_diags.hasErrorOccurred()) {
    ThrowCompileError(options, diagnostics, "the Clang driver rejected the compile flags");
  }
  const auto& jobs = compilation->getJobs();
  if (jobs.size() != 1 || !llvm::isa<clang::driver::Command>(*jobs.begin())) {
    ThrowCompileError(options, diagnostics, "the compile flags did not produce exactly one compile job");
  }
  const llvm::opt::ArgStringList& cc1_args = llvm::cast<clang::driver::Command>(*jobs.begin()).getArguments();

  auto invocation = std::make_shared<clang::CompilerInvocation>();
  if (!clang::CompilerInvocation::CreateFromArgs(*invocation, cc1_args, driver_diags)) {
    ThrowCompileError(options, diagnostics, "Clang rejected the compile flags");
  }
  // The driver asks cc1 to skip freeing memory at exit; in-process we must free it.
  invocation->getFrontendOpts().DisableFree = false;
  std::string text = "#line 1 \"" + EscapeForLineDirective(options.name) + "\"\n" + source;
  invocation->getPreprocessorOpts().addRemappedFile(kVirtualSourcePath,
                                                    llvm::MemoryBuffer::getMemBufferCopy(text, options.name).release());

  clang::CompilerInstance instance;
  instance.setInvocation(invocation);
  instance.createDiagnostics(&diagnostics, /*ShouldOwnClient=*/false);
  // Silences the "N errors generated." summary Clang writes to stderr.
  instance.setVerboseOutputStream(std::make_unique<llvm::raw_null_ostream>());
  auto collector = std::make_shared<AllHeadersCollector>();
  instance.addDependencyCollector(collector);

  llvm::SmallVector<char, 0> object;
  instance.setOutputStream(std::make_unique<llvm::raw_svector_ostream>(object));
  llvm::LLVMContext context;
  clang::EmitObjAction action(&context);
  if (!instance.ExecuteAction(action) || instance.getDiagnostics().hasErrorOccurred()) {
    ThrowCompileError(options, diagnostics, "Clang reported failure without a diagnostic");
  }
  for (const auto& dep : collector->getDependencies()) {
    if (dep != kVirtualSourcePath) dependencies->push_back(dep);
  }
  return std::string(object.begin(), object.end());
}

}  // namespace pypto::jit
