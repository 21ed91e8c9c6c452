# pypto_add_kernel_plugin(<name> [MANIFEST file] [FILES extra...] [OUTPUT_DIR dir] [INSTALL_DIR dir])
#
# A kernel plugin: hand-written C++ kernels against the SDK's tile ISA and a
# manifest.yaml (kind: kernel) naming each kernel, its core, its signature and
# its source (docs/external-kernels.md). Nothing is compiled here: PyPTO
# compiles a kernel's source for the platform a program runs on (in-process on
# the simulators, cached). The manifest, every `source:` it names and the
# FILES (headers the sources include, relative to the manifest's folder) are
# staged in <OUTPUT_DIR> (default: <build>/plugins/<name>/, one
# PYPTO_PLUGIN_PATH entry for every plugin of the project) and installed to
# <INSTALL_DIR>/<name> when INSTALL_DIR is given.
include_guard(GLOBAL)

# The source files a kernel manifest names (`source: gemm.cpp`), relative to its folder.
function(_pypto_kernel_manifest_sources manifest out_var)
  file(STRINGS ${manifest} source_lines REGEX "source:")
  set(sources "")
  foreach(line ${source_lines})
    string(REGEX MATCHALL "source:[ \t]*[^ \t,}#]+" matches "${line}")
    foreach(match ${matches})
      string(REGEX REPLACE "^source:[ \t]*" "" source "${match}")
      list(APPEND sources ${source})
    endforeach()
  endforeach()
  list(REMOVE_DUPLICATES sources)
  set(${out_var} ${sources} PARENT_SCOPE)
endfunction()

# Fails configuration with the fix when the manifest is not a kernel plugin's
# of this PyPTO's plugin ABI, rather than when the core reads it.
function(_pypto_check_kernel_manifest name manifest)
  file(STRINGS ${manifest} kind_line REGEX "^kind:")
  if(NOT kind_line MATCHES "^kind:[ \t]*kernel")
    message(FATAL_ERROR "pypto_add_kernel_plugin(${name}): ${manifest} must declare 'kind: kernel' "
                        "(found '${kind_line}')")
  endif()
  if(DEFINED PyPTO_PLUGIN_ABI_VERSION)
    file(STRINGS ${manifest} abi_line REGEX "^abi:")
    string(REGEX REPLACE "^abi:[ \t]*([0-9]+).*" "\\1" manifest_abi "${abi_line}")
    if(NOT manifest_abi STREQUAL PyPTO_PLUGIN_ABI_VERSION)
      message(FATAL_ERROR "pypto_add_kernel_plugin(${name}): ${manifest} declares 'abi: ${manifest_abi}' but this "
                          "PyPTO has plugin ABI ${PyPTO_PLUGIN_ABI_VERSION}; set 'abi: ${PyPTO_PLUGIN_ABI_VERSION}'")
    endif()
  endif()
endfunction()

function(pypto_add_kernel_plugin name)
  cmake_parse_arguments(ARG "" "MANIFEST;OUTPUT_DIR;INSTALL_DIR" "FILES" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "pypto_add_kernel_plugin(${name}): unknown arguments ${ARG_UNPARSED_ARGUMENTS}; "
                        "it takes MANIFEST, FILES, OUTPUT_DIR and INSTALL_DIR")
  endif()
  if(NOT ARG_MANIFEST)
    set(ARG_MANIFEST manifest.yaml)
  endif()
  get_filename_component(manifest ${ARG_MANIFEST} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  if(NOT EXISTS ${manifest})
    message(FATAL_ERROR "pypto_add_kernel_plugin(${name}): no manifest at ${manifest}")
  endif()
  _pypto_check_kernel_manifest(${name} ${manifest})
  get_filename_component(manifest_dir ${manifest} DIRECTORY)
  _pypto_kernel_manifest_sources(${manifest} sources)
  if(NOT sources)
    message(FATAL_ERROR "pypto_add_kernel_plugin(${name}): ${manifest} names no kernel source ('source: file.cpp')")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    _pypto_plugin_output_dir(${name} ARG_OUTPUT_DIR)
  endif()

  set(staged ${ARG_OUTPUT_DIR}/manifest.yaml)
  set(copy_commands COMMAND ${CMAKE_COMMAND} -E copy_if_different ${manifest} ${ARG_OUTPUT_DIR}/manifest.yaml)
  set(inputs ${manifest})
  foreach(file ${sources} ${ARG_FILES})
    if(NOT EXISTS ${manifest_dir}/${file})
      message(FATAL_ERROR "pypto_add_kernel_plugin(${name}): ${manifest} names '${file}', which is not at "
                          "${manifest_dir}/${file}")
    endif()
    list(APPEND inputs ${manifest_dir}/${file})
    list(APPEND staged ${ARG_OUTPUT_DIR}/${file})
    list(APPEND copy_commands COMMAND ${CMAKE_COMMAND} -E copy_if_different ${manifest_dir}/${file}
         ${ARG_OUTPUT_DIR}/${file})
  endforeach()
  # Staged at build time so that editing a kernel needs no reconfigure.
  add_custom_command(OUTPUT ${staged}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${ARG_OUTPUT_DIR}
    ${copy_commands}
    DEPENDS ${inputs}
    COMMENT "Staging kernel plugin ${name}")
  add_custom_target(${name} ALL DEPENDS ${staged})

  if(ARG_INSTALL_DIR)
    install(FILES ${manifest} DESTINATION ${ARG_INSTALL_DIR}/${name} RENAME manifest.yaml)
    foreach(file ${sources} ${ARG_FILES})
      get_filename_component(subdir ${file} DIRECTORY)
      install(FILES ${manifest_dir}/${file} DESTINATION ${ARG_INSTALL_DIR}/${name}/${subdir})
    endforeach()
  endif()
endfunction()
