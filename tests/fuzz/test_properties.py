"""Property tests of the worker's per-record path from the golden inputs: mutated bytes and
mutated JSON fields always end applied, as a no-op or as exactly one valid DeadLetter."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.fuzz.worker_path import GOLDEN, run_case, seeds

SEEDS = seeds()
JSON_INPUTS = [
    json.loads(path.read_text())
    for event in ("TicketJoined", "TicketLeft", "WaveTick")
    for path in sorted((GOLDEN / event).glob("*.json"))
]

odd_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False)
    | st.text(alphabet=st.characters(codec="utf-8"), max_size=200)
    | st.sampled_from(["", "\x85", "a\x00b", "\u2028", "1v1", "eu", "REQUESTED", "x" * 129]),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=12,
)


@st.composite
def byte_edits(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(SEEDS)))
    for _ in range(draw(st.integers(1, 6))):
        at = draw(st.integers(0, len(data)))
        edit = draw(st.sampled_from(["replace", "insert", "delete", "cut"]))
        chunk = draw(st.binary(min_size=1, max_size=8))
        if edit == "replace":
            data[at : at + len(chunk)] = chunk
        elif edit == "insert":
            data[at:at] = chunk
        elif edit == "delete":
            del data[at : at + len(chunk)]
        else:
            del data[at:]
    return bytes(data)


def _paths(body: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(body, dict):
        for name, value in body.items():
            found += _paths(value, (*prefix, name))
    elif isinstance(body, list):
        for index, value in enumerate(body):
            found += _paths(value, (*prefix, index))
    return found


@st.composite
def field_edits(draw: st.DrawFn) -> bytes:
    body = json.loads(json.dumps(draw(st.sampled_from(JSON_INPUTS))))
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(_paths(body)))
        parent = body
        for part in path[:-1]:
            parent = parent[part]
        if draw(st.booleans()) and isinstance(parent, dict):
            del parent[path[-1]]
        else:
            parent[path[-1]] = draw(odd_values)
        if not _paths(body):
            break
    mode = draw(st.integers(0, 3))
    text = json.dumps(body, ensure_ascii=draw(st.booleans()))
    return bytes([mode]) + text.encode("utf-8", "surrogatepass")


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(byte_edits())
def test_mutated_golden_bytes_never_break_the_path(case: bytes) -> None:
    run_case(case)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(field_edits())
def test_mutated_golden_fields_never_break_the_path(case: bytes) -> None:
    run_case(case)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 3), st.binary(max_size=300))
def test_arbitrary_bytes_never_break_the_path(mode: int, value: bytes) -> None:
    run_case(bytes([mode]) + value)
