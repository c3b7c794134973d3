"""Named rules (compound, collection, numeric), optional_after_s and the soft sort: one-line
parse errors naming the field, each kind's verdict and message naming the rule, the
strategies that refuse them at start, join-time rejection and the fingerprint."""

from __future__ import annotations

import re
from typing import Any

import pytest

from matcher.core import Player, QueueProfile, TeamStep, Ticket
from matcher.rules import parse_rules
from matcher.rules.check import checks_problem, group_problem, ticket_rule_problem
from matcher.strategies import check_rules
from streams.settings import SettingsError, load_settings


def kept_out_facts(snapshot: Any, profile: QueueProfile, unmatched: str) -> dict[str, str]:
    """The facts ``explain`` gives of a wave's first match, once the wave left exactly
    ``unmatched`` queued."""
    from matcher.explain import explain_match
    from matcher.strategies import run_wave

    result = run_wave(snapshot, profile)
    assert result.unmatched == (unmatched,)
    return dict(explain_match(snapshot, profile, result, result.matches[0].match_id).facts)


def player(name: str, cls: str = "dps", level: float = 10, ms: int = 20, **attrs: str) -> Player:
    attributes = tuple(sorted({"class": cls, **attrs}.items()))
    numbers = (("level", float(level)),)
    return Player(
        name, (("mmr", 1500),), latency_ms=(("eu", ms),), attributes=attributes, numbers=numbers
    )


def verdict(
    checks: list[dict[str, object]], teams: list[list[Player]], waited: float = 0
) -> str | None:
    rules = parse_rules({"checks": checks})
    seated = [p for team in teams for p in team]
    ratings = [[1500] * len(team) for team in teams]
    return checks_problem(rules, ratings, waited, [p.latency_to("eu") for p in seated], seated)


@pytest.mark.parametrize(
    ("checks", "message"),
    [
        ({"name": "x"}, "rules.checks: must be a list"),
        ([{"name": "x", "kind": "likes"}], "rules.checks[0].kind: must be one of"),
        ([{"kind": "equal", "attribute": "a"}], "rules.checks[0].name: must be a name"),
        ([{"name": "x", "kind": "equal"}], "rules.checks[0].attribute: must be a name"),
        ([{"name": "x", "kind": "equal", "attribute": "a", "per": "side"}], "rules.checks[0].per:"),
        (
            [{"name": "x", "kind": "disjoint", "attribute": "a", "per": "team"}],
            "[0].per: unknown field",
        ),
        (
            [{"name": "x", "kind": "count", "attribute": "a", "value": "b"}],
            "[0]: needs at least one of min, max",
        ),
        (
            [{"name": "x", "kind": "count", "attribute": "a", "value": "b", "min": 3, "max": 2}],
            "[0].max: must be >= min",
        ),
        (
            [{"name": "x", "kind": "count", "attribute": "a", "value": "b", "max": -1}],
            "[0].max: must be a finite number >= 0",
        ),
        (
            [{"name": "x", "kind": "number", "attribute": "a", "max_spread": "5"}],
            "[0].max_spread: must be a finite",
        ),
        ([{"name": "x", "kind": "latency"}], "rules.checks[0].max_ms: required"),
        (
            [
                {
                    "name": "x",
                    "kind": "any",
                    "rules": [{"kind": "latency", "max_ms": 1, "name": "y"}],
                }
            ],
            "rules.checks[0].rules[0].name: unknown field",
        ),
        (
            [{"name": "x", "kind": "not", "rule": {"kind": "equal"}}],
            "rules.checks[0].rule.attribute",
        ),
        (
            [{"name": "x", "kind": "latency", "max_ms": 1, "optional_after_s": -2}],
            "[0].optional_after_s: must be a finite number >= 0",
        ),
        (
            [{"name": "x", "kind": "latency", "max_ms": 1}] * 2,
            "rules.checks[1].name: 'x' is used twice",
        ),
        (
            [{"name": "x", "kind": "count", "attribute": "c", "value": "v", "min": 1.5}],
            "rules.checks[0].min: must be a whole number of players",
        ),
        (
            [{"name": "x", "kind": "count", "attribute": "c", "value": "v", "max": 2.5}],
            "rules.checks[0].max: must be a whole number of players",
        ),
    ],
)
def test_bad_checks_are_one_line_naming_the_field(checks: object, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_rules({"checks": checks})
    assert message in str(caught.value) and "\n" not in str(caught.value)


@pytest.mark.parametrize(
    ("sort", "message"),
    [
        ({"number": "level"}, "rules.sort: must be a list"),
        ([{"number": "level"}], "rules.sort[0]: must be a table {number, weight}"),
        ([{"number": "", "weight": 1}], "rules.sort[0].number: must be"),
        (
            [{"number": "level", "weight": 0}],
            "rules.sort[0].weight: must be a finite number, not 0",
        ),
    ],
)
def test_bad_sort_preferences_are_one_line_naming_the_field(sort: object, message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        parse_rules({"sort": sort})


def test_compound_rules_name_the_rule_and_say_why() -> None:
    near_or_same = {
        "name": "near-or-same-language",
        "kind": "any",
        "rules": [{"kind": "latency", "max_ms": 80}, {"kind": "equal", "attribute": "language"}],
    }
    far_de, near_fr = player("a", ms=120, language="de"), player("b", ms=20, language="fr")
    assert verdict([near_or_same], [[far_de], [near_fr]]) == (
        "rule 'near-or-same-language': none of: latency 120 ms exceeds 80; "
        "players disagree on language (de, fr) after 0 s"
    )
    assert verdict([near_or_same], [[far_de], [player("c", language="de")]]) is None
    not_all_snipers = {"name": "n", "kind": "not", "rule": {"kind": "equal", "attribute": "class"}}
    assert verdict([not_all_snipers], [[player("a", "sniper")], [player("b", "sniper")]]) == (
        "rule 'n': the rule under 'not' holds after 0 s"
    )
    assert verdict([not_all_snipers], [[player("a", "sniper")], [player("b", "tank")]]) is None


def test_collection_rules_per_team_and_between_teams() -> None:
    unique = [{"name": "u", "kind": "unique", "attribute": "class", "per": "team"}]
    assert (
        verdict(unique, [[player("a", "tank"), player("b", "dps")], [player("c", "tank")]]) is None
    )
    assert verdict(unique, [[player("a", "dps"), player("b", "dps")], [player("c")]]) == (
        "rule 'u': team 1 players share class (dps) after 0 s"
    )
    disjoint = [{"name": "d", "kind": "disjoint", "attribute": "faction"}]
    red, blue = {"faction": "red"}, {"faction": "blue"}
    assert (
        verdict(disjoint, [[player("a", **red), player("b", **red)], [player("c", **blue)]]) is None
    )
    assert verdict(disjoint, [[player("a", **red)], [player("c", **blue), player("d", **red)]]) == (
        "rule 'd': teams 1 and 2 share faction 'red' after 0 s"
    )
    healer = [
        {
            "name": "h",
            "kind": "count",
            "attribute": "class",
            "value": "healer",
            "min": 1,
            "per": "team",
        }
    ]
    assert verdict(healer, [[player("a", "healer")], [player("b", "tank")]]) == (
        "rule 'h': team 2 has 0 players with class 'healer' (at least 1) after 0 s"
    )


def test_number_rules_spread_and_bounds_and_optional_after_a_wait() -> None:
    level = [{"name": "lvl", "kind": "number", "attribute": "level", "max_spread": 5, "min": 10}]
    assert verdict(level, [[player("a", level=10)], [player("b", level=15)]]) is None
    assert verdict(level, [[player("a", level=10)], [player("b", level=15.5)]]) == (
        "rule 'lvl': level spread 5.5 exceeds 5 after 0 s"
    )
    assert verdict(level, [[player("a", level=9)], [player("b", level=10)]]) == (
        "rule 'lvl': level 9 is below 10 after 0 s"
    )
    level[0]["optional_after_s"] = 30
    assert verdict(level, [[player("a", level=9)], [player("b", level=10)]], waited=29.9)
    assert verdict(level, [[player("a", level=9)], [player("b", level=10)]], waited=30) is None


def test_only_monotone_match_rules_refuse_a_group_before_its_split() -> None:
    rules = parse_rules(
        {
            "checks": [
                {
                    "name": "healer",
                    "kind": "count",
                    "attribute": "class",
                    "value": "healer",
                    "min": 1,
                },
                {
                    "name": "two-snipers",
                    "kind": "count",
                    "attribute": "class",
                    "value": "sniper",
                    "max": 2,
                },
                {"name": "u", "kind": "unique", "attribute": "class", "per": "team"},
            ]
        }
    )
    assert [c.name for c in rules.monotone_checks] == ["two-snipers"]
    snipers = [player(p, "sniper") for p in "abc"]
    assert group_problem(rules, 0, [20, 20, 20], snipers) == (
        "rule 'two-snipers': has 3 players with class 'sniper' (at most 2) after 0 s"
    )
    assert group_problem(rules, 0, [20], snipers[:1]) is None  # no healer yet: not refused


def test_a_party_that_breaks_a_rule_for_good_is_rejected_at_join() -> None:
    rules = {"checks": [{"name": "lvl", "kind": "number", "attribute": "level", "max_spread": 5}]}
    profile = QueueProfile("q", "rebalance", ("m",), team_size=2, rules=rules)
    party = (player("a", level=1), player("b", level=20))
    assert ticket_rule_problem(Ticket("t", "q", "eu", party, 0), profile) == (
        "party: rule 'lvl': level spread 19 exceeds 5"
    )
    rules["checks"][0]["optional_after_s"] = 60
    relaxing = QueueProfile("q", "rebalance", ("m",), team_size=2, rules=rules)
    assert ticket_rule_problem(Ticket("t", "q", "eu", party, 0), relaxing) is None


ONE_TANK = {"kind": "count", "attribute": "class", "value": "tank", "min": 1, "max": 1}


@pytest.mark.parametrize(
    ("check", "party", "problem"),
    [
        # A party sits in one team: two tanks break "one tank per team" in every match.
        (
            {**ONE_TANK, "per": "team"},
            ("tank", "tank"),
            "party: rule 'r': team 1 has 2 players with class 'tank' (at most 1)",
        ),
        ({**ONE_TANK, "per": "team"}, ("tank", "dps"), None),
        # Its minimum is for the teammates to meet: a party without a tank may get one.
        ({**ONE_TANK, "per": "team"}, ("dps", "dps"), None),
        (
            {**ONE_TANK, "per": "match"},
            ("tank", "tank"),
            "party: rule 'r': has 2 players with class 'tank' (at most 1)",
        ),
        ({**ONE_TANK, "per": "team", "optional_after_s": 30}, ("tank", "tank"), None),
        (
            {
                "kind": "all",
                "rules": [
                    {"kind": "not", "rule": {"kind": "latency", "max_ms": 1}},
                    {**ONE_TANK, "per": "team"},
                ],
            },
            ("tank", "tank"),
            "party: rule 'r': team 1 has 2 players with class 'tank' (at most 1)",
        ),
        # An `any` holds later if one branch can: a branch that turns optional, or a `not`.
        (
            {
                "kind": "any",
                "rules": [
                    {**ONE_TANK, "per": "team"},
                    {"kind": "not", "rule": {"kind": "latency", "max_ms": 1}},
                ],
            },
            ("tank", "tank"),
            None,
        ),
        ({"kind": "disjoint", "attribute": "class"}, ("tank", "tank"), None),
        (
            {"kind": "latency", "max_ms": 15},
            ("dps",),
            "player p0: rule 'r': latency 20 ms exceeds 15",
        ),
    ],
)
def test_a_party_breaking_what_no_teammate_can_mend_is_rejected_at_join(
    check: dict[str, object], party: tuple[str, ...], problem: str | None
) -> None:
    """docs/rules.md: a party that breaks a rule whatever is added to it is rejected."""
    rules = {"checks": [{"name": "r", **check}]}
    profile = QueueProfile("q", "rebalance", ("m",), team_size=3, rules=rules)
    players = tuple(player(f"p{i}", cls) for i, cls in enumerate(party))
    assert ticket_rule_problem(Ticket("t", "q", "eu", players, 0), profile) == problem


@pytest.mark.parametrize(
    ("strategy", "options", "rules", "message"),
    [
        ("ladder-v2.1", {}, {"checks": []}, "rules.checks: not honoured by strategy 'ladder-v2.1'"),
        ("multifactor", {}, {"sort": []}, "rules.sort: not honoured by strategy 'multifactor'"),
        (
            "game-queue",
            {"mode": "queue"},
            {"sort": []},
            "rules.sort: not honoured by strategy 'game-queue' in mode 'queue'",
        ),
    ],
)
def test_strategies_that_cannot_honour_a_rule_refuse_it_at_start(
    strategy: str, options: dict[str, object], rules: dict[str, object], message: str
) -> None:
    size = 1 if strategy in ("optimal", "ladder-v2.1") else 3
    profile = QueueProfile("q", strategy, ("m",), team_size=size, options=options, rules=rules)
    with pytest.raises(ValueError) as caught:
        check_rules(profile)
    assert str(caught.value).startswith(message) and "\n" not in str(caught.value)


def _count(low: int, per: str, **more: object) -> dict[str, object]:
    return {
        "checks": [
            {
                "name": "healers",
                "kind": "count",
                "attribute": "class",
                "value": "healer",
                "min": low,
                "per": per,
                **more,
            }
        ]
    }


@pytest.mark.parametrize(
    ("shape", "rules", "message"),
    [
        ({"team_size": 5}, _count(6, "team"), "rules.checks[0]: 'healers' asks for at least 6"),
        ({"team_size": 5}, _count(11, "match"), "a match holds at most 10"),
        ({"team_sizes": (1, 4)}, _count(2, "team"), "a team holds at most 1"),
    ],
)
def test_a_count_no_match_can_hold_stops_the_start(
    shape: dict[str, object], rules: dict[str, object], message: str
) -> None:
    profile = QueueProfile("q", "rebalance", ("m",), rules=rules, **shape)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="no match could be made") as caught:
        check_rules(profile)
    assert message in str(caught.value)


@pytest.mark.parametrize(
    ("shape", "rules"),
    [
        ({"team_size": 5}, _count(5, "team")),
        ({"team_size": 5}, _count(10, "match")),
        ({"team_size": 5}, _count(6, "team", optional_after_s=60)),  # it relaxes: legal
        ({"team_sizes": (1, 4)}, _count(1, "team")),
    ],
)
def test_a_count_some_match_can_hold_is_accepted(
    shape: dict[str, object], rules: dict[str, object]
) -> None:
    check_rules(QueueProfile("q", "rebalance", ("m",), rules=rules, **shape))  # type: ignore[arg-type]


@pytest.mark.parametrize("place", [{"name": "-q"}, {"regions": ["e u"]}, {"regions": ["eu/w"]}])
def test_a_queue_or_region_no_event_can_name_stops_the_start(place: dict[str, object]) -> None:
    queue = {"name": "q", "strategy": "optimal", **place}
    with pytest.raises(
        SettingsError, match=r"^queues.0: queue '(-q|q)': (name|regions.0): String should match"
    ):
        load_settings(queues=[queue])


def test_checks_enter_the_fingerprint_and_a_queue_without_them_keeps_its_own() -> None:
    queue = {"name": "3v3", "strategy": "rebalance", "team_size": 3, "rules": {"max_spread": 100}}
    before = load_settings(queues=[queue]).config_fingerprint()
    checked = {
        **queue,
        "rules": {"max_spread": 100, "checks": [{"name": "x", "kind": "latency", "max_ms": 80}]},
    }
    assert load_settings(queues=[checked]).config_fingerprint() != before
    assert load_settings(queues=[queue]).config_fingerprint() == before
    with pytest.raises(
        SettingsError, match=r"^queues.0: queue '3v3': rules.checks\[0\].max_ms: required"
    ):
        load_settings(queues=[{**queue, "rules": {"checks": [{"name": "x", "kind": "latency"}]}}])


def test_explain_names_the_rule_that_kept_a_ticket_out() -> None:
    from matcher.core import WaitingTicket, WaveSnapshot

    rules = {
        "rating": "mmr",
        "checks": [{"name": "lvl", "kind": "number", "attribute": "level", "max_spread": 5}],
    }
    profile = QueueProfile("q", "rebalance", ("m",), team_size=2, rules=rules)
    levels = {"a": 10, "b": 11, "c": 12, "d": 13, "far": 40}
    tickets = tuple(
        WaitingTicket(Ticket(t, "q", "eu", (player(t, level=level),), 0), 0)
        for t, level in levels.items()
    )
    snapshot = WaveSnapshot("q", "eu", "w", 1, 7, 1_000, tickets)
    facts = kept_out_facts(snapshot, profile, "far")
    assert facts["kept out far"] == (
        "rule 'lvl' in 4 of 4 seats: level spread 29 exceeds 5 after 1 s"
    )


def test_explain_says_a_match_of_parties_has_no_single_seat_to_try() -> None:
    from matcher.core import WaitingTicket, WaveSnapshot

    rules = {
        "rating": "mmr",
        "checks": [{"name": "lvl", "kind": "number", "attribute": "level", "max_spread": 5}],
    }
    profile = QueueProfile("q", "rebalance", ("m",), team_size=2, rules=rules)
    duos = [
        Ticket(t, "q", "eu", (player(f"{t}1", level=10), player(f"{t}2", level=11)), 0)
        for t in ("p", "q")
    ]
    solo = Ticket("solo", "q", "eu", (player("solo", level=12),), 0)
    snapshot = WaveSnapshot(
        "q", "eu", "w", 1, 7, 1_000, tuple(WaitingTicket(t, 0) for t in (*duos, solo))
    )
    facts = kept_out_facts(snapshot, profile, "solo")
    assert facts["kept out solo"] == (
        "all 4 seats went to parties, which stay together: no single seat to try it in"
    )


@pytest.mark.parametrize(
    ("shape", "refused"),
    [
        ({"team_size": 2}, True),
        ({"team_size": 2, "team_steps": (TeamStep(60.0, 2, 1),)}, False),
        ({"team_size": 1}, False),
        ({"team_size": 1, "team_count": 4}, True),
    ],
)
def test_max_distance_only_where_some_match_is_a_1v1(
    shape: dict[str, object], refused: bool
) -> None:
    profile = QueueProfile("q", "multifactor", ("m",), rules={"max_distance": 100}, **shape)
    if refused:
        with pytest.raises(ValueError, match=r"^rules.max_distance: a limit between the two"):
            check_rules(profile)
    else:
        check_rules(profile)


def test_explain_quotes_the_limit_at_the_matchs_oldest_wait() -> None:
    """A built-in rule grows with the oldest ticket's wait by default (expansion_age
    "oldest"): the kept-out line quotes the limit the strategy applied."""
    from matcher.core import WaitingTicket, WaveSnapshot

    rules = {"rating": "mmr", "max_spread": {"base": 100, "growth_per_s": 10, "cap": 800}}
    profile = QueueProfile("q", "rebalance", ("m",), team_size=1, rules=rules)
    rated = {"old": (1500, 0), "new": (1550, 29_000), "far": (2000, 29_500)}
    tickets = tuple(
        WaitingTicket(Ticket(t, "q", "eu", (Player(t, (("mmr", mmr),)),), joined), 0)
        for t, (mmr, joined) in rated.items()
    )
    snapshot = WaveSnapshot("q", "eu", "w", 1, 7, 30_000, tickets)
    facts = kept_out_facts(snapshot, profile, "far")
    # In old's seat, the match's oldest is new (1 s); in new's, old (30 s). The newest
    # ticket's wait (far's, 0.5 s) would quote 105 for both.
    assert facts["kept out far"] in (
        "rule 'max_spread' in 2 of 2 seats: rating spread 450 exceeds max_spread 110 after 1 s",
        "rule 'max_spread' in 2 of 2 seats: rating spread 500 exceeds max_spread 400 after 30 s",
    )


def test_explain_names_the_team_step_a_newer_ticket_had_not_waited_for() -> None:
    from matcher.core import TeamStep, WaitingTicket, WaveSnapshot

    profile = QueueProfile(
        "q",
        "rebalance",
        ("m",),
        team_size=2,
        team_count=4,
        team_steps=(TeamStep(15, 2, 2),),
        rules={"rating": "mmr", "max_spread": 300},
    )

    def ticket(name: str, joined_ms: int, *players: str) -> WaitingTicket:
        members = tuple(Player(p, (("mmr", 1500),)) for p in players or (name,))
        return WaitingTicket(Ticket(name, "q", "eu", members, joined_ms), 0)

    tickets = (
        ticket("duo", 0, "s1", "s2"),
        ticket("s3", 0),
        ticket("s4", 0),
        ticket("s5", 11_000),
    )
    snapshot = WaveSnapshot("q", "eu", "w", 1, 7, 16_000, tickets)
    facts = kept_out_facts(snapshot, profile, "s5")
    assert facts["kept out s5"] == (
        "team step in 2 of 2 seats: the match is team step 1, made once every ticket has "
        "waited 15 s; with it, the least waited would have waited 5 s"
    )


def test_explain_in_a_role_queue_tries_a_player_only_in_seats_of_its_roles() -> None:
    """A healer whose role's seats all went to parties is kept out by its role, not by a
    choice the rules left open: it is never tried in a dps seat (QA outside try)."""
    from matcher.core import WaitingTicket, WaveSnapshot

    rules = {"max_spread": 200}
    profile = QueueProfile(
        "q", "game-queue", ("m",), team_size=3, roles=("tank", "healer", "dps"), rules=rules
    )

    def member(name: str, role: str) -> Player:
        return Player(name, ((role, 1500),), roles=(role,))

    tickets = (
        Ticket("h3", "q", "eu", (member("h3", "healer"),), 0),
        Ticket("pa", "q", "eu", (member("a1", "tank"), member("a2", "healer")), 0),
        Ticket("pb", "q", "eu", (member("b1", "tank"), member("b2", "healer")), 0),
        Ticket("d1", "q", "eu", (member("d1", "dps"),), 0),
        Ticket("d2", "q", "eu", (member("d2", "dps"),), 0),
    )
    snapshot = WaveSnapshot(
        "q", "eu", "w", 1, 7, 1_000, tuple(WaitingTicket(t, 0) for t in tickets)
    )
    facts = kept_out_facts(snapshot, profile, "h3")
    assert facts["kept out h3"] == (
        "no seat of its roles (healer) was held by a single player; those seats were dps: "
        "its roles kept it out, not a rule"
    )


def test_explain_rates_a_kept_out_player_at_its_deviation_bound() -> None:
    """Under a deviation rule the kept-out player is judged on rating - W x deviation, as
    the strategy and the live checker judge it (QA outside try)."""
    from matcher.core import WaitingTicket, WaveSnapshot

    rules = {"rating": "mmr", "max_spread": 100, "deviation": {"weight": 2, "missing": 100}}
    profile = QueueProfile("q", "rebalance", ("m",), team_size=2, rules=rules)

    def solo(name: str, deviation: int) -> WaitingTicket:
        member = Player(name, (("mmr", 1500),), deviation=deviation)
        return WaitingTicket(Ticket(name, "q", "eu", (member,), 0), 0)

    snapshot = WaveSnapshot(
        "q", "eu", "w", 1, 7, 1_000, (solo("unsure", 300), *(solo(f"s{i}", 0) for i in range(4)))
    )
    facts = kept_out_facts(snapshot, profile, "unsure")
    assert facts["kept out unsure"] == (
        "rule 'max_spread' in 4 of 4 seats: rating spread 600 exceeds max_spread 100 after 1 s"
    )


def test_explain_names_a_block_list() -> None:
    from matcher.core import WaitingTicket, WaveSnapshot

    profile = QueueProfile(
        "q", "rebalance", ("m",), team_size=2, rules={"rating": "mmr", "block_lists": True}
    )
    party = Ticket(
        "p",
        "q",
        "eu",
        (Player("p1", (("mmr", 1500),), blocked=("x",)), Player("p2", (("mmr", 1500),))),
        0,
    )
    solos = [Ticket(t, "q", "eu", (Player(t, (("mmr", 1500),)),), 0) for t in ("x", "y", "z")]
    snapshot = WaveSnapshot(
        "q", "eu", "w", 1, 7, 1_000, tuple(WaitingTicket(t, 0) for t in (party, *solos))
    )
    facts = kept_out_facts(snapshot, profile, "x")
    assert (
        facts["kept out x"]
        == "rule 'block_lists' in 2 of 2 seats: player p1 blocked x (block_lists)"
    )


def _tanks(**bounds: object) -> dict[str, object]:
    return {"kind": "count", "attribute": "class", "value": "tank", **bounds}


@pytest.mark.parametrize(
    ("checks", "refusal"),
    [
        (
            [
                {"name": "a", **_tanks(min=2, per="team")},
                {"name": "b", **_tanks(max=1, per="team")},
            ],
            "rules.checks[0]: 'a' asks for at least 2 players with class 'tank' a team, and "
            "rules.checks[1] ('b') for at most 1: no match could be made",
        ),
        (
            [{"name": "c", "kind": "all", "rules": [_tanks(min=2), _tanks(max=1)]}],
            "rules.checks[0].rules[0]: 'c' asks for at least 2 players with class 'tank' a "
            "match, and rules.checks[0].rules[1] ('c') for at most 1: no match could be made",
        ),
        (
            [{"name": "a", **_tanks(min=1, per="team")}, {"name": "b", **_tanks(max=1)}],
            "rules.checks[0]: 'a' asks for at least 1 players with class 'tank' a team, 2 in "
            "2 teams, and rules.checks[1] ('b') for at most 1 a match: no match could be made",
        ),
        (
            [{"name": "c", "kind": "all", "rules": [_tanks(min=3, per="team")]}],
            "rules.checks[0].rules[0]: 'c' asks for at least 3 players with class 'tank' a "
            "team, and a team holds at most 2: no match could be made",
        ),
    ],
)
def test_count_rules_no_match_can_meet_together_stop_the_start(
    checks: list[dict[str, object]], refusal: str
) -> None:
    profile = QueueProfile("q", "rebalance", ("m",), team_size=2, rules={"checks": checks})
    with pytest.raises(ValueError) as refused:
        check_rules(profile)
    assert str(refused.value) == refusal


@pytest.mark.parametrize(
    "checks",
    [
        # Either may hold: an "any" is not a conjunction.
        [{"name": "c", "kind": "any", "rules": [_tanks(min=2), _tanks(max=1)]}],
        # The maximum turns optional after a wait: met then.
        [
            {"name": "a", **_tanks(min=2, per="team")},
            {"name": "b", **_tanks(max=1, per="team", optional_after_s=30)},
        ],
        [{"name": "a", **_tanks(min=1, per="team")}, {"name": "b", **_tanks(max=2)}],
        [{"name": "a", **_tanks(min=1, max=1, per="team")}],
    ],
)
def test_count_rules_some_match_meets_are_accepted(checks: list[dict[str, object]]) -> None:
    check_rules(QueueProfile("q", "rebalance", ("m",), team_size=2, rules={"checks": checks}))
