"""A tournament's plan: its players seated at the tables of a stage, who goes on from a
stage, the places at the final table. Pure functions (no I/O, no clock).

A stage seats its players at tables of ``seats`` seats, as few tables as hold them, the
players dealt to the tables in turn (their seeding order), so that the tables differ by
one player at most; bots fill the seats left. A stage of no more players than a table
has is the final. From any other stage the best ``seats // 2`` players of each table (by
the table's standings; bots never go on) go on to the next, seeded by their place at
their table, then their total: so every stage but the final halves the players, at
least, and a tournament always ends (docs/tournaments.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from server.economy.payouts import ranking

Seating = list[str | None]
"""A table's seats: a player's id, or None for a bot."""


def advance_per_table(seats: int) -> int:
    """How many players of each table of a stage that is not the final go on.

    >>> advance_per_table(4), advance_per_table(3), advance_per_table(2)
    (2, 1, 1)
    """
    return max(1, seats // 2)


def is_final(players: int, seats: int) -> bool:
    """Whether a stage of ``players`` players is the final: one table holds them."""
    return players <= seats


def seat_tables(players: Sequence[str], seats: int) -> list[Seating]:
    """The stage's tables: the players dealt in turn, in their order, bots after them.

    >>> seat_tables(["a", "b", "c", "d", "e"], 4)
    [['a', 'c', 'e', None], ['b', 'd', None, None]]
    >>> seat_tables(["a", "b"], 4)
    [['a', 'b', None, None]]
    """
    count = max(1, -(-len(players) // seats))
    tables: list[Seating] = [[] for _ in range(count)]
    for i, player in enumerate(players):
        tables[i % count].append(player)
    return [t + [None] * (seats - len(t)) for t in tables]


def stage_sizes(players: int, seats: int) -> list[int]:
    """The players of each stage of a tournament of ``players`` (all of them going the
    distance the plan says: the planned stages).

    >>> stage_sizes(8, 4), stage_sizes(16, 4), stage_sizes(4, 4), stage_sizes(11, 4)
    ([8, 4], [16, 8, 4], [4], [11, 6, 4])
    """
    sizes = [players]
    while not is_final(sizes[-1], seats):
        tables = seat_tables([str(i) for i in range(sizes[-1])], seats)
        keep = advance_per_table(seats)
        sizes.append(sum(min(keep, sum(p is not None for p in t)) for t in tables))
    return sizes


@dataclass(frozen=True, slots=True)
class TableResult:
    """A finished table: its seating and each seat's total."""

    seating: Seating
    totals: list[int]

    def players_ranked(self) -> list[str]:
        """The table's players from the best standing to the worst (bots left out)."""
        order = ranking(self.totals, [p is not None for p in self.seating])
        return [p for p in (self.seating[s] for s in order) if p is not None]


def advancing(results: Sequence[TableResult], keep: int) -> list[str]:
    """The players who go on from a stage, in their seeding order for the next one: by
    their place at their table, then their total (higher first), then their table.

    >>> a = TableResult(["a", "b", "c", "d"], [5, 30, 30, -2])
    >>> b = TableResult(["e", "f", None, "g"], [10, 0, 50, 3])
    >>> advancing([a, b], 2)
    ['b', 'e', 'c', 'g']
    """
    seeded: list[tuple[int, int, int, str]] = []
    for t, result in enumerate(results):
        for place, player in enumerate(result.players_ranked()[:keep]):
            total = result.totals[result.seating.index(player)]
            seeded.append((place, -total, t, player))
    return [player for *_, player in sorted(seeded)]


def places(totals: Sequence[int], eligible: Sequence[bool]) -> list[int | None]:
    """Each seat's place among the eligible seats (None for the others): equal totals
    share the better place.

    >>> places([10, 30, 30, -5], [True, True, True, True])
    [3, 1, 1, 4]
    >>> places([10, 30, 30, -5], [True, False, True, True])
    [2, None, 1, 3]
    """
    out: list[int | None] = [None] * len(totals)
    order = ranking(totals, eligible)
    for i, seat in enumerate(order):
        prev = order[i - 1] if i else None
        out[seat] = out[prev] if prev is not None and totals[prev] == totals[seat] else i + 1
    return out
