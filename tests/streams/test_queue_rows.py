"""The worker's /queues rows: every configured region of an owned partition, events or not."""

from __future__ import annotations

from types import SimpleNamespace

from schemas.topics import murmur2_partition, queue_key
from streams.settings import load_settings
from streams.worker.app import Runtime
from streams.worker.folding import Folder

CONFIG = """
partitions = 4
[[queues]]
name = "1v1"
strategy = "optimal"
regions = ["eu", "na", "asia", "oce"]
"""

JOIN = (
    b'{"type": "TicketJoined", "ticket_id": "t-1", "queue": "1v1", "region": "eu",'
    b' "joined_at_ms": 1767225600000, "players": [{"player_id": "p", "ratings": {"bw": 1500}}]}'
)


def test_a_region_no_event_has_reached_is_listed_empty(tmp_path):
    config = tmp_path / "wavematch.toml"
    config.write_text(CONFIG)
    folder = Folder.from_settings(load_settings(config))
    eu = murmur2_partition(queue_key("1v1", "eu"), 4)
    owned = {eu, (eu + 1) % 4}
    states = {partition: folder.new_state(partition) for partition in owned}
    folded = folder.fold(states[eu], queue_key("1v1", "eu"), JOIN, 0)
    assert folded is not None and folded.rejection is None
    runtime = Runtime(worker=SimpleNamespace(states=states, folder=folder))  # type: ignore[arg-type]

    rows = runtime.queue_rows()

    expected = sorted(
        (region, murmur2_partition(queue_key("1v1", region), 4))
        for region in ("eu", "na", "asia", "oce")
        if murmur2_partition(queue_key("1v1", region), 4) in owned
    )
    assert sorted((row["region"], row["partition"]) for row in rows) == expected
    depth = {row["region"]: (row["tickets"], row["players"], row["waves_closed"]) for row in rows}
    assert depth.pop("eu") == (1, 1, 0)
    assert all(value == (0, 0, 0) for value in depth.values())


def test_a_worker_not_started_has_no_rows():
    assert Runtime().queue_rows() == []
