"""The operator registry: every op with its schema, and type-checked call construction."""

from pypto._core.ops import OpDef, create, exists, get, list as list_ops

__all__ = ["OpDef", "create", "exists", "get", "list_ops"]
