# pypto_add_pass_plugin(<name> SOURCES ...
#                       [PROVIDES PassName... [VERSION v] [REQUIRES plugins...] [DESCRIPTION text]
#                        | MANIFEST file]
#                       [LINK libs...] [OUTPUT_DIR dir] [INSTALL_DIR dir])
#
# A pass plugin: pypto_add_plugin(<name> KIND pass ...). With PROVIDES the
# manifest is generated (PROVIDES lists the pass names the library registers
# with AddPass); without it, MANIFEST (default: manifest.yaml beside the
# CMakeLists.txt) is checked and copied. Either way the library and its
# manifest land in <build>/plugins/<name>/.
function(pypto_add_pass_plugin name)
  _pypto_reject_kind_argument(pypto_add_pass_plugin ${name} ${ARGN})
  pypto_add_plugin(${name} KIND pass ${ARGN})
endfunction()
