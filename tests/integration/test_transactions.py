"""A platform may publish its joins in Kafka transactions: a join in a transaction its
producer aborted was never sent, so no worker folds it and a replay re-derives the same
(every reader of the queue log reads committed records only). Apache Kafka only: the
embedded broker has no usable transactions."""

from __future__ import annotations

import uuid

import pytest
from confluent_kafka import Producer

from schemas.codec import decode
from schemas.models import MatchCreated
from schemas.topics import MATCHES, QUEUE, STATUS, queue_key
from streams.cli import main
from tests.integration.conftest import wait_until
from tests.integration.kafka import json_join, read_topic

pytestmark = pytest.mark.integration


@pytest.mark.parametrize("broker", ["kafka"], indirect=True)
def test_a_join_of_an_aborted_transaction_is_never_folded(broker, worker_factory, capsys) -> None:
    worker = worker_factory.start()
    producer = Producer(
        {
            "bootstrap.servers": broker.bootstrap,
            "partitioner": "murmur2_random",
            "transactional.id": f"platform-{uuid.uuid4()}",
        }
    )
    producer.init_transactions(30)
    key = queue_key("1v1", "eu")
    for ticket, race, commit in (("kept", "bw", True), ("aborted", "sc2", False)):
        producer.begin_transaction()
        producer.produce(QUEUE.name, value=json_join(ticket, race), key=key)
        if commit:
            producer.commit_transaction(30)
        else:
            producer.flush(30)  # written to the log, then aborted
            producer.abort_transaction(30)
    producer.begin_transaction()
    producer.produce(QUEUE.name, value=json_join("partner", "sc2"), key=key)
    producer.commit_transaction(30)

    def matched() -> list[MatchCreated]:
        events = [decode(r.value or b"") for r in read_topic(broker.bootstrap, MATCHES.name)]
        return [e for e in events if isinstance(e, MatchCreated)]

    wait_until(matched, 60, "the committed pair's match", lambda: worker.process.poll() is None)
    ((match,),) = [matched()]
    assert {s.ticket_id for team in match.teams for s in team.players} == {"kept", "partner"}
    statuses = {decode(r.value or b"").ticket_id for r in read_topic(broker.bootstrap, STATUS.name)}
    assert "aborted" not in statuses and {"kept", "partner"} <= statuses
    assert worker.process.poll() is None

    # The auditor reads the same log: the aborted join is not re-derived either.
    config = str(worker_factory.config)
    assert main(["replay", "--broker", broker.url, "--config", config, "--quiet"]) == 0
    assert "matches identical    1 of 1" in capsys.readouterr().out
