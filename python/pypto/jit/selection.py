"""What a RunConfig selects from the plugins, made ready before compiling.

``RunConfig.plugins`` are loaded first, so that the pipeline may name their
passes and ``RunConfig.backend`` their backends. The backend is checked
before the passes run, so a wrong name costs no lowering and its error lists
the backends there are and how to add the plugin that provides one. (An
unknown pass is the pass manager's error, which points at the pipeline line.)
"""

from __future__ import annotations

from pypto import InvalidValueError, plugins
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


def check_kernel_backend(name: str) -> None:
    known = sorted(b["name"] for b in plugins.list_backends())
    if name not in known:
        raise InvalidValueError(f"RunConfig(backend={name!r}): no plugin provides backend '{name}'; the backends "
                                f"are {', '.join(known)}. For a backend of your own, {HOW_TO_ADD}")
    types = plugins.backend_function_types(name)
    if not set(types) & set(KERNEL_FUNCTION_TYPES):
        raise InvalidValueError(
            f"RunConfig(backend={name!r}): backend '{name}' generates code for "
            f"{', '.join(types) or 'no function type'}, not for kernels; RunConfig.backend names the backend of the "
            f"kernel functions ({', '.join(KERNEL_FUNCTION_TYPES)}), such as 'npu' (orchestration always goes to "
            "'host')")
