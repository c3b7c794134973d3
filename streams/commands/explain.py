"""`wavematch explain MATCH_ID`: the wave a match came from, re-derived from the log, and why."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from streams.cli import UsageError
from streams.commands.common import (
    add_connection_arguments,
    add_registry_argument,
    log_records,
    settings_from,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "match_id",
        nargs="?",
        help="the match id, as published in MatchCreated or MatchProposed, or the session id "
        "of a filled backfill request",
    )
    parser.add_argument(
        "--ticket", help="instead: a ticket's life (proposals, returns, timeouts, dequeue)"
    )
    add_connection_arguments(parser)
    add_registry_argument(parser)
    parser.add_argument("--log", type=Path, help="read an exported file instead of the broker")
    parser.add_argument(
        "--nearest", type=int, default=3, help="alternative partners shown per player (default 3)"
    )
    parser.add_argument("--json", action="store_true", help="print JSON instead of text")


def run(args: argparse.Namespace) -> int:
    from matcher.explain import explain_match
    from schemas.topics import CONFIG, QUEUE, WAVES
    from streams.audit.answers import match_answer, match_life
    from streams.audit.explain import find_wave
    from streams.commands.replay import configuration_in_log
    from streams.worker.folding import Folder

    if args.nearest < 0:
        raise UsageError("--nearest: must be >= 0")
    if args.match_id is None and args.ticket is None:
        raise UsageError("match_id: give a match id or --ticket TICKET_ID")
    if args.match_id is not None and args.ticket is not None:
        raise UsageError("match_id: give a match id or --ticket, not both")
    settings = settings_from(args)
    records = log_records(args, settings, (QUEUE.name, WAVES.name, CONFIG.name))
    if args.config is None:  # as replay does: the configuration the waves were closed under
        settings = configuration_in_log(settings, records, sys.stderr)
    folder = Folder.from_settings(settings, follows_configs=args.config is None)
    if args.config is None:  # each tick's configuration, as replay folds them (ADR 0160)
        from streams.worker.config_log import ConfigCatalog

        ConfigCatalog(settings, folder.layouts).offer_all(
            (r.key, r.value) for r in records if r.topic == CONFIG.name
        )
    if args.ticket is not None:
        return _ticket(folder, records, args.ticket, args.json)
    if not args.json:
        lines = match_answer(folder, records, args.match_id, args.nearest)
        if lines is None:
            raise UsageError(_not_produced(args.match_id))
        print("\n".join(lines))
        return 0
    wave = find_wave(folder, records, args.match_id)
    if wave is None and _backfill_json(folder, records, args.match_id):
        return 0
    if wave is None:
        raise UsageError(_not_produced(args.match_id))
    explanation = explain_match(
        wave.snapshot, wave.profile, wave.result, args.match_id, args.nearest
    )
    print(
        json.dumps(
            {
                "match_id": args.match_id,
                "strategy": explanation.strategy,
                "tick": {"partition": wave.tick.partition, "offset": wave.tick.offset},
                "facts": dict(explanation.facts),
                "alternatives": [
                    {
                        "player": a.player,
                        "candidate": a.candidate,
                        "diff": a.diff,
                        "verdict": a.verdict,
                    }
                    for a in explanation.alternatives
                ],
                "after_the_wave": match_life(folder, records, wave, args.match_id)[1],
                # an automatic backfill (docs/adr/0157) is filled under the match's id
                "backfills": _fills(folder, records, args.match_id)
                if wave.profile.auto_backfill
                else [],
            },
            indent=2,
        )
    )
    return 0


def _not_produced(match_id: str) -> str:
    return (
        f"match_id: {match_id} was not produced (or backfilled) by any wave of this log "
        "under this configuration"
    )


def _ticket(folder, records, ticket_id: str, as_json: bool) -> int:  # type: ignore[no-untyped-def]
    from streams.audit.answers import ticket_answer
    from streams.audit.history import ticket_steps

    absent = f"--ticket: {ticket_id} is not in this log under this configuration"
    if as_json:
        steps = [step._asdict() for step in ticket_steps(folder, records, ticket_id)]
        if not steps:
            raise UsageError(absent)
        print(json.dumps({"ticket_id": ticket_id, "steps": steps}, indent=2))
        return 0
    lines = ticket_answer(folder, records, ticket_id)
    if lines is None:
        raise UsageError(absent)
    print("\n".join(lines))
    return 0


def _backfill_json(folder, records, session_id: str) -> bool:  # type: ignore[no-untyped-def]
    """Print why the backfill of ``session_id`` was filled as it was; False if never filled."""
    fills = _fills(folder, records, session_id)
    if not fills:
        return False
    last = fills[-1]  # "tick" and "facts": the last fill, as before; "fills": every one
    print(json.dumps({"session_id": session_id, **last, "fills": fills}, indent=2))
    return True


def _fills(folder, records, session_id: str) -> list[dict[str, object]]:  # type: ignore[no-untyped-def]
    """Each fill of ``session_id`` (partial fills, docs/adr/0192), its tick and facts."""
    from matcher.explain_backfill import backfill_facts
    from streams.audit.explain import find_backfills

    return [
        {
            "tick": {"partition": tick.partition, "offset": tick.offset},
            "facts": dict(backfill_facts(choice)),
        }
        for choice, tick in find_backfills(folder, records, session_id)
    ]
