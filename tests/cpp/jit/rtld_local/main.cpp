// Loads the probe library (and with it libpypto_core.so) RTLD_LOCAL, as Python
// loads extension modules, and checks that JIT code still resolves the core's
// symbols although a process-wide lookup cannot see them.
#include <dlfcn.h>

#include <cstdio>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <path of libpypto_jit_probe.so>\n", argv[0]);
    return 2;
  }
  void* probe = dlopen(argv[1], RTLD_LOCAL | RTLD_NOW);
  if (probe == nullptr) {
    std::fprintf(stderr, "cannot load the probe: %s\n", dlerror());
    return 1;
  }
  if (dlsym(RTLD_DEFAULT, "_ZN5pypto13ErrorKindNameENS_9ErrorKindE") != nullptr) {
    std::fprintf(stderr, "the core's symbols are global; this test would prove nothing\n");
    return 1;
  }
  auto* run = reinterpret_cast<const char* (*)()>(dlsym(probe, "pypto_jit_probe_core_symbol"));
  const char* failure = run();
  if (*failure != '\0') {
    std::fprintf(stderr, "JIT could not resolve a core symbol: %s\n", failure);
    return 1;
  }
  std::printf("core symbols resolve under RTLD_LOCAL\n");
  return 0;
}
