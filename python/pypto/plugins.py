"""Plugins: discovery on the search paths, explicit loading, and the passes and backends they provide.

Search order: the plugin folder installed with PyPTO, then each folder of
``PYPTO_PLUGIN_PATH`` (colon separated), then folders added with
:func:`add_search_path`.
"""

from pypto._core.plugins import (
    add_search_path,
    backend_function_types,
    core_library_dir,
    data_dir,
    discover,
    is_loaded,
    list_backends,
    list_passes,
    load,
    load_manifest,
    search_paths,
)

__all__ = [
    "add_search_path",
    "backend_function_types",
    "core_library_dir",
    "data_dir",
    "discover",
    "is_loaded",
    "list_backends",
    "list_passes",
    "load",
    "load_manifest",
    "search_paths",
]
