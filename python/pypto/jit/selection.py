"""What a RunConfig selects from the plugins, made ready before compiling.

``RunConfig.plugins`` are loaded first, so that the pipeline may name their
passes and ``RunConfig.backend`` their backends. The backend is checked
before the passes run, so a wrong name costs no lowering and its error lists
the backends there are and how to add the plugin that provides one. (An
unknown pass is the pass manager's error, which points at the pipeline line.)
"""

from __future__ import annotations

from pypto import InvalidValueError, plugins
from pypto._core import backend as _backend
from pypto.runtime.config import RunConfig

# The function types a kernel backend generates code for; "host" takes the orchestration.
KERNEL_FUNCTION_TYPES = ("InCore", "AIC", "AIV")
HOW_TO_ADD = ("give the folder of the plugin that provides it in RunConfig(plugins=[...]) (`--plugin DIR` for "
              "the pypto command), or add it to PYPTO_PLUGIN_PATH")


def prepare(config: RunConfig) -> None:
    """Loads the config's plugins and checks its backend generates kernels."""
    for path in config.plugins:
        plugins.load_path(path)
    check_kernel_backend(config.backend)
    check_builds_for(config.backend, config.platform)


def check_kernel_backend(name: str) -> None:
    known = sorted(b["name"] for b in plugins.list_backends())
    if name not in known:
        raise InvalidValueError(f"RunConfig(backend={name!r}): no plugin provides backend '{name}'; the backends "
                                f"are {', '.join(known)}. For a backend of your own, {HOW_TO_ADD}")
    if not _generates_kernels(name):
        types = plugins.backend_function_types(name)
        raise InvalidValueError(
            f"RunConfig(backend={name!r}): backend '{name}' generates code for "
            f"{', '.join(types) or 'no function type'}, not for kernels; RunConfig.backend names the backend of the "
            f"kernel functions ({', '.join(KERNEL_FUNCTION_TYPES)}), such as 'npu' (orchestration always goes to "
            "'host')")


def check_builds_for(name: str, platform: str) -> None:
    """The backend's manifest must name a toolchain for the platform, or its kernels could not be built."""
    if _has_toolchain(name, platform):
        return
    builders = sorted(b["name"] for b in plugins.list_backends()
                      if b["name"] != name and _generates_kernels(b["name"]) and _has_toolchain(b["name"], platform))
    raise InvalidValueError(
        f"RunConfig(backend={name!r}): backend '{name}' has no toolchain for platform '{platform}', so what it "
        f"generates cannot be built or run there; backends that build for '{platform}': "
        f"{', '.join(builders) or 'none'}. A backend of yours whose kernels a toolchain builds names it in its "
        f"manifest (`toolchains: {{{platform}: <toolchain>}}`); one that writes files for reading, such as "
        "'torch', is called directly: pypto.debug.torch_codegen(program).")


def _generates_kernels(name: str) -> bool:
    return bool(set(plugins.backend_function_types(name)) & set(KERNEL_FUNCTION_TYPES))


def _has_toolchain(name: str, platform: str) -> bool:
    try:
        _backend.toolchain_for(name, platform)
    except InvalidValueError:
        return False
    return True
