# LLVM 16 and Clang's C++ libraries, both as shared libraries (libLLVM-16.so,
# libclang-cpp.so), for the core's in-process C++ compiler and ORC JIT.
# Found by file rather than through LLVMConfig.cmake: Debian ships no Clang
# CMake package, and LLVMConfig.cmake probes FFI, CURL and terminfo the core
# does not use. Set PYPTO_LLVM_ROOT to use another installation.
set(PYPTO_LLVM_ROOT /usr/lib/llvm-16 CACHE PATH "LLVM 16 installation prefix")

find_path(PYPTO_LLVM_INCLUDE_DIR llvm/Config/llvm-config.h HINTS ${PYPTO_LLVM_ROOT}/include NO_DEFAULT_PATH)
find_library(PYPTO_LLVM_LIBRARY NAMES LLVM-16 HINTS ${PYPTO_LLVM_ROOT}/lib NO_DEFAULT_PATH)
find_library(PYPTO_CLANG_CPP_LIBRARY NAMES clang-cpp HINTS ${PYPTO_LLVM_ROOT}/lib NO_DEFAULT_PATH)
if(NOT PYPTO_LLVM_INCLUDE_DIR OR NOT PYPTO_LLVM_LIBRARY OR NOT PYPTO_CLANG_CPP_LIBRARY
   OR NOT EXISTS ${PYPTO_LLVM_INCLUDE_DIR}/clang/Frontend/CompilerInstance.h)
  message(FATAL_ERROR "PyPTO needs LLVM 16 and Clang's C++ libraries under ${PYPTO_LLVM_ROOT} "
    "(Debian: apt-get install llvm-16-dev libclang-16-dev libclang-cpp16-dev, as scripts/setup.sh does). "
    "Found include dir '${PYPTO_LLVM_INCLUDE_DIR}', libLLVM '${PYPTO_LLVM_LIBRARY}', "
    "libclang-cpp '${PYPTO_CLANG_CPP_LIBRARY}'.")
endif()
file(STRINGS ${PYPTO_LLVM_INCLUDE_DIR}/llvm/Config/llvm-config.h llvm_major_line REGEX "#define LLVM_VERSION_MAJOR ")
string(REGEX MATCH "[0-9]+" PYPTO_LLVM_VERSION_MAJOR "${llvm_major_line}")
if(NOT PYPTO_LLVM_VERSION_MAJOR STREQUAL "16")
  message(FATAL_ERROR "PyPTO needs LLVM 16; ${PYPTO_LLVM_ROOT} holds LLVM ${PYPTO_LLVM_VERSION_MAJOR}.")
endif()
# Clang's builtin headers (stddef.h, immintrin.h, ...) for in-process compiles.
set(PYPTO_CLANG_RESOURCE_DIR ${PYPTO_LLVM_ROOT}/lib/clang/${PYPTO_LLVM_VERSION_MAJOR})

add_library(pypto_llvm INTERFACE)
# SYSTEM: LLVM's headers are not clean under our -Wall -Wextra -Werror.
target_include_directories(pypto_llvm SYSTEM INTERFACE ${PYPTO_LLVM_INCLUDE_DIR})
target_compile_definitions(pypto_llvm INTERFACE __STDC_CONSTANT_MACROS __STDC_FORMAT_MACROS __STDC_LIMIT_MACROS)
target_link_libraries(pypto_llvm INTERFACE ${PYPTO_CLANG_CPP_LIBRARY} ${PYPTO_LLVM_LIBRARY})
