# pypto_add_plugin(<name> KIND pass|backend|kernel|comm SOURCES ... [ENTRY file]
#                  [MANIFEST file | PROVIDES names... [VERSION v] [REQUIRES names...]
#                                   [DESCRIPTION text] [EXTRA_FIELDS "key: value"...]]
#                  [LINK ...] [OUTPUT_DIR dir] [INSTALL_DIR dir])
#
# Builds a PyPTO plugin: a shared library that exports `pypto_plugin_entry`,
# placed with its manifest.yaml in its own folder of the plugin directory, so
# the plugin host discovers it. Used in this tree and, through the SDK's
# CMake package, by out-of-tree plugins (where the per-kind wrappers
# pypto_add_pass_plugin / pypto_add_backend_plugin call it).
#
# ENTRY names the one source file that registers the plugin (PYPTO_PLUGIN(...)).
# With it, the other SOURCES are compiled once into the object library
# <name>_objects, which the plugin links, and which a test binary links too to
# call the plugin's code directly (its include path is the calling folder):
#   target_link_libraries(test_my_pass PRIVATE my_pass_objects)
# so a unit-tested plugin is not compiled a second time for its tests.
#
# The manifest is either
#   * written from the arguments, when PROVIDES is given: name, kind, version
#     (VERSION, else the project's version), abi (this PyPTO's plugin ABI),
#     library, provides, and REQUIRES, DESCRIPTION and EXTRA_FIELDS (whole
#     YAML lines, e.g. "toolchains: {a2a3: ascend}") when given; or
#   * a hand-written file (MANIFEST, default manifest.yaml in the current
#     source folder), copied beside the library. Built against the installed
#     package, its name, kind, library and abi are first checked against what
#     this call builds, so a mismatch stops the configure step instead of
#     failing when the core loads the plugin. (Not in this tree: its test
#     fixtures are deliberately broken manifests the loader must reject.)
#
# Variables it reads: PyPTO_PLUGIN_ABI_VERSION and PyPTO_VERSION from the
# SDK's package, or in this tree PYPTO_PLUGIN_ABI_VERSION and
# PYPTO_PLUGIN_OUTPUT_DIR (where every plugin lands) from the top-level
# CMakeLists.txt.
# The keywords of pypto_add_plugin; per-kind wrappers that add keywords of their own
# (TOOLCHAINS) use them to tell where the values of theirs end.
set(PYPTO_PLUGIN_ONE_VALUE_KEYWORDS KIND ENTRY MANIFEST OUTPUT_DIR INSTALL_DIR VERSION DESCRIPTION)
set(PYPTO_PLUGIN_MULTI_VALUE_KEYWORDS SOURCES LINK PROVIDES REQUIRES EXTRA_FIELDS)

# Where plugin `name` is staged by default: PYPTO_PLUGIN_OUTPUT_DIR/<name>, or
# <build>/plugins/<name>, one folder for all plugins of a project, so that one
# PYPTO_PLUGIN_PATH entry finds them.
function(_pypto_plugin_output_dir name out_var)
  if(DEFINED PYPTO_PLUGIN_OUTPUT_DIR)
    set(${out_var} ${PYPTO_PLUGIN_OUTPUT_DIR}/${name} PARENT_SCOPE)
  else()
    set(${out_var} ${CMAKE_BINARY_DIR}/plugins/${name} PARENT_SCOPE)
  endif()
endfunction()

function(pypto_add_plugin name)
  cmake_parse_arguments(ARG "" "${PYPTO_PLUGIN_ONE_VALUE_KEYWORDS}" "${PYPTO_PLUGIN_MULTI_VALUE_KEYWORDS}" ${ARGN})
  if(ARG_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "pypto_add_plugin(${name}): unknown arguments '${ARG_UNPARSED_ARGUMENTS}'; the arguments "
                        "are KIND, SOURCES, ENTRY, MANIFEST, PROVIDES, VERSION, REQUIRES, DESCRIPTION, EXTRA_FIELDS, "
                        "LINK, OUTPUT_DIR, INSTALL_DIR")
  endif()
  if(NOT ARG_KIND MATCHES "^(pass|backend|kernel|comm)$")
    message(FATAL_ERROR "pypto_add_plugin(${name}): KIND must be pass, backend, kernel or comm, not '${ARG_KIND}'")
  endif()
  if(NOT ARG_SOURCES)
    message(FATAL_ERROR "pypto_add_plugin(${name}): give the plugin's source files with SOURCES a.cpp b.cpp ...")
  endif()
  if(NOT ARG_OUTPUT_DIR)
    _pypto_plugin_output_dir(${name} ARG_OUTPUT_DIR)
  endif()
  set(manifest_out ${ARG_OUTPUT_DIR}/manifest.yaml)

  if(ARG_PROVIDES)
    _pypto_reject_with_provides(${name} MANIFEST "${ARG_MANIFEST}")
    _pypto_write_manifest(${name} ${ARG_KIND} ${manifest_out} "${ARG_VERSION}" "${ARG_PROVIDES}" "${ARG_REQUIRES}"
                          "${ARG_DESCRIPTION}" "${ARG_EXTRA_FIELDS}")
  else()
    foreach(generated_only VERSION REQUIRES DESCRIPTION EXTRA_FIELDS)
      _pypto_reject_without_provides(${name} ${generated_only} "${ARG_${generated_only}}")
    endforeach()
    if(NOT ARG_MANIFEST)
      set(ARG_MANIFEST ${CMAKE_CURRENT_SOURCE_DIR}/manifest.yaml)
    endif()
    get_filename_component(ARG_MANIFEST ${ARG_MANIFEST} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    if(NOT EXISTS ${ARG_MANIFEST})
      message(FATAL_ERROR "pypto_add_plugin(${name}): no manifest at ${ARG_MANIFEST}; write one there, give its "
                          "path with MANIFEST <file>, or give PROVIDES <names...> to have the manifest generated")
    endif()
    if(NOT TARGET pypto_core)
      _pypto_check_manifest(${name} ${ARG_KIND} ${ARG_MANIFEST})
    endif()
    configure_file(${ARG_MANIFEST} ${manifest_out} COPYONLY)
  endif()

  if(ARG_ENTRY)
    _pypto_add_plugin_objects(${name} "${ARG_ENTRY}" "${ARG_SOURCES}" "${ARG_LINK}")
    add_library(${name} MODULE ${ARG_ENTRY})
    target_link_libraries(${name} PRIVATE ${name}_objects)
  else()
    add_library(${name} MODULE ${ARG_SOURCES})
  endif()
  _pypto_link_core(${name} PRIVATE)
  target_link_libraries(${name} PRIVATE ${ARG_LINK})
  set_target_properties(${name} PROPERTIES
    PREFIX "lib"
    LIBRARY_OUTPUT_DIRECTORY ${ARG_OUTPUT_DIR}
    CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON
    INSTALL_RPATH "$ORIGIN/../../..")
  if(ARG_INSTALL_DIR)
    install(TARGETS ${name} LIBRARY DESTINATION ${ARG_INSTALL_DIR}/${name})
    install(FILES ${manifest_out} DESTINATION ${ARG_INSTALL_DIR}/${name})
  endif()
endfunction()

# Links `target` to the core (this tree's target, or the installed package's) and, in this tree, to the warning flags.
function(_pypto_link_core target scope)
  if(TARGET pypto_core)
    target_link_libraries(${target} ${scope} pypto_core)
  else()
    target_link_libraries(${target} ${scope} PyPTO::pypto_core)
  endif()
  if(TARGET pypto_warnings)
    target_link_libraries(${target} PRIVATE pypto_warnings)
  endif()
endfunction()

# <name>_objects: every source of the plugin but its entry, compiled once with the plugin's flags.
function(_pypto_add_plugin_objects name entry sources link)
  if(NOT entry IN_LIST sources)
    message(FATAL_ERROR "pypto_add_plugin(${name}): ENTRY ${entry} is not one of SOURCES; list it there too")
  endif()
  set(objects ${sources})
  list(REMOVE_ITEM objects ${entry})
  if(NOT objects)
    message(FATAL_ERROR "pypto_add_plugin(${name}): ENTRY ${entry} is the only source; list the plugin's other "
                        "sources in SOURCES, or leave ENTRY out")
  endif()
  add_library(${name}_objects OBJECT ${objects})
  _pypto_link_core(${name}_objects PUBLIC)
  target_link_libraries(${name}_objects PUBLIC ${link})
  target_include_directories(${name}_objects PUBLIC ${CMAKE_CURRENT_SOURCE_DIR})
  set_target_properties(${name}_objects PROPERTIES CXX_VISIBILITY_PRESET hidden VISIBILITY_INLINES_HIDDEN ON)
endfunction()

# The file name of the library pypto_add_plugin builds: what `library:` must say.
function(_pypto_plugin_library_file name out_var)
  set(${out_var} "lib${name}${CMAKE_SHARED_MODULE_SUFFIX}" PARENT_SCOPE)
endfunction()

# The plugin ABI of the PyPTO the plugin is built against.
function(_pypto_abi_version name out_var)
  if(DEFINED PyPTO_PLUGIN_ABI_VERSION)
    set(${out_var} ${PyPTO_PLUGIN_ABI_VERSION} PARENT_SCOPE)
  elseif(DEFINED PYPTO_PLUGIN_ABI_VERSION)
    set(${out_var} ${PYPTO_PLUGIN_ABI_VERSION} PARENT_SCOPE)
  else()
    message(FATAL_ERROR "pypto_add_plugin(${name}): PyPTO_PLUGIN_ABI_VERSION is not set; call "
                        "find_package(PyPTO REQUIRED) before adding plugins")
  endif()
endfunction()

function(_pypto_reject_with_provides name field value)
  if(value)
    message(FATAL_ERROR "pypto_add_plugin(${name}): give either ${field} (a hand-written manifest) or PROVIDES "
                        "(a generated one), not both")
  endif()
endfunction()

function(_pypto_reject_without_provides name field value)
  if(value)
    message(FATAL_ERROR "pypto_add_plugin(${name}): ${field} describes a generated manifest, which needs "
                        "PROVIDES <names...>; with a hand-written manifest write '${field}' in the file instead")
  endif()
endfunction()

# Quotes text as a YAML double-quoted scalar, so ':' or '#' in it stay text.
function(_pypto_yaml_quote text out_var)
  string(REPLACE "\\" "\\\\" text "${text}")
  string(REPLACE "\"" "\\\"" text "${text}")
  set(${out_var} "\"${text}\"" PARENT_SCOPE)
endfunction()

function(_pypto_write_manifest name kind path version provides requires description extra_fields)
  _pypto_abi_version(${name} abi)
  if(NOT version)
    set(version "${PROJECT_VERSION}")
  endif()
  if(NOT version)
    message(FATAL_ERROR "pypto_add_plugin(${name}): the generated manifest needs a version; give VERSION 1.0.0, "
                        "or a version to the project: project(${PROJECT_NAME} VERSION 1.0.0 LANGUAGES CXX)")
  endif()
  _pypto_plugin_library_file(${name} library)
  _pypto_yaml_quote("${version}" quoted_version)
  list(JOIN provides ", " provides_text)
  string(CONCAT text "# Generated by pypto_add_plugin(${name}); edit the CMake call, not this file.\n"
           "name: ${name}\nkind: ${kind}\nversion: ${quoted_version}\nabi: ${abi}\n"
           "library: ${library}\nprovides: [${provides_text}]\n")
  if(requires)
    list(JOIN requires ", " requires_text)
    string(APPEND text "requires: [${requires_text}]\n")
  endif()
  if(description)
    _pypto_yaml_quote("${description}" quoted_description)
    string(APPEND text "description: ${quoted_description}\n")
  endif()
  foreach(line IN LISTS extra_fields)
    string(APPEND text "${line}\n")
  endforeach()
  # CONFIGURE rewrites the file only when its text changes, so builds stay incremental.
  file(CONFIGURE OUTPUT ${path} CONTENT "${text}" @ONLY)
endfunction()

# The value of a top-level `field: value` line of a manifest, without quotes
# or a trailing comment; empty when the field is absent.
function(_pypto_manifest_field manifest field out_var)
  file(STRINGS ${manifest} lines REGEX "^${field}:")
  if(NOT lines)
    set(${out_var} "" PARENT_SCOPE)
    return()
  endif()
  list(GET lines 0 line)
  string(REGEX REPLACE "^${field}:[ \t]*" "" value "${line}")
  string(REGEX REPLACE "[ \t]+#.*$" "" value "${value}")
  string(STRIP "${value}" value)
  string(REGEX REPLACE "^[\"'](.*)[\"']$" "\\1" value "${value}")
  set(${out_var} "${value}" PARENT_SCOPE)
endfunction()

# Fails the configure step when a hand-written manifest's field differs from
# what this build produces, naming the file, the field, both values and the fix.
function(_pypto_expect_manifest_field name manifest field expected why)
  _pypto_manifest_field(${manifest} ${field} actual)
  if(NOT actual STREQUAL expected)
    if(actual STREQUAL "")
      set(actual_text "no '${field}:' line")
    else()
      set(actual_text "'${field}: ${actual}'")
    endif()
    message(FATAL_ERROR "pypto_add_plugin(${name}): ${manifest} declares ${actual_text} but ${why}; "
                        "set '${field}: ${expected}' in the manifest")
  endif()
endfunction()

function(_pypto_check_manifest name kind manifest)
  _pypto_abi_version(${name} abi)
  _pypto_plugin_library_file(${name} library)
  _pypto_expect_manifest_field(${name} ${manifest} name ${name}
    "the plugin is built as target '${name}' (the name must also be the one given to PYPTO_PLUGIN(...))")
  _pypto_expect_manifest_field(${name} ${manifest} kind ${kind} "pypto_add_plugin was called with KIND ${kind}")
  _pypto_expect_manifest_field(${name} ${manifest} library ${library} "the library this builds is ${library}")
  _pypto_expect_manifest_field(${name} ${manifest} abi ${abi} "this PyPTO (${PyPTO_VERSION}) has plugin ABI ${abi}")
endfunction()

# For the per-kind wrappers (pypto_add_pass_plugin, ...), which set KIND themselves.
function(_pypto_reject_kind_argument wrapper name)
  if("KIND" IN_LIST ARGN)
    message(FATAL_ERROR "${wrapper}(${name}): ${wrapper} sets KIND itself; leave KIND out, or call "
                        "pypto_add_plugin(${name} KIND ...) directly")
  endif()
endfunction()
