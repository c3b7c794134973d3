"""How much of one match event a queue's seats may take: a match leaves as one event.

A match is published as one ``MatchCreated`` (or ``MatchProposed``) of at most
:data:`MATCH_EVENT_BYTES`, each seat carrying its ticket's and player's ids, its role,
its rating and its opaque data. A queue whose largest match could outgrow that with the
largest joins the contract allows gives each player a share of the event, and a join
whose seats would take more than its players' shares is refused at join (docs/adr/0208):
once queued, it could only break its wave's publication.

The byte counts bound the encoded size from above for any length-prefixed encoding: the
UTF-8 bytes of every string plus :data:`STRING_FRAMING` for its length.
"""

from __future__ import annotations

from collections.abc import Sequence

#: The largest event the contract accepts (schemas.codec.MAX_EVENT_BYTES; a test keeps
#: the two equal: the matcher imports nothing from schemas).
MATCH_EVENT_BYTES = 64 * 1024
#: A string's length prefix, at most (a zig-zag varint of a length below 2**20).
STRING_FRAMING = 4
#: What a match's own fields may take besides its seats: ids, queue, region, map,
#: server, channel, strategy, fingerprint, times and the quality figures.
MATCH_FIELDS_BYTES = 8 * 1024
#: Of MATCH_FIELDS_BYTES, what a match's quality figures may take (a figure's name, its
#: framing and its 8-byte value each), and how many it may have (the contract's limit):
#: the common checker refuses a result beyond either, so that the wave fails whole
#: instead of its match failing to encode.
QUALITY_BYTES = 4 * 1024
QUALITY_FIGURES = 64
#: Per team: its name (a Name of at most 64 characters, 4 bytes each) and its framing.
TEAM_BYTES = 64 * 4 + 2 * STRING_FRAMING
#: Per seat besides its ids and data: the rating, the role's framing, the data map's.
SEAT_FRAMING = 24
#: The largest seat the contract allows: two ids of 128 characters (4 bytes each), a role
#: of 64, and 2,048 bytes of data in up to 32 entries.
LARGEST_SEAT = 2 * (128 * 4 + STRING_FRAMING) + 64 * 4 + SEAT_FRAMING + 2048 + 32 * 2 * 4
#: The least share a queue may leave a player: two 36-character ids (a UUID each) and a
#: little data. A queue whose largest match leaves less is refused at start.
LEAST_SHARE = 128


def player_share(match_players: int, team_count: int, roles: Sequence[str]) -> int | None:
    """The bytes each player of a match of up to ``match_players`` in ``team_count``
    teams may take of the event for ids and data, or None when no join the contract
    allows could make the event too long (every queue of ordinary size).

    >>> player_share(10, 2, ()) is None, player_share(100, 25, ())
    (True, 479)
    """
    room = MATCH_EVENT_BYTES - MATCH_FIELDS_BYTES - team_count * TEAM_BYTES
    if match_players * LARGEST_SEAT <= room:
        return None
    role = max((len(name.encode()) for name in roles), default=0) + STRING_FRAMING
    return room // match_players - role - SEAT_FRAMING


def seats_bytes(
    ticket_id: str,
    ticket_data: Sequence[tuple[str, str]],
    players: Sequence[tuple[str, Sequence[tuple[str, str]]]],
) -> int:
    """The bytes a ticket's seats take for ids and data: each player's seat holds the
    ticket's id, the player's id, the ticket's data and the player's own.

    >>> seats_bytes("t1", (("k", "vv"),), [("p1", ()), ("p2", (("x", "y"),))])
    56
    """
    per_string = STRING_FRAMING
    shared = len(ticket_id.encode()) + per_string
    shared += sum(len(k.encode()) + len(v.encode()) + 2 * per_string for k, v in ticket_data)
    total = 0
    for player_id, data in players:
        total += shared + len(player_id.encode()) + per_string
        total += sum(len(k.encode()) + len(v.encode()) + 2 * per_string for k, v in data)
    return total
