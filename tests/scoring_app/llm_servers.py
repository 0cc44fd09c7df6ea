"""The library tests' local LLM servers, loaded from their files for the platform's tests (the
platform's ``tests`` package is another one than the library's): ``ChatServer`` answers the
judges' prompts (gecscore/tests/reffree/chat_server.py), ``MisbehavingServer`` hangs, drips,
floods or redirects (gecscore/tests/reffree/misbehaving_server.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

LIBRARY_TESTS = Path(__file__).resolve().parents[2] / "gecscore/tests/reffree"


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"gecscore_{name}", LIBRARY_TESTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


ChatServer = _load("chat_server").ChatServer
MisbehavingServer = _load("misbehaving_server").MisbehavingServer
