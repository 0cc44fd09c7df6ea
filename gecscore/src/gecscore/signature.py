"""Metric signatures: what a reported number depends on, formatted in one place.

A signature names the metric, its version and the options that change the number, joined by
``|``. It is printed by the CLI, stored beside every score, and keys caches in the database,
so its text must not change for the same options. The metric's name comes first and starts
with its registry name (``gecscore.registry.metric_of_signature``; PT-M2's names were changed
once to follow that rule, see README "Signatures"). Two spellings exist, both kept exactly
as they were first published:

* keyed (:data:`KEYED`): ``metric=cherrant-f0.5|version=1|mode=cs|refs=all`` (ChERRANT F,
  PT-M2, ERRANT, GLEU, GREEN, the reference-free metrics and the LLM judges);
* colon (:data:`COLON`, :data:`COLON_V`): ``m2score|version:m2scorer-3.2|beta:0.5``
  (M2; SentM2 ``sentm2|...``), ``imeasure|version:imeasure-fc79fdf-nomix|...`` and
  ``CLEME|v:1.0(...)|level:corpus`` (CLEME, CLEME2.0).

A field whose value is ``None`` is written as its bare name (a flag such as ``single``, or a
part formatted elsewhere, such as the weight provider's own signature); an empty bare part is
left out.
"""

from __future__ import annotations

import re

__all__ = [
    "COLON",
    "COLON_V",
    "KEYED",
    "WEIGHTS",
    "Field",
    "Signature",
    "SignatureStyle",
    "settings_of",
]

# Plain classes with __slots__, not dataclasses: `compare` formats a signature, and importing
# dataclasses costs ~12 ms of each `compare` run (its start-up time is measured; see the
# named tuples of compare.py). They behave as frozen dataclasses would: fields are read-only,
# equal by value, hashable.


class SignatureStyle:
    """How the parts are spelled: ``name_key`` before the metric name (``None``: the bare
    name), ``version_key`` before the version and ``assign`` between a key and its value."""

    __slots__ = ("assign", "name_key", "version_key")
    name_key: str | None
    version_key: str
    assign: str

    def __init__(self, *, name_key: str | None, version_key: str, assign: str) -> None:
        object.__setattr__(self, "name_key", name_key)
        object.__setattr__(self, "version_key", version_key)
        object.__setattr__(self, "assign", assign)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"SignatureStyle is read-only ({name})")

    def _key(self) -> tuple[str | None, str, str]:
        return (self.name_key, self.version_key, self.assign)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SignatureStyle) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"SignatureStyle(name_key={self.name_key!r}, version_key={self.version_key!r}, "
            f"assign={self.assign!r})"
        )


KEYED = SignatureStyle(name_key="metric", version_key="version", assign="=")
COLON = SignatureStyle(name_key=None, version_key="version", assign=":")
COLON_V = SignatureStyle(name_key=None, version_key="v", assign=":")
# An edit-weight provider's signature (``weights=bertscore-F|model=...``), part of a metric's.
WEIGHTS = SignatureStyle(name_key="weights", version_key="version", assign="=")

Field = tuple[str, str | None]


class Signature:
    """Metric, version and the ordered fields of a signature; ``str(sig)`` or ``sig.text``."""

    __slots__ = ("fields", "metric", "style", "version")
    metric: str
    version: str | None
    fields: tuple[Field, ...]
    style: SignatureStyle

    def __init__(
        self,
        metric: str,
        version: str | None,
        fields: tuple[Field, ...] = (),
        style: SignatureStyle = KEYED,
    ) -> None:
        object.__setattr__(self, "metric", metric)
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "fields", tuple(fields))
        object.__setattr__(self, "style", style)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"Signature is read-only ({name})")

    def _key(self) -> tuple[str, str | None, tuple[Field, ...], SignatureStyle]:
        return (self.metric, self.version, self.fields, self.style)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Signature) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return (
            f"Signature(metric={self.metric!r}, version={self.version!r}, "
            f"fields={self.fields!r}, style={self.style!r})"
        )

    @property
    def parts(self) -> list[str]:
        style = self.style
        parts = [self.metric if style.name_key is None else f"{style.name_key}={self.metric}"]
        if self.version is not None:
            parts.append(f"{style.version_key}{style.assign}{self.version}")
        for key, value in self.fields:
            if value is None:
                if key:
                    parts.append(key)
            else:
                parts.append(f"{key}{style.assign}{value}")
        return parts

    @property
    def text(self) -> str:
        return "|".join(self.parts)

    def __str__(self) -> str:
        return self.text

    def field(self, key: str) -> str | None:
        """The value of field ``key`` (``None`` for a bare part); KeyError when absent."""
        for name, value in self.fields:
            if name == key:
                return value
        raise KeyError(key)


# Values a signature records that are measured from the scored data, not chosen: CLEME's
# length-weighting bias ``b`` (``length(...,b=2.2056)``), the mean length of the references'
# changed chunks as partitioned together with each hypothesis, so it differs from system to
# system. The stored signature keeps it (the number is reproducible from it); two scores made
# with the same settings differ only there.
_MEASURED_VALUES = re.compile(r"(?<=[,(])b=[-+0-9.eE]+")


def settings_of(signature: str) -> str:
    """``signature`` with each measured value written ``*`` (``b=*``): what two scores must
    share to have been computed the same way (the meta-evaluation page's "mixed settings")."""
    return _MEASURED_VALUES.sub("b=*", signature)
