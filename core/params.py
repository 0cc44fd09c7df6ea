"""Numbers from a request (query string, form, JSON body): one parser for pages and the API.

Every numeric parameter has a range. An unbounded one let `?bootstrap=100000000` allocate
gigabytes in a web worker, and a seed past 64 bits overflow its database column (a 500).
The error names the parameter (`field`), so the API answers `{"field": "bootstrap"}` and a
page says which box to fix.
"""

from __future__ import annotations

import math
from typing import Any, overload

from core.exceptions import ServiceError

# A database integer column (IntegerField) holds a signed 32-bit number.
MAX_INT32 = 2**31 - 1
# A database id (BigAutoField) is a signed 64-bit number; 18 digits always fit.
MAX_ID = 10**18 - 1
# Longer digit strings are refused before int() reads them (int() of a huge string is slow).
MAX_DIGITS = 12


@overload
def bounded_int(
    raw: Any, *, field: str, low: int, high: int, default: int, label: str = ""
) -> int: ...


@overload
def bounded_int(
    raw: Any, *, field: str, low: int, high: int, default: None = None, label: str = ""
) -> int | None: ...


def bounded_int(
    raw: Any, *, field: str, low: int, high: int, default: int | None = None, label: str = ""
) -> int | None:
    """`raw` (text or a JSON number) as a whole number in [low, high]; `default` when it is
    missing or blank. Anything else is a ServiceError naming `field` (and `label`, the words
    a page shows, when given) and the range."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return default
    if isinstance(raw, bool):
        number = None
    elif isinstance(raw, int):
        number = raw
    elif isinstance(raw, float) and raw.is_integer():
        number = int(raw)
    else:
        text = str(raw).strip()
        digits = text[1:] if text[:1] in "+-" else text
        ok = digits.isascii() and digits.isdigit() and len(digits) <= MAX_DIGITS
        number = int(text) if ok else None
    if number is None or not low <= number <= high:
        raise ServiceError(
            f"{label or field} must be a whole number from {low} to {high} (got {str(raw)[:40]!r})",
            field=field,
        )
    return number


def bounded_float(raw: Any, *, field: str, low: float, high: float, default: float) -> float:
    """`raw` as a finite number in [low, high]; `default` when missing or blank."""
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return default
    number: float | None
    try:
        number = None if isinstance(raw, bool) else float(str(raw)[:40])
    except ValueError:
        number = None
    if number is None or not math.isfinite(number) or not low <= number <= high:
        raise ServiceError(
            f"{field} must be a number from {low:g} to {high:g} (got {str(raw)[:40]!r})",
            field=field,
        )
    return number
