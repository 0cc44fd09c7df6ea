"""CLI command modules of ``python -m gecscore`` (one module per metric family).

Each module exposes ``register(subparsers) -> None``; ``gecscore.registry.COMMANDS`` names the
module of every command, and only the module of the command being run is imported.
"""

__all__ = []
