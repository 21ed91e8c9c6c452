#include "external_kernel.h"

#include <filesystem>
#include <system_error>

#include "kernel_writer.h"
#include "pypto/backend/backend.h"

namespace pypto::npu {

std::optional<std::string> ExternalSourceOf(const ir::Function& function) {
  return function.attrs.Get<std::string>("external_source");
}

std::string ExternalKernelWrapper(const ir::Function& function, const std::string& source) {
  auto fail = [&](const std::string& message) {
    throw backend::MakeCodegenError(kBackendName, function.name, "", message, function.span);
  };
  std::error_code ec;
  if (!std::filesystem::path(source).is_absolute()) {
    fail("its external_source '" + source + "' is not an absolute path; the parser resolves it against the "
         "kernel's Python file, so this IR was built by hand: give the full path");
  }
  if (!std::filesystem::is_regular_file(source, ec)) {
    fail("its external_source '" + source + "' does not exist; restore the file or fix external_source=");
  }
  if (source.find_first_of("\"\n\\") != std::string::npos) {
    fail("its external_source path '" + source + "' holds a quote, a backslash or a newline, which an #include "
         "cannot spell; move the file to a plainer path");
  }
  return "// External kernel '" + function.name + "': hand-written C++, included where it lies so that its\n"
         "// relative #includes resolve and compile errors name its own file and line.\n"
         "#include \"" + source + "\"\n";
}

}  // namespace pypto::npu
