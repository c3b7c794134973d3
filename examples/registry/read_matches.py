"""Read wavematch's matches with confluent-kafka's registry deserializer: no wavematch code.

    python read_matches.py BOOTSTRAP REGISTRY_URL [MATCH_ID]

Prints each record of the topic (MatchCreated, MatchProposed or BackfillResult) as one
JSON line; with MATCH_ID, stops at that match (exit 1 if it does not come within a
minute). Needs ``confluent-kafka[avro,
schemaregistry]`` and a worker run with ``WAVEMATCH_SCHEMA_REGISTRY_URL`` (schemas/README.md).
"""

import json
import sys
import time
import uuid

from confluent_kafka import Consumer
from confluent_kafka.schema_registry import SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer
from confluent_kafka.serialization import MessageField, SerializationContext

TOPIC = "wavematch.matches.v1"


def main(bootstrap: str, registry_url: str, wanted: str | None = None) -> int:
    # The schema of each record comes from the registry by the id in its first 5 bytes.
    deserialize = AvroDeserializer(SchemaRegistryClient({"url": registry_url}))
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": f"read-matches-{uuid.uuid4()}",
            "auto.offset.reset": "earliest",
        }
    )
    consumer.subscribe([TOPIC])
    deadline = time.monotonic() + 60
    try:
        while time.monotonic() < deadline:
            message = consumer.poll(0.5)
            if message is None or message.error():
                continue
            record = deserialize(message.value(), SerializationContext(TOPIC, MessageField.VALUE))
            print(json.dumps(record, sort_keys=True, default=str), flush=True)  # timestamps
            # A BackfillResult has a session_id, no match_id.
            if wanted is None or record.get("match_id") == wanted:
                return 0
    finally:
        consumer.close()
    return 1


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
