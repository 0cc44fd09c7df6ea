"""The one rule for text that can be annotated and stored, used at every door.

A sentence (source, reference, correction, system hypothesis) is refused when it is longer
than `GEC_MAX_SENTENCE_CHARS`, or holds a character that the annotation box refuses and
PostgreSQL or a reader cannot tell apart: NUL and the other C0/C1 control characters, invisible
format characters such as U+200B (ZERO WIDTH SPACE) or U+FEFF, lone surrogates and
private-use characters. Imports (every format in `datasets/formats/`), system-output uploads,
the annotation box (its script, `static/annotate/annotate.js`; no `maxlength`, which would
cut a paste silently) and the annotate/review APIs call this module,
so a text accepted at one door is accepted at all of them, and nothing is cut silently.

Tab and line feed are field and line separators in the file formats; inside one sentence
they are refused like any other control character.
"""

from __future__ import annotations

import functools
import re
import sys
import unicodedata

from django.conf import settings

# Real data sets fit well below this (longest CoNLL-14 sentence ~1,500 characters, MuCGEC
# dev ~500), and the exact aligner still compares two sentences of this length.
DEFAULT_MAX_SENTENCE_CHARS = 5000

# Unicode categories no sentence may hold: control (Cc: C0, DEL, C1), format (Cf: U+200B,
# U+200E/F, U+FEFF, ...), surrogate (Cs: lone surrogates from broken decoders), private use
# (Co: glyphs only one font knows).
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co"})


def max_sentence_chars() -> int:
    """The configured maximum length of one sentence, in characters (code points)."""
    return int(getattr(settings, "GEC_MAX_SENTENCE_CHARS", DEFAULT_MAX_SENTENCE_CHARS))


@functools.cache
def _refused_pattern(allow: str) -> re.Pattern[str]:
    """One character class of every refused code point (built once per `allow`, ~0.3 s): a
    regular expression scans a 50 MB import in C instead of a Python loop over each character."""
    ranges: list[str] = []
    start = None
    for code in range(sys.maxunicode + 2):
        refused = (
            code <= sys.maxunicode
            and chr(code) not in allow
            and unicodedata.category(chr(code)) in _REFUSED_CATEGORIES
        )
        if refused and start is None:
            start = code
        elif not refused and start is not None:
            end = code - 1
            ranges.append(f"\\U{start:08x}" + (f"-\\U{end:08x}" if end != start else ""))
            start = None
    return re.compile("[" + "".join(ranges) + "]")


def refused_character(text: str, *, allow: str = "") -> tuple[int, str] | None:
    """The first character of `text` the rule refuses, as (1-based position, char), or None.
    `allow` names characters a caller treats as separators (a tab in a MuCGEC line)."""
    match = _refused_pattern(allow).search(text)
    if match is None:
        return None
    return match.start() + 1, match.group()


def describe_character(char: str) -> str:
    """U+200B (ZERO WIDTH SPACE): a name a person can look up, even for unnamed controls."""
    name = unicodedata.name(char, "")
    if not name and char == "\x00":
        name = "NUL"
    elif not name and unicodedata.category(char) == "Cc":
        name = "control character"
    elif not name:
        name = "invisible character"
    return f"U+{ord(char):04X} ({name})"


def text_problem(text: str, *, allow: str = "") -> str | None:
    """Why `text` cannot be annotated or stored, in words, or None when it can."""
    limit = max_sentence_chars()
    if len(text) > limit:
        return (
            f"{len(text):,} characters, above the maximum sentence length of {limit:,} "
            "(setting GEC_MAX_SENTENCE_CHARS); split the sentence"
        )
    found = refused_character(text, allow=allow)
    if found is not None:
        position, char = found
        name = describe_character(char).split(" ", 1)[1]  # "(ZERO WIDTH SPACE)"
        return (
            f"control character U+{ord(char):04X} at position {position} {name}; control and "
            "invisible characters cannot be annotated: remove it"
        )
    return None


def looks_binary(data: bytes) -> bool:
    """Bytes that are no text file at all (an image, an archive, a PDF): a well-known binary
    signature, or control bytes (16 or more) making up more than a tenth of the first 8 KiB (a text file
    with one stray NUL is text, and is told the line of that NUL)."""
    head = data[:8192]
    signatures = (b"\x89PNG", b"GIF8", b"\xff\xd8\xff", b"PK\x03\x04", b"%PDF", b"\x1f\x8b")
    if head.startswith(signatures):
        return True
    controls = sum(1 for byte in head if byte < 0x20 and byte not in (0x09, 0x0A, 0x0D))
    return controls >= 16 and controls * 10 > len(head)


BINARY_MESSAGE = (
    "a binary file (an image, an archive or a document), not text; "
    "upload the sentences as a UTF-8 text file"
)
