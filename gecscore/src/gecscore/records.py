"""Run-time stand-ins for ``typing.NamedTuple`` and ``typing.Literal`` that import no typing.

The metric commands are timed against reference tools as whole processes (issue #17), and
``typing`` plus the class creation of ``typing.NamedTuple`` (which compiles a ``ForwardRef``
for every field annotation) cost ~6 ms of ``cleme``'s start-up. Modules on that path import::

    TYPE_CHECKING = False  # typing is not imported at run time: gecscore/src/gecscore/records.py
    if TYPE_CHECKING:
        from typing import Literal, NamedTuple
    else:
        from gecscore.records import Literal, NamedTuple

Type checkers see typing's; at run time a class written as ``class C(NamedTuple)`` with
annotated fields, defaults and methods is the ``collections.namedtuple`` with those fields,
defaults, methods, docstring and (string) annotations, as typing would build it, and
``Literal["a", "b"]`` is the tuple of its values (these aliases only serve annotations).
"""

from __future__ import annotations

from collections import namedtuple

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

__all__ = [
    "Literal",
    "NamedTuple",
]

# Called through a plain callable: mypy's namedtuple() check wants literal field lists.
_tuple_class: Callable[..., type] = namedtuple

# What typing.NamedTuple also leaves out when it copies the class body onto the tuple class.
_NOT_COPIED = frozenset({"__module__", "__qualname__", "__annotations__", "__slots__"})


class _NamedTupleMeta(type):
    def __new__(mcs, name: str, bases: tuple[type, ...], namespace: dict[str, object]) -> type:
        if not bases:  # NamedTuple itself
            return super().__new__(mcs, name, bases, namespace)
        annotations = namespace.get("__annotations__", {})
        assert isinstance(annotations, dict)
        fields = list(annotations)
        defaults = [namespace[field] for field in fields if field in namespace]
        if any(field not in namespace for field in fields[len(fields) - len(defaults) :]):
            raise TypeError(f"{name}: a field without a default follows a field with one")
        cls = _tuple_class(
            name, fields, defaults=defaults or None, module=str(namespace["__module__"])
        )
        cls.__qualname__ = str(namespace["__qualname__"])
        cls.__annotations__ = dict(annotations)
        for key, value in namespace.items():
            if key not in _NOT_COPIED and key not in fields:
                setattr(cls, key, value)
        return cls


class NamedTuple(metaclass=_NamedTupleMeta):
    """Base of run-time named tuples (see the module docstring)."""


class _Literal:
    def __getitem__(self, values: object) -> tuple[object, ...]:
        return values if isinstance(values, tuple) else (values,)


Literal = _Literal()
