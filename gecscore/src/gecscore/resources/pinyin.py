"""Pinyin readings of the CJK characters (pypinyin, as ChERRANT takes them), prebuilt once."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from gecscore.resources.prebuilt import _distribution_folder, _interner, prebuilt

__all__ = [
    "PYPINYIN_PACKAGE",
    "char_readings",
    "pypinyin_readings",
]


# --- pinyin readings of the CJK characters ---------------------------------------------------

# The characters the aligner treats as CJK (align.costs._all_cjk): the only ones it asks readings of
# at char level.
CJK_FIRST, CJK_LAST = 0x4E00, 0x9FFF
PYPINYIN_PACKAGE = "pypinyin"


def pypinyin_readings(token: str) -> frozenset[str]:
    """All readings of a token as ChERRANT takes them (pypinyin NORMAL style, heteronyms on,
    first character)."""
    from pypinyin import Style, pinyin

    return frozenset(pinyin(token, style=Style.NORMAL, heteronym=True)[0])


def _pypinyin_identity() -> bytes | None:
    """A digest of the installed pypinyin: its RECORD (sha256 of every file it installed)."""
    distribution = _distribution_folder(PYPINYIN_PACKAGE)
    if distribution is None:
        return None
    try:
        return hashlib.sha256((distribution / "RECORD").read_bytes()).digest()
    except OSError:
        return None


_CHAR_READINGS: Mapping[str, frozenset[str]] | None = None


def char_readings() -> Mapping[str, frozenset[str]]:
    """pypinyin_readings of every character U+4E00..U+9FFF, from the prebuilt form (loading
    pypinyin's dictionaries takes ~0.4 s; the table ~10 ms). Empty when pypinyin's files
    cannot be identified: callers then ask pypinyin_readings per character."""
    global _CHAR_READINGS
    if _CHAR_READINGS is None:
        identity = _pypinyin_identity()
        if identity is None:
            _CHAR_READINGS = {}
        else:

            def build() -> dict[str, frozenset[str]]:
                intern = _interner()
                return {
                    chr(point): intern(frozenset(map(intern, pypinyin_readings(chr(point)))))
                    for point in range(CJK_FIRST, CJK_LAST + 1)
                }

            _CHAR_READINGS = prebuilt("pinyin-chars", identity, build)
    return _CHAR_READINGS
