"""Round trips between players, and which of a match's players may host it peer to peer.

Below the strategies and the shared checks (stdlib only): the multifactor strategy
(docs/multifactor.md) and the checks every team strategy shares read it alike.

A pair's measured round trip is what either player reported for the other in
``Player.peer_latency_ms`` (the larger, when both did: the route is only as good as its
worse direction's measurement). Without one, the estimate is the ping factor's: the best
region both measured, via it. The ``p2p_host_max_ms`` option (docs/adr/0185) needs a
player with ``can_host`` whose round trip to every other player is within the limit; a
pair with neither a measurement nor a shared region is unreachable.
"""

from __future__ import annotations

from collections.abc import Sequence

from matcher.core import Player, QueueProfile

#: The multifactor option that asks for a peer-to-peer host (docs/adr/0185).
OPTION = "p2p_host_max_ms"


def measured_ms(a: Player, b: Player) -> int | None:
    """The round trip either player reported for the other (the larger), else None.

    >>> a = Player("a", (), peer_latency_ms=(("b", 40),))
    >>> b = Player("b", (), peer_latency_ms=(("a", 55),))
    >>> measured_ms(a, b), measured_ms(a, Player("c", ()))
    (55, None)
    """
    reports = [ms for peer, ms in a.peer_latency_ms if peer == b.player_id]
    reports += [ms for peer, ms in b.peer_latency_ms if peer == a.player_id]
    return max(reports) if reports else None


def region_estimate_ms(a: Player, b: Player) -> int | None:
    """``min over regions both measured of (latency_a + latency_b)``, else None.

    >>> region_estimate_ms(Player("a", (), latency_ms=(("eu", 30), ("us", 90))),
    ...                    Player("b", (), latency_ms=(("eu", 50),)))
    80
    """
    theirs = dict(b.latency_ms)
    shared = [ms + theirs[region] for region, ms in a.latency_ms if region in theirs]
    return min(shared) if shared else None


def round_trip_ms(a: Player, b: Player) -> int | None:
    """The measured round trip of the pair, else the estimate via regions, else None."""
    measured = measured_ms(a, b)
    return measured if measured is not None else region_estimate_ms(a, b)


def host_reach_ms(host: Player, players: Sequence[Player]) -> int | None:
    """The worst round trip from ``host`` to the other players (0 alone), None if unknown.

    >>> a = Player("a", (), can_host=True, peer_latency_ms=(("b", 40), ("c", 70)))
    >>> host_reach_ms(a, [a, Player("b", ()), Player("c", ())])
    70
    """
    worst = 0
    for other in players:
        if other.player_id == host.player_id:
            continue
        ms = round_trip_ms(host, other)
        if ms is None:
            return None
        worst = max(worst, ms)
    return worst


def reachable_hosts(players: Sequence[Player], limit: int) -> list[Player]:
    """Players with ``can_host`` who reach every other within ``limit`` ms.

    Notes: O(players^2 x (peers + regions)).
    """
    return [
        p
        for p in players
        if p.can_host and (reach := host_reach_ms(p, players)) is not None and reach <= limit
    ]


def choose_host(players: Sequence[Player], limit: int) -> Player | None:
    """The reachable host with the smallest worst round trip, the first in seat order on a
    tie (no draw: the choice follows from the seats); None when nobody may host.

    >>> a = Player("a", (), can_host=True, peer_latency_ms=(("b", 90),))
    >>> b = Player("b", (), can_host=True, peer_latency_ms=(("a", 60),))
    >>> choose_host([a, b], 100).player_id
    'a'

    Notes: O(players^2 x (peers + regions)).
    """
    hosts = reachable_hosts(players, limit)
    if not hosts:
        return None
    return min(hosts, key=lambda p: host_reach_ms(p, players) or 0)


def host_limit(profile: QueueProfile) -> int:
    """The queue's ``p2p_host_max_ms`` (0: no host needed), for the checks every team
    strategy shares; the multifactor strategy validates it at start (its config).

    >>> host_limit(QueueProfile("q", "multifactor", ("m",), options={OPTION: "80"}))
    80
    """
    raw = profile.options.get(OPTION) if profile.strategy == "multifactor" else None
    if isinstance(raw, bool) or not isinstance(raw, int | float | str):
        return 0
    try:
        value = float(raw)
    except ValueError:
        return 0
    return int(value) if value.is_integer() and value > 0 else 0
