"""``optimal``'s ``virtual_rating_half_life_ms`` (ADR 0179) and ``rematch_cost`` (ADR
0180): validated at start, refused by ``ladder-v2.1``, off by default, and held by the
live checker, which fails a result that ignores them."""

from __future__ import annotations

from pathlib import Path

import pytest

from matcher.core import Player, QueueProfile, Ticket, WaitingTicket, WaveSnapshot
from matcher.explain import explain_match
from matcher.rules.check import wave_rule_problems
from matcher.strategies import check_profile, result_problems, run_wave
from streams.settings import SettingsError, load_settings
from streams.worker.config_record import config_published, settings_of

CLOSED_AT_MS = 600_000
REMATCH = {"rematch": {"last": 3, "within_s": 900}}


def snapshot(
    ratings: list[int], waited_s: list[int], meetings: tuple[tuple[str, int, str], ...] = ()
) -> WaveSnapshot:
    tickets = tuple(
        WaitingTicket(
            Ticket(f"t{i}", "q", "eu", (Player(f"p{i}", (("mmr", r),)),), CLOSED_AT_MS - w * 1000),
            0,
        )
        for i, (r, w) in enumerate(zip(ratings, waited_s, strict=True))
    )
    history: dict[str, list[tuple[int, tuple[str, ...]]]] = {}
    for a, at_ms, b in meetings:
        history.setdefault(a, []).append((at_ms, (b,)))
        history.setdefault(b, []).append((at_ms, (a,)))
    met = tuple((p, tuple(sorted(h, reverse=True))) for p, h in sorted(history.items()))
    return WaveSnapshot("q", "eu", "w", 1, 7, CLOSED_AT_MS, tickets, 50, (), met)


def profile(options: dict[str, object], rules: dict[str, object] | None = None) -> QueueProfile:
    return QueueProfile(
        "q", "optimal", ("m",), options=options, rules={"rating": "mmr", **(rules or {})}
    )


def pairs(result) -> set[frozenset[str]]:  # type: ignore[no-untyped-def]
    return {frozenset(s.player_id for t in m.teams for s in t.seats) for m in result.matches}


def problems(snap: WaveSnapshot, queue: QueueProfile, result) -> list[str]:  # type: ignore[no-untyped-def]
    return result_problems(snap, queue, result) or wave_rule_problems(snap, queue, result)


@pytest.mark.parametrize(
    ("strategy", "options", "rules", "message"),
    [
        (
            "optimal",
            {"virtual_rating_half_life_ms": -1},
            {},
            "options.virtual_rating_half_life_ms: must be an integer >= 0",
        ),
        (
            "optimal",
            {"rematch_cost": 1.5},
            REMATCH,
            "options.rematch_cost: must be an integer >= 0",
        ),
        ("optimal", {"rematch_cost": 100}, {}, "options.rematch_cost: needs rules.rematch"),
        (
            "optimal",
            {"virtual_rating_half_life_ms": 30_000},
            {"max_distance": {"base": 50, "growth_per_s": 5, "cap": 400}},
            "options.virtual_rating_half_life_ms: not with rules.max_distance",
        ),
        (
            "ladder-v2.1",
            {"virtual_rating_half_life_ms": 30_000},
            {},
            "options.virtual_rating_half_life_ms: not honoured by strategy 'ladder-v2.1'",
        ),
        (
            "ladder-v2.1",
            {"rematch_cost": 100},
            {},
            "options.rematch_cost: not honoured by strategy 'ladder-v2.1' (optimal only)",
        ),
    ],
)
def test_a_bad_or_unhonoured_option_stops_the_start_in_one_line(
    strategy: str, options: dict[str, object], rules: dict[str, object], message: str
) -> None:
    queue = QueueProfile("q", strategy, ("m",), options=options, rules=rules)
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        check_profile(queue)


def test_zero_is_off_and_changes_nothing() -> None:
    snap = snapshot([1500, 1510, 1530, 2400, 600], [0, 10, 200, 300, 300], (("p0", 590_000, "p1"),))
    plain = run_wave(snap, profile({}, REMATCH))
    off = run_wave(snap, profile({"virtual_rating_half_life_ms": 0, "rematch_cost": 0}, REMATCH))
    assert plain == off


def test_far_rated_waiting_players_find_partners_at_their_real_gap() -> None:
    snap = snapshot([1500, 1510, 2400, 600], [0, 0, 240, 240])
    plain = run_wave(snap, profile({}))
    assert pairs(plain) == {frozenset({"p0", "p1"})}
    queue = profile({"virtual_rating_half_life_ms": 60_000})
    check_profile(queue)
    moved = run_wave(snap, queue)
    assert len(moved.matches) == 2
    assert problems(snap, queue, moved) == []
    for match in moved.matches:  # the quality figure stays the real gap
        seats = [team.seats[0].rating for team in match.teams]
        assert match.quality_of("mmr_diff") == abs(seats[0] - seats[1]) >= 890
    # The result that ignored the option leaves a pair the virtual window allows.
    assert any("not maximal" in p for p in problems(snap, queue, plain))


def test_a_match_outside_the_virtual_window_fails_the_checker() -> None:
    snap = snapshot([1500, 2400], [240, 1])  # the far player has barely waited
    queue = profile({"virtual_rating_half_life_ms": 60_000})
    forced = run_wave(snap, profile({"virtual_rating_half_life_ms": 1}))  # pulled at once
    assert len(forced.matches) == 1
    assert any("virtual diff" in p for p in problems(snap, queue, forced))


def test_a_priced_rematch_is_traded_against_the_gap() -> None:
    # p0 and p1 met 10 s ago; the alternative pairing costs 10**2 + 20**2 - 0 = 500 more.
    snap = snapshot([1500, 1500, 1510, 1520], [0, 0, 0, 0], (("p0", 590_000, "p1"),))
    hard = run_wave(snap, profile({}, REMATCH))
    assert frozenset({"p0", "p1"}) not in pairs(hard)
    cheap = profile({"rematch_cost": 100}, REMATCH)
    dear = profile({"rematch_cost": 100_000}, REMATCH)
    assert frozenset({"p0", "p1"}) in pairs(run_wave(snap, cheap))
    assert frozenset({"p0", "p1"}) not in pairs(run_wave(snap, dear))
    rematch = run_wave(snap, cheap)
    assert problems(snap, cheap, rematch) == []
    # Under the hard rule the same result breaks it; the hard filter's result is not the
    # priced optimum.
    assert any("rematch" in p for p in problems(snap, profile({}, REMATCH), rematch))
    assert any("not optimal" in p for p in problems(snap, cheap, hard))


def test_the_cost_decays_with_how_long_ago_they_met() -> None:
    queue = profile({"rematch_cost": 1_000}, REMATCH)
    # Met 90 % of within_s ago: the rematch costs 100, less than the 500 it saves.
    old = snapshot([1500, 1500, 1510, 1520], [0, 0, 0, 0], (("p0", CLOSED_AT_MS - 810_000, "p1"),))
    new = snapshot([1500, 1500, 1510, 1520], [0, 0, 0, 0], (("p0", CLOSED_AT_MS - 90_000, "p1"),))
    assert frozenset({"p0", "p1"}) in pairs(run_wave(old, queue))
    assert frozenset({"p0", "p1"}) not in pairs(run_wave(new, queue))


def test_a_rematch_left_unmatched_by_the_hard_filter_is_not_maximal() -> None:
    # Above the checker's exact limit: the completeness check still knows no filter.
    ratings = [1000 + 400 * i for i in range(12)] + [1500, 1500]
    snap = snapshot(ratings, [0] * 14, (("p12", 590_000, "p13"),))
    hard = run_wave(snap, profile({}, REMATCH))
    queue = profile({"rematch_cost": 10_000}, REMATCH)
    assert frozenset({"p12", "p13"}) not in pairs(hard)
    assert any("not maximal" in p for p in problems(snap, queue, hard))
    priced = run_wave(snap, queue)
    assert frozenset({"p12", "p13"}) in pairs(priced)
    assert problems(snap, queue, priced) == []


def test_a_wave_above_the_exact_limit_keeps_the_hard_filter_and_says_so() -> None:
    ratings = [1500, 1500, 1510, 1520, 1900, 1905]
    snap = snapshot(ratings, [0] * 6, (("p0", 590_000, "p1"),))
    small = profile({"rematch_cost": 100}, REMATCH)
    large = profile({"rematch_cost": 100, "optimal_exact_limit": 4}, REMATCH)
    priced = run_wave(snap, small)
    assert frozenset({"p0", "p1"}) in pairs(priced)
    assert dict(priced.stats)["rematch_priced"] == 1.0
    filtered = run_wave(snap, large)
    assert dict(filtered.stats)["rematch_priced"] == 0.0
    assert frozenset({"p0", "p1"}) not in pairs(filtered)
    assert problems(snap, large, filtered) == []
    # The rematch the small wave priced breaks the large wave's filter.
    assert any("priced only in waves of at most 4" in p for p in problems(snap, large, priced))
    assert "rematch_priced" not in dict(run_wave(snap, profile({}, REMATCH)).stats)


def test_the_large_tier_pairs_on_the_virtual_ratings() -> None:
    ratings = [1500 + 3 * i for i in range(10)] + [2600, 400]
    snap = snapshot(ratings, [0] * 10 + [400, 400])
    queue = profile({"virtual_rating_half_life_ms": 60_000, "optimal_exact_limit": 4})
    result = run_wave(snap, queue)
    assert dict(result.stats)["proven_optimal"] == 0.0
    assert len(result.matches) == 6
    assert problems(snap, queue, result) == []


def test_explain_prices_the_rematch_and_names_the_virtual_ratings() -> None:
    snap = snapshot([1500, 1500, 1510, 1520], [0, 0, 0, 0], (("p0", 590_000, "p1"),))
    queue = profile({"rematch_cost": 100}, REMATCH)
    result = run_wave(snap, queue)
    (match,) = [
        m for m in result.matches if {s.player_id for t in m.teams for s in t.seats} == {"p0", "p1"}
    ]
    facts = dict(explain_match(snap, queue, result, match.match_id).facts)
    assert facts["pair cost"] == "diff^2 - 20 x waits + rematch cost = 98 (lower is better)"
    far = snapshot([1500, 1510, 2400, 600], [0, 0, 240, 240])
    moved = profile({"virtual_rating_half_life_ms": 60_000})
    result = run_wave(far, moved)
    facts = dict(explain_match(far, moved, result, result.matches[0].match_id).facts)
    assert facts["ratings"].startswith("virtual: pulled toward the wave's mean")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ("options = { virtual_rating_half_life_ms = 60000 }\n", None),
        (
            "options = { rematch_cost = 40000 }\n"
            "rules = { rematch = { last = 3, within_s = 900 } }\n",
            None,
        ),
        ("options = { rematch_cost = -1 }\n", "options.rematch_cost: must be an integer >= 0"),
    ],
)
def test_the_options_are_in_the_record_and_the_fingerprint(
    tmp_path: Path, extra: str, message: str | None
) -> None:
    base = tmp_path / "base.toml"
    base.write_text(SETTINGS)
    config = tmp_path / "config.toml"
    config.write_text(SETTINGS + extra)
    if message is not None:
        with pytest.raises(SettingsError, match=message):
            load_settings(config)
        return
    settings = load_settings(config)
    assert settings.config_fingerprint() != load_settings(base).config_fingerprint()
    record = config_published(settings, 1_767_225_600_000)
    rebuilt = settings_of(record, load_settings())
    assert rebuilt is not None
    assert rebuilt.config_fingerprint() == settings.config_fingerprint()
    assert rebuilt.queues[0].options == settings.queues[0].options != {}


SETTINGS = """
[[queues]]
name = "1v1"
strategy = "optimal"
regions = ["eu"]
maps = ["Fighting Spirit"]
"""
