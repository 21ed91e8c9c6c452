"""Plugins: discovery on the search paths, explicit loading, and the passes, backends and comm engines they provide.

Search order: the plugin folder installed with PyPTO, then each folder of
``PYPTO_PLUGIN_PATH`` (colon separated), then folders added with
:func:`add_search_path`.

:func:`discover` lists every plugin found (and every plugin loaded from
elsewhere) as a dict: ``name``, ``kind``, ``version``, ``abi``, ``path`` (its
library), ``manifest``, ``provides``, ``requires``, ``description``,
``loaded`` and ``kernels`` (a kernel plugin's kernels, as :func:`list_kernels`
gives them). :func:`load` loads one by name or by path; the errors are the
C++ plugin host's (``pypto.PluginError`` naming the manifest and the fix).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from pypto._core import PluginError
from pypto._core.plugins import (
    add_search_path,
    backend_function_types,
    core_library_dir,
    data_dir,
    discover,
    is_loaded,
    list_backends,
    list_comm_engines,
    list_passes,
    load_manifest,
    search_paths,
)
from pypto._core.plugins import load as _load_by_name

MANIFEST = "manifest.yaml"

__all__ = [
    "MANIFEST",
    "add_search_path",
    "backend_function_types",
    "core_library_dir",
    "data_dir",
    "discover",
    "is_loaded",
    "is_path",
    "list_backends",
    "list_comm_engines",
    "list_kernels",
    "list_passes",
    "load",
    "load_manifest",
    "load_path",
    "manifest_path",
    "search_paths",
]


def is_path(plugin: str | os.PathLike[str]) -> bool:
    """Whether `plugin` names a plugin by path: a PathLike, or text with a '/' or ending in '.yaml'.

    The rule pipelines follow, so ``my_pass`` is a name and ``./my_pass`` a folder.
    """
    if isinstance(plugin, os.PathLike):
        return True
    return "/" in plugin or plugin.endswith(".yaml")


def load(plugin: str | os.PathLike[str]) -> dict[str, Any]:
    """Loads a plugin (after the plugins it requires) and returns its record, as :func:`discover` lists it.

    `plugin` is a name found on the search paths (``"simplify"``) or a path
    (see :func:`is_path`): a plugin's folder, the one holding
    ``manifest.yaml``, or that manifest file. Loading a loaded plugin does
    nothing.
    """
    if is_path(plugin):
        return load_path(plugin)
    _load_by_name(plugin)
    return _record(lambda r: r["name"] == plugin)


def load_path(path: str | os.PathLike[str]) -> dict[str, Any]:
    """Loads the plugin in a folder (the one holding manifest.yaml) or described by a manifest file."""
    manifest = manifest_path(path)
    load_manifest(manifest)
    resolved = manifest.resolve()
    return _record(lambda r: Path(r["manifest"]).resolve() == resolved)


def manifest_path(path: str | os.PathLike[str]) -> Path:
    """The manifest of a plugin folder, or `path` itself when it is a file; a PluginError saying what to give
    otherwise (naming the plugin folders inside a folder of plugin folders)."""
    path = Path(path)
    if path.is_file():
        return path
    if (path / MANIFEST).is_file():
        return path / MANIFEST
    wanted = f"give a plugin's folder (the one holding {MANIFEST}) or its {MANIFEST}"
    if not path.is_dir():
        raise PluginError(f"the plugin path '{path}' does not exist; {wanted}")
    inside = sorted(m.parent.name for m in path.glob(f"*/{MANIFEST}"))
    if not inside:
        raise PluginError(f"the folder '{path}' holds no {MANIFEST}; {wanted}")
    which = f"its subfolder {inside[0]} is a plugin" if len(inside) == 1 else \
        f"its subfolders {', '.join(inside)} are plugins"
    raise PluginError(f"the folder '{path}' holds no {MANIFEST} but {which}; "
                      f"give one of them (e.g. '{path / inside[0]}'), or add '{path}' to the search paths "
                      "(pypto.plugins.add_search_path or PYPTO_PLUGIN_PATH) to find them all")


def list_kernels() -> list[dict[str, Any]]:
    """Every kernel the discovered kernel plugins provide, sorted by name, as dicts: ``name``, ``plugin``,
    ``core`` ("AIC" or "AIV"), ``source`` (the C++ file), ``description``, ``manifest``, ``line`` (of its
    manifest entry), ``tensors`` (``name``, ``dtype``, ``shape`` of sizes and symbol names, ``direction``
    "In", "Out" or "InOut"), ``scalars`` (``name``, ``dtype``) and ``multiple_of`` (symbol -> divisor)."""
    kernels = [kernel for record in discover() for kernel in record["kernels"]]
    return sorted(kernels, key=lambda k: k["name"])


def _record(matches: Any) -> dict[str, Any]:
    return next(r for r in discover() if matches(r))
