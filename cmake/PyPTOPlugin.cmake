# pypto_add_plugin(<name> KIND pass|backend|kernel SOURCES ... [MANIFEST file] [LINK ...]
#                  [OUTPUT_DIR dir] [INSTALL_DIR dir])
#
# Builds a PyPTO plugin: a shared library that exports `pypto_plugin_entry`,
# placed with its manifest.yaml in its own folder of the plugin directory, so
# the plugin host discovers it. Used in this tree and, through the SDK's
# CMake package, by out-of-tree plugins.
function(pypto_add_plugin name)
  cmake_parse_arguments(ARG "" "KIND;MANIFEST;OUTPUT_DIR;INSTALL_DIR" "SOURCES;LINK" ${ARGN})
  if(NOT ARG_KIND MATCHES "^(pass|backend|kernel)$")
    message(FATAL_ERROR "pypto_add_plugin(${name}): KIND must be pass, backend or kernel")
  endif()
  if(NOT ARG_MANIFEST)
    set(ARG_MANIFEST ${CMAKE_CURRENT_SOURCE_DIR}/manifest.yaml)
  endif()
  if(NOT EXISTS ${ARG_MANIFEST})
    message(FATAL_ERROR "pypto_add_plugin(${name}): no manifest at ${ARG_MANIFEST}")
  endif()
  # Out of tree, the package knows the ABI the plugin is compiled for: a stale
  # `abi:` fails here rather than when the core reads the manifest.
  if(DEFINED PyPTO_PLUGIN_ABI_VERSION)
    file(STRINGS ${ARG_MANIFEST} abi_line REGEX "^abi:")
    string(REGEX REPLACE "^abi:[ \t]*([0-9]+).*" "\\1" manifest_abi "${abi_line}")
    if(NOT manifest_abi STREQUAL PyPTO_PLUGIN_ABI_VERSION)
      message(FATAL_ERROR "pypto_add_plugin(${name}): ${ARG_MANIFEST} declares 'abi: ${manifest_abi}' but "
                          "this PyPTO (${PyPTO_VERSION}) has plugin ABI ${PyPTO_PLUGIN_ABI_VERSION}; "
                          "set 'abi: ${PyPTO_PLUGIN_ABI_VERSION}' in the manifest")
    endif()
  endif()
  if(NOT ARG_OUTPUT_DIR)
    if(DEFINED PYPTO_PLUGIN_OUTPUT_DIR)
      set(ARG_OUTPUT_DIR ${PYPTO_PLUGIN_OUTPUT_DIR}/${name})
    else()
      # One folder for all plugins of a project: one PYPTO_PLUGIN_PATH entry finds them.
      set(ARG_OUTPUT_DIR ${CMAKE_BINARY_DIR}/plugins/${name})
    endif()
  endif()

  add_library(${name} MODULE ${ARG_SOURCES})
  if(TARGET pypto_core)
    target_link_libraries(${name} PRIVATE pypto_core)
  else()
    target_link_libraries(${name} PRIVATE PyPTO::pypto_core)
  endif()
  if(TARGET pypto_warnings)
    target_link_libraries(${name} PRIVATE pypto_warnings)
  endif()
  target_link_libraries(${name} PRIVATE ${ARG_LINK})
  set_target_properties(${name} PROPERTIES
    PREFIX "lib"
    LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIR}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    INSTALL_RPATH "$ORIGIN/../../..")
  configure_file(${ARG_MANIFEST} ${ARG_OUTPUT_DIR}/manifest.yaml COPYONLY)
  if(ARG_INSTALL_DIR)
    install(TARGETS ${name} LIBRARY DESTINATION ${ARG_INSTALL_DIR}/${name})
    install(FILES ${ARG_MANIFEST} DESTINATION ${ARG_INSTALL_DIR}/${name} RENAME manifest.yaml)
  endif()
endfunction()
