"""Build ``schemas/asyncapi.yaml`` (AsyncAPI 3.0) from the topic map and the ``.avsc`` files.

The document is generated so that it cannot drift from :mod:`schemas.topics`; a test
fails when the committed file differs from what this module renders. Regenerate with::

    .venv/bin/python -m schemas.asyncapi > schemas/asyncapi.yaml
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from schemas.codec import CURRENT, load_schema
from schemas.models import QUEUE_EVENTS, Record
from schemas.topics import FOREVER, TOPICS, Topic

AVRO_FORMAT = "application/vnd.apache.avro;version=1.9.0"
KAFKA_BINDING = "0.5.0"


def build() -> dict[str, Any]:
    """Return the AsyncAPI document as plain data."""
    models = [model for topic in TOPICS for model in topic.values]
    return {
        "asyncapi": "3.0.0",
        "info": {
            "title": "wavematch event contract",
            "version": "1.0.0",
            "description": (
                "The Kafka topics through which platforms integrate with wavematch. Values "
                "are Avro single-object encoded: the bytes C3 01, the 8-byte little-endian "
                "CRC-64-AVRO fingerprint of the schema, then the Avro binary body, so a log "
                "decodes without a schema registry. A worker given a schema registry writes "
                "its outputs in the registry's framing instead (the byte 00, the 4-byte "
                "schema id, the Avro body) and reads input in either. The queue topic also "
                'accepts a UTF-8 JSON object with a "type" member naming the event (see '
                "schemas/README.md)."
            ),
            "license": {"name": "Apache-2.0"},
        },
        "defaultContentType": "application/octet-stream",
        "channels": {_channel_id(topic): _channel(topic) for topic in TOPICS},
        "operations": {_operation_id(topic): _operation(topic) for topic in TOPICS},
        "components": {"messages": {model.__name__: _message(model) for model in models}},
    }


def _channel_id(topic: Topic) -> str:
    return topic.name.split(".")[1]


def _operation_id(topic: Topic) -> str:
    verb = "receive" if topic.values == QUEUE_EVENTS else "send"
    return f"{verb}{_channel_id(topic).title()}"


def _channel(topic: Topic) -> dict[str, Any]:
    retention = topic.retention_ms
    return {
        "address": topic.name,
        "description": f"{topic.doc} Key: {topic.key}. Partitioning: {topic.partitioning}".rstrip(
            "."
        )
        + ".",
        "messages": {
            model.__name__: {"$ref": f"#/components/messages/{model.__name__}"}
            for model in topic.values
        },
        "bindings": {
            "kafka": {
                "topic": topic.name,
                "topicConfiguration": {
                    "cleanup.policy": topic.cleanup_policy.split(","),
                    "retention.ms": retention if retention != FOREVER else -1,
                },
                "bindingVersion": KAFKA_BINDING,
            }
        },
    }


def _operation(topic: Topic) -> dict[str, Any]:
    channel = _channel_id(topic)
    receives = topic.values == QUEUE_EVENTS
    return {
        "action": "receive" if receives else "send",
        "summary": (
            "wavematch consumes queue events." if receives else f"wavematch publishes {channel}."
        ),
        "channel": {"$ref": f"#/channels/{channel}"},
        "messages": [
            {"$ref": f"#/channels/{channel}/messages/{model.__name__}"} for model in topic.values
        ],
    }


def _message(model: type[Record]) -> dict[str, Any]:
    name = model.__name__
    topic = next(topic for topic in TOPICS if model in topic.values)
    doc = load_schema(name)["doc"]
    return {
        "name": name,
        "summary": doc.split(". ")[0].rstrip(".") + ".",
        "description": doc,
        "contentType": "application/octet-stream",
        "payload": {"schemaFormat": AVRO_FORMAT, "schema": {"$ref": f"./avro/v1/{name}.avsc"}},
        "bindings": {
            "kafka": {
                "key": {"type": "string", "description": topic.key},
                "bindingVersion": KAFKA_BINDING,
            }
        },
        "x-avro-fingerprint": CURRENT[model].fingerprint.hex(),
    }


# --- a small YAML writer: block style, every string double-quoted (JSON is valid YAML) ---

_PLAIN_KEY = re.compile(r"[A-Za-z$][A-Za-z0-9_.$-]*")
_YAML_WORDS = {"y", "n", "yes", "no", "on", "off", "true", "false", "null"}


def render(value: Any) -> str:
    """Return ``value`` (dicts, lists, strings, ints, bools) as a YAML document."""
    return "\n".join(_lines(value, 0)) + "\n"


def _lines(value: Any, indent: int) -> list[str]:
    pad = " " * indent
    lines: list[str] = []
    if isinstance(value, dict):
        for key, item in value.items():
            lines += _entry(f"{pad}{_key(key)}:", item, indent)
    elif isinstance(value, list):
        for item in value:
            lines += _entry(f"{pad}-", item, indent)
    return lines


def _entry(head: str, item: Any, indent: int) -> list[str]:
    if isinstance(item, dict | list) and item:
        return [head, *_lines(item, indent + 2)]
    return [f"{head} {_scalar(item)}"]


def _key(key: str) -> str:
    plain = _PLAIN_KEY.fullmatch(key) and key.lower() not in _YAML_WORDS
    return key if plain else json.dumps(key, ensure_ascii=False)


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dict | list):
        return "{}" if isinstance(value, dict) else "[]"
    return json.dumps(str(value), ensure_ascii=False)


if __name__ == "__main__":
    sys.stdout.write(render(build()))
