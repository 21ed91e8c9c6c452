# pypto_add_backend_plugin(<name> SOURCES ...
#                          [PROVIDES backend... [TOOLCHAINS platform=toolchain...] [VERSION v]
#                           [REQUIRES plugins...] [DESCRIPTION text]
#                           | MANIFEST file]
#                          [LINK libs...] [OUTPUT_DIR dir] [INSTALL_DIR dir])
#
# A backend plugin: pypto_add_plugin(<name> KIND backend ...). With PROVIDES
# the manifest is generated; TOOLCHAINS names, per platform, the toolchain
# that builds and runs what the backend generates (the manifest's
# `toolchains:` map, e.g. TOOLCHAINS a2a3sim=simulator a2a3=ascend). A
# compile for a platform the map lacks is refused, so list every platform
# the backend is meant for. Without PROVIDES, MANIFEST (default:
# manifest.yaml beside the CMakeLists.txt) is checked and copied, and holds
# its own `toolchains:` line.
function(pypto_add_backend_plugin name)
  _pypto_reject_kind_argument(pypto_add_backend_plugin ${name} ${ARGN})
  _pypto_split_toolchains(${name} toolchains forwarded ${ARGN})
  if(toolchains)
    if("MANIFEST" IN_LIST forwarded)
      message(FATAL_ERROR "pypto_add_backend_plugin(${name}): TOOLCHAINS describes a generated manifest; with "
                          "MANIFEST write 'toolchains: {${toolchains}}' in the manifest instead")
    endif()
    list(APPEND forwarded EXTRA_FIELDS "toolchains: {${toolchains}}")
  endif()
  pypto_add_plugin(${name} KIND backend ${forwarded})
endfunction()

# Takes `TOOLCHAINS a2a3sim=simulator a2a3=ascend` out of the arguments:
# `toolchains_var` receives the YAML map body "a2a3sim: simulator, a2a3: ascend",
# `forwarded_var` every other argument, in order.
function(_pypto_split_toolchains name toolchains_var forwarded_var)
  set(entries "")
  set(forwarded "")
  set(in_toolchains FALSE)
  set(keywords ${PYPTO_PLUGIN_ONE_VALUE_KEYWORDS} ${PYPTO_PLUGIN_MULTI_VALUE_KEYWORDS})
  foreach(arg IN LISTS ARGN)
    if(arg STREQUAL "TOOLCHAINS")
      set(in_toolchains TRUE)
    elseif(arg IN_LIST keywords)
      set(in_toolchains FALSE)
      list(APPEND forwarded "${arg}")
    elseif(NOT in_toolchains)
      list(APPEND forwarded "${arg}")
    elseif(arg MATCHES "^([A-Za-z0-9_]+)=([A-Za-z0-9_]+)$")
      list(APPEND entries "${CMAKE_MATCH_1}: ${CMAKE_MATCH_2}")
    else()
      message(FATAL_ERROR "pypto_add_backend_plugin(${name}): TOOLCHAINS entry '${arg}' is not platform=toolchain "
                          "(e.g. a2a3sim=simulator)")
    endif()
  endforeach()
  list(JOIN entries ", " map_body)
  set(${toolchains_var} "${map_body}" PARENT_SCOPE)
  set(${forwarded_var} "${forwarded}" PARENT_SCOPE)
endfunction()
