"""Objects made by matcher.fastbuild equal those made by their dataclass constructor."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
from hypothesis import given
from hypothesis import strategies as st

from matcher.core import LastMatch, Match, Seat, Team, WaitingTicket
from matcher.duel.model import DuelPlayer
from matcher.fastbuild import builder
from matcher.queue.events import DequeueReason
from matcher.queue.outcomes import Dequeued

texts = st.text(max_size=8)
maybe_texts = st.none() | texts
ints = st.integers(-(10**6), 10**6)
VALUES = {
    Seat: st.tuples(
        texts, texts, texts, ints, st.lists(st.tuples(texts, texts), max_size=2).map(tuple)
    ),
    Team: st.tuples(texts, st.lists(texts, max_size=3).map(tuple)),
    Match: st.tuples(texts, st.just(()), texts, texts, texts, st.just((("d", 1.0),))),
    LastMatch: st.tuples(texts, st.just(()), st.lists(texts, max_size=2).map(tuple)),
    WaitingTicket: st.tuples(texts, ints),
    DuelPlayer: st.tuples(
        texts, st.none() | ints, st.none() | ints, ints, texts, st.just(()), texts
    ),
    Dequeued: st.tuples(
        texts,
        texts,
        texts,
        st.sampled_from(DequeueReason),
        ints,
        ints,
        maybe_texts,
        maybe_texts,
        maybe_texts,
        st.none() | ints,
    ),
}


@pytest.mark.parametrize("cls", list(VALUES), ids=lambda cls: cls.__name__)
@given(data=st.data())
def test_a_built_object_is_the_constructed_one(cls: type, data: st.DataObject) -> None:
    values = data.draw(VALUES[cls])
    built, constructed = builder(cls)(*values), cls(*values)
    assert type(built) is type(constructed)
    assert built == constructed and repr(built) == repr(constructed)
    assert hash(built) == hash(constructed)
    assert dataclasses.astuple(built) == dataclasses.astuple(constructed)
    assert pickle.loads(pickle.dumps(built)) == constructed
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.__setattr__(dataclasses.fields(cls)[0].name, "changed")


def test_classes_whose_init_does_more_are_refused() -> None:
    @dataclasses.dataclass(frozen=True)
    class Unslotted:
        a: int

    @dataclasses.dataclass(slots=True)
    class Mutable:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        a: int

        def __post_init__(self) -> None:
            assert self.a > 0

    @dataclasses.dataclass(frozen=True, slots=True)
    class Derived:
        a: int
        b: int = dataclasses.field(init=False, default=0)

    for cls in (Unslotted, Mutable, Checked, Derived, int):
        with pytest.raises(TypeError):
            builder(cls)


def test_the_hot_classes_are_built_as_their_twin_and_handed_their_class() -> None:
    from matcher.fastbuild import _through_twin

    for cls in VALUES:
        names = [field.name for field in dataclasses.fields(cls)]
        assert _through_twin(cls, names) is not None, cls.__name__


def test_a_class_with_a_slotted_base_is_built_through_its_descriptors() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class Base:
        a: int

    @dataclasses.dataclass(frozen=True, slots=True)
    class Child(Base):
        b: str

    built = builder(Child)(1, "x")
    assert type(built) is Child and built == Child(1, "x") and hash(built) == hash(Child(1, "x"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        built.__setattr__("a", 2)
