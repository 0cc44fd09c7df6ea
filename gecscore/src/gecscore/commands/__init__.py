"""CLI command modules of ``python -m scoring.gec`` (one module per metric family).

Each module exposes ``register(subparsers) -> None``; ``scoring.gec.registry.COMMANDS`` names the
module of every command, and only the module of the command being run is imported.
"""
