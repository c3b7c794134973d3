"""`wavematch wave`: both formats, output shape, and one-line errors for bad input."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from streams.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE_1V1 = ROOT / "examples" / "wave-1v1.json"
EXAMPLE_3V3 = ROOT / "examples" / "wave-3v3.json"
DUEL_KEYS = {
    "match_id",
    "bw_player",
    "sc2_player",
    "bw_mmr",
    "sc2_mmr",
    "mmr_diff",
    "map",
    "server",
    "channel",
}


def _run(tmp_path: Path, data: Any, strategy: str = "optimal") -> tuple[int, str]:
    source = tmp_path / "wave.json"
    source.write_text(data if isinstance(data, str) else json.dumps(data))
    target = tmp_path / "result.json"
    code = main(["wave", "--strategy", strategy, "--input", str(source), "--output", str(target)])
    return code, target.read_text() if target.exists() else ""


@pytest.mark.parametrize("strategy", ["optimal", "ladder-v2.1"])
def test_1v1_example_output_format(tmp_path: Path, strategy: str) -> None:
    code, text = _run(tmp_path, EXAMPLE_1V1.read_text(), strategy)
    assert code == 0
    result = json.loads(text)
    assert set(result) == {"matches", "unmatched", "stats"}
    assert result["matches"]
    players = {p["id"]: p for p in json.loads(EXAMPLE_1V1.read_text())["players"]}
    seen = set()
    for match in result["matches"]:
        assert set(match) == DUEL_KEYS
        assert match["bw_mmr"] == players[match["bw_player"]]["bw_mmr"]
        assert match["sc2_mmr"] == players[match["sc2_player"]]["sc2_mmr"]
        assert match["mmr_diff"] == abs(match["bw_mmr"] - match["sc2_mmr"])
        assert match["channel"].startswith("scevo")
        seen |= {match["bw_player"], match["sc2_player"]}
    assert seen | set(result["unmatched"]) == set(players)
    assert "newbie" in result["unmatched"]
    assert result["stats"]["matches"] == len(result["matches"])


def test_output_is_byte_identical_across_runs(tmp_path: Path) -> None:
    first = _run(tmp_path, EXAMPLE_1V1.read_text())[1]
    assert first == _run(tmp_path, EXAMPLE_1V1.read_text())[1]


def test_generic_example_through_a_team_strategy(tmp_path: Path) -> None:
    code, text = _run(tmp_path, EXAMPLE_3V3.read_text(), "rebalance")
    assert code == 0
    result = json.loads(text)
    for match in result["matches"]:
        assert {"match_id", "teams", "map", "server", "channel", "quality"} <= set(match)
        assert [len(team["seats"]) for team in match["teams"]] == [3, 3]


def test_subprocess_stdout_and_exit_code() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from streams.cli import main; raise SystemExit(main())",
            "wave",
            "--strategy",
            "optimal",
            "--input",
            str(EXAMPLE_1V1),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["matches"]) == 3


def test_subprocess_bad_input_is_one_line_without_traceback(tmp_path: Path) -> None:
    data = json.loads(EXAMPLE_1V1.read_text())
    data["players"][3]["bw_mmr"] = -1
    source = tmp_path / "bad.json"
    source.write_text(json.dumps(data))
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from streams.cli import main; raise SystemExit(main())",
            "wave",
            "--strategy",
            "optimal",
            "--input",
            str(source),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "wavematch wave: error: players[3].bw_mmr: must be >= 0"
    ]


def _broken(change: Any) -> dict[str, Any]:
    data: dict[str, Any] = copy.deepcopy(json.loads(EXAMPLE_1V1.read_text()))
    change(data)
    return data


BAD_INPUTS = [
    (lambda d: d.pop("wave_id"), "wave_id: missing"),
    (lambda d: d["players"][1].pop("wait_cycles"), "players[1].wait_cycles: missing"),
    (lambda d: d["players"][3].update(bw_mmr=-1), "players[3].bw_mmr: must be >= 0"),
    (lambda d: d["players"][0].update(sc2_mmr=-7), "players[0].sc2_mmr: must be >= 0"),
    (lambda d: d["players"][2].update(sc2_mmr=None), "players[2]: needs bw_mmr or sc2_mmr"),
    (lambda d: d["players"][4].update(id="flash"), "players[4].id: duplicate id 'flash'"),
    (lambda d: d.update(seed="x"), "seed: must be an integer, got str"),
    (lambda d: d["players"][0].update(bw_mmr=1.5), "players[0].bw_mmr: must be an integer"),
    (lambda d: d["players"][0].update(vetoed_maps=[3]), "players[0].vetoed_maps[0]: must be"),
    (lambda d: d.update(players={}), "players: must be a list"),
    (lambda d: d.update(options={"colour": 1}), "options.colour: unknown option"),
    (lambda d: d.update(active_population=True), "active_population: must be an integer"),
    (lambda d: d["players"][1].update(wait_cycle=3), "players[1].wait_cycle: unknown field"),
    (lambda d: d.update(sed=3), "sed: unknown field"),
    (lambda d: d["players"][1].update(bw_mmr=10**30), "players[1].bw_mmr: must be <= 10000"),
    (lambda d: d["players"][0].update(wait_cycles=2**70), "wait_cycles: must be <= 1000000"),
    (lambda d: d.update(seed=-(2**70)), "seed: must be >= -4611686018427387904"),
    (lambda d: d.update(maps=[]), "maps: must name at least one map"),
]


@pytest.mark.parametrize(("change", "message"), BAD_INPUTS)
def test_bad_1v1_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, message: str
) -> None:
    code, _ = _run(tmp_path, _broken(change))
    err = capsys.readouterr().err
    assert code == 2
    assert len(err.strip().splitlines()) == 1
    assert message in err


@pytest.mark.parametrize(
    ("text", "message"),
    [("{not json", "--input: invalid JSON at line 1"), ("[1, 2]", "wave: must be a JSON object")],
)
def test_invalid_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, message: str
) -> None:
    assert _run(tmp_path, text)[0] == 2
    assert message in capsys.readouterr().err


def test_unknown_strategy_and_unreadable_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run(tmp_path, EXAMPLE_1V1.read_text(), "nope")[0] == 2
    assert "--strategy: unknown strategy 'nope'" in capsys.readouterr().err
    code = main(["wave", "--strategy", "optimal", "--input", str(tmp_path / "missing.json")])
    assert code == 2
    assert "--input: cannot read" in capsys.readouterr().err


def test_generic_bad_input_names_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(EXAMPLE_3V3.read_text())
    data["tickets"][2]["players"][0]["ratings"]["tank"] = -3
    assert _run(tmp_path, data, "rebalance")[0] == 2
    assert (
        "tickets[2].players[0].ratings.tank: Input should be greater than or equal to 0 (got -3)"
        in capsys.readouterr().err
    )
    data = json.loads(EXAMPLE_3V3.read_text())
    assert _run(tmp_path, data, "optimal")[0] == 2
    assert (
        "error: profile: duel strategies need team_count 2 and team_size 1"
        in capsys.readouterr().err
    )


def test_a_player_seated_twice_is_named_where_the_file_has_it(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(EXAMPLE_3V3.read_text())
    data["tickets"][1]["players"][0]["player_id"] = data["tickets"][0]["players"][0]["player_id"]
    assert _run(tmp_path, data, "rebalance")[0] == 2
    assert "error: tickets[1].players[0].player_id: duplicate id" in capsys.readouterr().err


def test_an_omitted_rating_is_a_null_one(tmp_path: Path) -> None:
    """docs/wave-format.md: a race the player does not play is null or left out."""
    data = json.loads(EXAMPLE_1V1.read_text())
    with_null = copy.deepcopy(data)
    without = copy.deepcopy(data)
    for nulled, omitted in zip(with_null["players"], without["players"], strict=True):
        if nulled.get("sc2_mmr") is None:
            nulled["sc2_mmr"] = None
            omitted.pop("sc2_mmr", None)
    assert any("sc2_mmr" not in player for player in without["players"])
    assert _run(tmp_path, without) == _run(tmp_path, with_null)
    assert _run(tmp_path, without)[0] == 0


def _duel_pair(rules: dict[str, Any] | None) -> dict[str, Any]:
    """Two 1v1 players 128 apart who joined a second before the wave closed (five waves
    waited: the strategy's own windows allow the pair)."""
    profile: dict[str, Any] = {"maps": ["Arena"]}
    if rules is not None:
        profile["rules"] = rules
    players = [("a", "bw", 1500), ("b", "sc2", 1628)]
    return {
        "wave_id": "w-1",
        "seed": 1,
        "queue": "ladder",
        "region": "eu",
        "active_population": 2,
        "closed_at_ms": 1_000,
        "profile": profile,
        "tickets": [
            {
                "ticket_id": f"t-{pid}",
                "wait_cycles": 5,
                "joined_at_ms": 0,
                "players": [{"player_id": pid, "ratings": {race: mmr}}],
            }
            for pid, race, mmr in players
        ],
    }


def test_the_profile_rules_are_honoured(tmp_path: Path) -> None:
    code, text = _run(tmp_path, _duel_pair(None))
    assert code == 0 and len(json.loads(text)["matches"]) == 1
    code, text = _run(tmp_path, _duel_pair({"max_distance": 100}))
    assert code == 0
    result = json.loads(text)
    assert result["matches"] == [] and sorted(result["unmatched"]) == ["t-a", "t-b"]
    code, text = _run(tmp_path, _duel_pair({"max_distance": 200}))
    assert code == 0 and len(json.loads(text)["matches"]) == 1


@pytest.mark.parametrize(
    ("rules", "strategy", "message"),
    [
        ({"max_sprad": 1}, "optimal", "profile.rules.max_sprad: unknown rule"),
        ({"max_spread": 100}, "optimal", "profile.rules.max_spread: not honoured by strategy"),
        ([1], "optimal", "profile.rules: must be an object"),
    ],
)
def test_bad_profile_rules_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], rules: Any, strategy: str, message: str
) -> None:
    assert _run(tmp_path, _duel_pair(rules), strategy)[0] == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err


def test_an_unknown_profile_field_is_refused_not_ignored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _duel_pair(None)
    data["profile"]["rule"] = {"max_distance": 100}
    assert _run(tmp_path, data)[0] == 2
    assert "profile.rule: unknown field" in capsys.readouterr().err


def test_the_1v1_format_honours_rules_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(EXAMPLE_1V1.read_text())
    code, text = _run(tmp_path, data)
    assert code == 0 and json.loads(text)["matches"]
    data["rules"] = {"max_distance": 1}
    code, text = _run(tmp_path, data)
    result = json.loads(text)
    assert code == 0 and all(m["mmr_diff"] <= 1 for m in result["matches"])
    data["rules"] = {"max_sprad": 1}
    assert _run(tmp_path, data)[0] == 2
    assert "rules.max_sprad: unknown rule" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda d: d.update(closed_at=5), "closed_at: unknown field"),
        (lambda d: d["tickets"][1].update(wait_cycle=2), "tickets[1].wait_cycle: unknown field"),
        (
            lambda d: d["tickets"][0]["players"][0].update(latency={"eu": 3}),
            "tickets[0].players[0].latency: unknown field",
        ),
    ],
)
def test_a_misspelt_field_of_the_generic_format_is_refused_not_ignored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, message: str
) -> None:
    data = _duel_pair(None)
    change(data)
    assert _run(tmp_path, data)[0] == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and message in err, err


def test_block_lists_and_deviation_are_read_as_the_worker_reads_them(tmp_path: Path) -> None:
    """The generic format carries what the 1v1 rules read of a player: blocked players
    (``block_lists``) and a rating deviation (``deviation``), under the wire's names."""
    data = _duel_pair({"block_lists": True})
    assert len(json.loads(_run(tmp_path, data)[1])["matches"]) == 1
    data["tickets"][0]["players"][0]["blocked_players"] = ["b"]
    code, text = _run(tmp_path, data)
    assert code == 0 and json.loads(text)["matches"] == []
    rules = {"rating": "mmr", "max_distance": 150, "deviation": {"weight": 1, "missing": 0}}
    data = _duel_pair(rules)
    for ticket in data["tickets"]:  # one rating key, as a mirror ladder rates its players
        player = ticket["players"][0]
        player["ratings"] = {"mmr": next(iter(player["ratings"].values()))}
    assert len(json.loads(_run(tmp_path, data)[1])["matches"]) == 1  # 128 apart
    data["tickets"][0]["players"][0]["deviation"] = 100  # a's bound 1400: 228 apart
    code, text = _run(tmp_path, data)
    assert code == 0 and json.loads(text)["matches"] == [], text


def _solos(count: int, **player: Any) -> list[dict[str, Any]]:
    return [
        {
            "ticket_id": f"t{i}",
            "wait_cycles": 0,
            "joined_at_ms": 0,
            "players": [{"player_id": f"p{i}", "ratings": {"mmr": 1500 + i}, **player}],
        }
        for i in range(count)
    ]


def _team_wave(tickets: list[dict[str, Any]], **profile: Any) -> dict[str, Any]:
    return {
        "wave_id": "w",
        "seed": 1,
        "queue": "q",
        "region": "eu",
        "active_population": len(tickets),
        "closed_at_ms": 120_000,
        "profile": {"maps": ["m"], "team_count": 2, "team_size": 2, **profile},
        "tickets": tickets,
    }


@pytest.mark.parametrize(
    ("change", "message"),
    [
        # The wire's own bounds: what a worker refuses, a wave file cannot hold.
        (
            {"numbers": {"level": float("inf")}},
            "tickets[0].players[0].numbers.level: Input should be a finite number",
        ),
        (
            {"attributes": {f"a{i}": "x" for i in range(17)}},
            "tickets[0].players[0].attributes: Dictionary should have at most 16 items",
        ),
        (
            {"blocked_players": [f"b{i}" for i in range(101)]},
            "tickets[0].players[0].blocked_players: Tuple should have at most 100 items",
        ),
        ({"attributes": {"lang": ""}}, "tickets[0].players[0].attributes.lang: String should"),
        # The worker's admission: a player without the rules' rating never queues.
        ({"ratings": {"elo": 1500}}, "tickets[0]: rejected at join: player p0 has no 'mmr'"),
    ],
)
def test_a_wave_holds_only_what_a_join_may_carry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], change: dict[str, Any], message: str
) -> None:
    tickets = _solos(4)
    tickets[0]["players"][0].update(change)
    data = _team_wave(tickets, rules={"rating": "mmr"})
    assert _run(tmp_path, data, "rebalance")[0] == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_a_wave_profile_takes_team_steps_as_a_queue_does(tmp_path: Path) -> None:
    """Three solos waiting two minutes: a 1v1 step after 60 s matches two of them."""
    steps = [{"after_s": 60, "team_size": 1}]
    code, text = _run(tmp_path, _team_wave(_solos(3), team_steps=steps), "rebalance")
    assert code == 0
    (match,) = json.loads(text)["matches"]
    assert [len(team["seats"]) for team in match["teams"]] == [1, 1]
    code, text = _run(tmp_path, _team_wave(_solos(3)), "rebalance")
    assert code == 0 and json.loads(text)["matches"] == []


def test_team_steps_a_strategy_cannot_honour_are_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    steps = [{"after_s": 60, "team_size": 3}]
    assert _run(tmp_path, _team_wave(_solos(3), team_steps=steps), "rebalance")[0] == 2
    err = capsys.readouterr().err
    assert "profile.team_steps" in err and len(err.strip().splitlines()) == 1
