"""schemas/README.md is true: its dead-letter codes come from the one list (schemas/errors.py),
and what the list says of each code (does its DeadLetter name a field?) is what happens; its
topic table comes from the topic map (schemas/topics.py)."""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path

from schemas.errors import ERROR_CODES, codes_table
from schemas.topics import topics_table
from tests.fuzz.worker_path import KEYS, folder, seeds, split

README = Path(__file__).resolve().parents[2] / "schemas" / "README.md"


def test_the_readme_table_is_generated_from_the_one_list() -> None:
    text = README.read_text()
    shown = text.split("<!-- codes:start -->\n")[1].split("\n<!-- codes:end -->")[0]
    assert shown == codes_table(), "regenerate: .venv/bin/python -m schemas.errors"


def test_the_readme_topics_are_generated_from_the_topic_map() -> None:
    text = README.read_text()
    shown = text.split("<!-- topics:start -->\n")[1].split("\n<!-- topics:end -->")[0]
    assert shown == topics_table(), "regenerate: .venv/bin/python -m schemas.topics"


def test_every_code_the_worker_uses_is_in_the_list() -> None:
    used = {"key_mismatch", "misrouted", "wave_failed", "internal_error", "implausible_time"}
    assert used <= set(ERROR_CODES)
    assert all(
        entry.names_field in ("always", "never", "sometimes") for entry in ERROR_CODES.values()
    )


def test_whether_a_dead_letter_names_a_field_is_what_the_list_says() -> None:
    """Thousands of mutated golden inputs: each code's field is present or absent as said."""
    rng = random.Random(23)
    fields: dict[str, set[bool]] = defaultdict(set)
    base = seeds()
    for _ in range(4_000):
        data = bytearray(rng.choice(base))
        for _ in range(rng.randint(1, 4)):
            at = rng.randrange(len(data) + 1)
            data[at : at + rng.randint(0, 3)] = rng.randbytes(rng.randint(0, 3))
        key, value = split(bytes(data))
        state = folder().new_state(0)
        folded = folder().fold(state, key, value, 0, 1_767_225_600_000)
        if folded.rejection is not None:
            fields[folded.rejection.code].add(folded.rejection.field is not None)
    folded = folder().fold(folder().new_state(1), KEYS[0], base[0][1:], 0)  # misrouted
    fields[folded.rejection.code].add(folded.rejection.field is not None)
    assert len(fields) >= 10, fields
    for code, named in fields.items():
        said = ERROR_CODES[code].names_field
        assert said == "sometimes" or named == {said == "always"}, (code, named, said)


def test_the_readme_json_examples_are_accepted() -> None:
    """Every JSON input shown in schemas/README.md decodes (issue 23: one did not)."""
    import re

    from schemas.codec import decode_queue_event

    examples = re.findall(r"`(\{\"type\": .*?\})`", README.read_text())
    assert examples
    for example in examples:
        decode_queue_event(example.encode())
