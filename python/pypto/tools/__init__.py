"""Developer tools that read PyPTO's compile outputs (see docs/memory-map.md)."""
