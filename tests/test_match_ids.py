"""Match ids are uuid5 of the wave and its tickets: the fast derivation must equal the
standard library's, for any text (ids are a public contract: consumers de-duplicate by them)."""

from __future__ import annotations

import uuid

from hypothesis import given
from hypothesis import strategies as st

from matcher.core import MATCH_ID_NAMESPACE, derive_match_id, uuid5_text


@given(st.text())
def test_the_fast_uuid5_equals_the_standard_library(name: str) -> None:
    assert uuid5_text(name) == str(uuid.uuid5(MATCH_ID_NAMESPACE, name))


@given(st.lists(st.text(min_size=1), min_size=1, max_size=6, unique=True))
def test_a_match_id_ignores_the_order_of_its_tickets(tickets: list[str]) -> None:
    forward = derive_match_id("1v1", "eu", "1", tuple(tickets))
    assert forward == derive_match_id("1v1", "eu", "1", tuple(reversed(tickets)))
    assert uuid.UUID(forward).version == 5


@given(st.lists(st.text(), max_size=40))
def test_the_bulk_uuid5_texts_equal_the_standard_library(names: list[str]) -> None:
    import hashlib

    from matcher.placement import uuid5_texts

    digests = [hashlib.sha1(MATCH_ID_NAMESPACE.bytes + n.encode()).digest() for n in names]
    assert uuid5_texts(digests) == [str(uuid.uuid5(MATCH_ID_NAMESPACE, n)) for n in names]


@given(
    st.lists(st.lists(st.text(min_size=1), max_size=4).map(tuple), max_size=30),
    st.booleans(),
)
def test_bulk_match_ids_equal_one_by_one(groups: list[tuple[str, ...]], twice: bool) -> None:
    from matcher.placement import _IDS, derive_match_ids

    _IDS.clear()
    if twice:  # some remembered, some not
        derive_match_ids("1v1", "eu", "7", groups[::2])
    expected = [derive_match_id("1v1", "eu", "7", group) for group in groups]
    assert derive_match_ids("1v1", "eu", "7", groups) == expected
