"""The one set of option checks of the library: every metric's ``Config`` checks itself with
these in ``__post_init__``, and the command line's argument types (``commands/arguments.py``)
call the same rules, so an option means and refuses the same thing everywhere.

Each checker raises :class:`~gecscore.errors.OptionError` (a ``GECError`` and a
``ValueError``) naming the option as the Python API spells it (``max_refs``); the command line
turns that into a usage error naming its flag. NaN and the infinities are refused wherever a
finite number is meant (an infinite beta makes F NaN, and ``--json`` output not JSON).

Imports nothing beyond ``math`` and the error classes: ``compare`` loads this module at
start-up (through ``counts``), and its start-up time is part of its contract.
"""

from __future__ import annotations

import math

from gecscore.devices import DEVICES, check_device_name
from gecscore.errors import OptionError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = [
    "DEVICES",
    "check_beta",
    "check_choice",
    "check_count",
    "check_device",
    "check_non_negative",
    "check_positive",
    "check_probability",
]


def _real(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise OptionError(f"{name} must be a number, got {value!r}")
    return float(value)


def check_positive(value: float, name: str) -> None:
    """A finite number above 0 (a weight, a timeout)."""
    if not 0 < _real(value, name) < math.inf:
        raise OptionError(f"{name} must be a positive finite number, got {value}")


def check_beta(beta: float, name: str = "beta") -> None:
    """The one rule for every ``beta`` of the library: a positive finite number (0 or less has
    no meaning; ``inf`` and NaN make F NaN)."""
    check_positive(beta, name)


def check_non_negative(value: float, name: str) -> None:
    """A finite number of at least 0 (a wait, a weight that may be 0)."""
    if not 0 <= _real(value, name) < math.inf:
        raise OptionError(f"{name} must be a finite number of at least 0, got {value}")


def check_probability(value: float, name: str) -> None:
    """A number in [0, 1] (a threshold on a similarity or a ratio)."""
    if not 0 <= _real(value, name) <= 1:
        raise OptionError(f"{name} must be a number from 0 to 1, got {value}")


def check_count(value: int | None, name: str, minimum: int = 1, *, optional: bool = False) -> None:
    """A whole number of at least ``minimum`` (``None`` too when ``optional``: no limit)."""
    if value is None and optional:
        return
    if isinstance(value, bool) or not isinstance(value, int):
        raise OptionError(f"{name} must be a whole number, got {value!r}")
    if value < minimum:
        raise OptionError(f"{name} must be at least {minimum}, got {value}")


def check_choice(value: object, name: str, choices: Iterable[object]) -> None:
    """One of ``choices``."""
    allowed = tuple(choices)
    if value not in allowed:
        shown = ", ".join(str(choice) for choice in allowed)
        raise OptionError(f"{name} must be one of {shown}, got {value!r}")


def check_device(device: str, name: str = "device") -> None:
    """``auto``, ``cpu``, ``cuda`` or ``cuda:N``, exactly: the one rule of
    ``gecscore.devices`` (whether torch sees that GPU is checked when the model is loaded:
    ``Unavailable``)."""
    check_device_name(device, name)
