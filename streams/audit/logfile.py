"""Topic records at rest: an Avro object container file, the format's standard for logs.

Each record keeps its topic, partition, offset, timestamp, key and value bytes unchanged,
so a replay of the file makes exactly the decisions a replay of the broker makes.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, BinaryIO

from fastavro import parse_schema, reader, writer

from streams.audit.rederive import LogRecord

EXPORT_SCHEMA: dict[str, Any] = {
    "type": "record",
    "name": "TopicRecord",
    "namespace": "io.wavematch.export.v1",
    "doc": "One Kafka record exported by `wavematch export`, bytes unchanged.",
    "fields": [
        {"name": "topic", "type": "string", "doc": "Topic the record was read from."},
        {"name": "partition", "type": "int", "doc": "Partition of the record."},
        {"name": "offset", "type": "long", "doc": "Offset of the record in its partition."},
        {"name": "key", "type": ["null", "bytes"], "default": None, "doc": "Record key."},
        {"name": "value", "type": ["null", "bytes"], "default": None, "doc": "Record value."},
        {
            "name": "timestamp",
            "type": ["null", "long"],
            "default": None,
            "doc": "Record timestamp in epoch ms (the fold checks event times against it, "
            "docs/adr/0074); null in files exported before it was kept.",
        },
    ],
}
_PARSED = parse_schema(EXPORT_SCHEMA)


#: The metadata key of the number of records an export holds: a file cut at a block's
#: end reads as a whole container, and only the count tells it is short.
RECORDS_KEY = "wavematch.records"


def write_log(path: Path, records: Iterable[LogRecord], metadata: dict[str, str]) -> int:
    """Write ``records`` to ``path`` (deflate-compressed); return how many were written.
    A sequence's length is kept in the metadata, so a file cut short is told."""
    count = 0
    if isinstance(records, Sequence):
        metadata = {**metadata, RECORDS_KEY: str(len(records))}

    def rows() -> Iterator[dict[str, Any]]:
        nonlocal count
        for record in records:
            count += 1
            yield {
                "topic": record.topic,
                "partition": record.partition,
                "offset": record.offset,
                "key": record.key,
                "value": record.value,
                "timestamp": record.timestamp,
            }

    with path.open("wb") as out:
        writer(out, _PARSED, rows(), codec="deflate", metadata=metadata)
    return count


def read_log(path: Path) -> Iterator[LogRecord]:
    """The records of an export; ValueError if ``path`` is another Avro file (or none), or
    one cut short or damaged (naming the record it could not read)."""
    with path.open("rb") as source:
        rows = _export_reader(source)
        written = rows.metadata.get(RECORDS_KEY)
        count = 0
        try:
            for row in rows:
                yield LogRecord(
                    row["topic"],
                    row["partition"],
                    row["offset"],
                    row["key"],
                    row["value"],
                    row.get("timestamp"),
                )
                count += 1
        # What fastavro raises on a block cut short or bytes changed in place.
        except (EOFError, IndexError, KeyError, TypeError, OverflowError, zlib.error) as error:
            raise ValueError(
                f"cut short or damaged after {count} records ({type(error).__name__}: {error})"
            ) from None
        if written is not None and str(count) != _text(written):
            raise ValueError(f"cut short: {count} of its {_text(written)} records")


def _text(value: str | bytes) -> str:
    return value.decode() if isinstance(value, bytes) else value


#: The export's record name: another Avro container file is not an export.
EXPORT_NAME = f"{EXPORT_SCHEMA['namespace']}.{EXPORT_SCHEMA['name']}"


def _export_reader(source: BinaryIO) -> Any:
    if source.read(4) != b"Obj\x01":  # the container format's magic
        raise ValueError("not an Avro object container file (`wavematch export` writes one)")
    source.seek(0)
    try:
        rows = reader(source)
    except KeyError as missing:  # a container file without a schema: a single datum
        raise ValueError(f"no {missing} in its header") from None
    schema = rows.writer_schema
    name = schema.get("name") if isinstance(schema, dict) else None
    if name != EXPORT_NAME:
        raise ValueError(f"its records are {name or schema!r}, not {EXPORT_NAME!r}")
    return rows


def read_metadata(path: Path) -> dict[str, str]:
    """The export's metadata; ValueError if ``path`` is another Avro file (or none)."""
    with path.open("rb") as source:
        rows = _export_reader(source)
        return {k: _text(v) for k, v in rows.metadata.items()}
