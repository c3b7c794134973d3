"""Faster construction of frozen, slotted dataclasses built by the thousand in a big wave.

A frozen dataclass's ``__init__`` sets each field through ``object.__setattr__`` by
name (it must get past the frozen ``__setattr__``). :func:`builder` builds the object as
an instance of a mutable twin class with the very same slots (made without a call of
its own: ``make`` stores each field with the interpreter's fast slot store), then
gives the object its real class (``__class__`` assignment, which CPython allows between
classes of identical layout). The object is equal in every way (type, fields, hash,
repr, frozenness) to the one ``cls(...)`` makes (tests/test_fastbuild.py). It is used
only for the classes whose measured saving matters (docs/benchmarks/duel.md, "Where
fastbuild is used"); every other class is built through its own constructor.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar, cast

T = TypeVar("T")
P = ParamSpec("P")


def builder(constructor: Callable[P, T]) -> Callable[P, T]:
    """Return ``make(*values)`` equal to ``cls(*values)`` with every field given.

    Typed as the class's own constructor, so mypy checks every call of ``make`` against
    the dataclass's fields (every field must still be given: ``make`` has no defaults).
    Only for a frozen, slotted dataclass without ``__post_init__`` whose fields all go
    through ``__init__``: the one thing ``__init__`` does is then to set the fields,
    which ``make`` does without the name lookups. Anything else raises TypeError.
    Used only where docs/benchmarks/duel.md's measurement shows it matters (ADR 0082).

    >>> from matcher.core import Seat
    >>> make_seat = builder(Seat)
    >>> make_seat("t-1", "p-1", "bw", 1500, ()) == Seat("t-1", "p-1", "bw", 1500)
    True

    Notes: O(fields) per object.
    """
    cls = cast("type[T]", constructor)
    params = getattr(cls, "__dataclass_params__", None)
    if params is None or not params.frozen or "__slots__" not in cls.__dict__:
        raise TypeError(f"{cls.__name__}: not a frozen, slotted dataclass")
    if hasattr(cls, "__post_init__"):
        raise TypeError(f"{cls.__name__}: __post_init__ would be skipped")
    fields = dataclasses.fields(cls)  # type: ignore[arg-type]
    if not all(field.init for field in fields):
        raise TypeError(f"{cls.__name__}: a field is not set by __init__")
    names = [field.name for field in fields]
    make = _through_twin(cls, names) or _through_descriptors(cls, names)
    make.__qualname__ = f"builder({cls.__name__})"
    return cast("Callable[P, T]", make)


def _through_twin(cls: type[T], names: list[str]) -> Callable[..., T] | None:
    """``make`` building a mutable twin of ``cls`` and handing it ``cls`` as its class;
    None when CPython refuses the hand-over (a base class with its own slots, say)."""
    if cls.__bases__ != (object,) or tuple(cls.__dict__["__slots__"]) != tuple(names):
        return None
    arguments = ", ".join(names)
    stores = "".join(f"\n    obj.{name} = {name}" for name in names)
    namespace: dict[str, Any] = {"cls": cls, "new": object.__new__}
    # Generated like dataclasses generates __init__: the source holds nothing but field names.
    # The twin has no __init__: ``make`` stores the slots itself, in its own frame, instead
    # of a class call entering a second one.
    source = (
        f"class Twin:\n    __slots__ = {tuple(names)!r}\n"
        f"def make({arguments}):\n    obj = new(Twin){stores}\n    obj.__class__ = cls\n"
        "    return obj\n"
    )
    exec(source, namespace)
    make: Callable[..., T] = namespace["make"]
    try:
        make(*[None] * len(names))
    except TypeError:  # "object layout differs"
        return None
    return make


def _through_descriptors(cls: type[T], names: list[str]) -> Callable[..., T]:
    """``make`` setting each slot through its descriptor (no frozen ``__setattr__``)."""
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls}
    # A slot of a base class is that base's descriptor.
    owners = {name: next(k for k in cls.__mro__ if name in k.__dict__) for name in names}
    slots = {name: owner.__dict__[name] for name, owner in owners.items()}
    namespace.update({f"set_{name}": slot.__set__ for name, slot in slots.items()})
    # Generated like dataclasses generates __init__: one statement per field, no loop.
    lines = [f"def make({', '.join(names)}):", "    obj = new(cls)"]
    lines += [f"    set_{name}(obj, {name})" for name in names]
    lines.append("    return obj")
    exec("\n".join(lines), namespace)  # the source holds nothing but field names
    make: Callable[..., T] = namespace["make"]
    return make
