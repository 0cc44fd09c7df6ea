"""Imported once by the worker fork server (see ``processes.py``): loads the extractor, the
prebuilt pinyin table and OpenCC's dictionaries, so every worker forked from there has them."""

from __future__ import annotations

from gecscore.align import char_pinyin
from gecscore.tokenize import normalize_target

__all__ = []


char_pinyin("中")
normalize_target("中", simplified=True)
normalize_target("中", simplified=False)
