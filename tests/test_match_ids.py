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
