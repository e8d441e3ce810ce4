"""Standings and prize splits: who placed where at a table, and how a pot or a prize pool
is shared by those places (docs/economy.md, "Arena" and "Tournaments").

Pure functions (no I/O), shared by the Arena's pot (:mod:`server.economy.arena`) and the
tournaments' prizes (:mod:`server.tournaments`). A higher total is a better standing
(the match's winners are the seats with the highest total, A.17).

* :func:`ranking`: the seats from the best standing to the worst, equal totals by seat.
* :func:`split`: a pool shared by a payout table (per cent of the pool per place) among
  the seats that may be paid; equal totals share the places they take; the whole pool is
  always paid out, never more.
"""

from __future__ import annotations

from collections.abc import Sequence


def ranking(totals: Sequence[int], eligible: Sequence[bool] | None = None) -> list[int]:
    """The seats (only the ``eligible`` ones) from the best total to the worst; equal
    totals in seat order (the better seed: a tournament seats its players by standing).

    >>> ranking([10, 30, 30, -5])
    [1, 2, 0, 3]
    >>> ranking([10, 30, 30, -5], [True, False, True, True])
    [2, 0, 3]
    """
    seats = [s for s in range(len(totals)) if eligible is None or eligible[s]]
    return sorted(seats, key=lambda s: (-totals[s], s))


def place_shares(table: Sequence[int], places: int) -> list[int]:
    """The per cent of the pool each of ``places`` places gets from a payout ``table``:
    a table longer than the places there are gives what is left over to the first place
    (the pool is always paid out whole).

    >>> place_shares([70, 30], 4), place_shares([50, 30, 20], 2), place_shares([100], 1)
    ([70, 30, 0, 0], [70, 30], [100])
    """
    if places <= 0:
        return []
    shares = [table[i] if i < len(table) else 0 for i in range(places)]
    shares[0] += sum(table[places:])
    return shares


def split(
    pool: int,
    table: Sequence[int],
    totals: Sequence[int],
    eligible: Sequence[bool] | None = None,
) -> list[int]:
    """Each seat's part of ``pool`` (0 for a seat that is not ``eligible``, say a bot).

    The eligible seats take places 1, 2, ... by :func:`ranking`; place ``i`` is worth
    ``table[i]`` per cent of the pool (rounded down, what rounding leaves goes to the
    first place). Seats with equal totals share the worth of the places they take
    between them, evenly, the odd points going one each to the lower seats. The parts
    always add up to ``pool`` when a seat is eligible.

    >>> split(400, [100], [12, 30, 5, 0])
    [0, 400, 0, 0]
    >>> split(400, [70, 30], [12, 30, 5, 0])
    [120, 280, 0, 0]
    >>> split(400, [100], [30, 30, 5, 30])
    [134, 133, 0, 133]
    >>> split(400, [70, 30], [30, 30, 5, 0])
    [200, 200, 0, 0]
    >>> split(300, [50, 30, 20], [9, 9, 9, 9], [True, True, False, True])
    [100, 100, 0, 100]
    """
    order = ranking(totals, eligible)
    parts = [0] * len(totals)
    if not order or pool <= 0:
        return parts
    shares = place_shares(table, len(order))
    worth = [pool * share // 100 for share in shares]
    worth[0] += pool - sum(worth)
    i = 0
    while i < len(order):
        j = i
        while j < len(order) and totals[order[j]] == totals[order[i]]:
            j += 1
        tied = sorted(order[i:j])
        amount = sum(worth[i:j])
        each, odd = divmod(amount, len(tied))
        for k, seat in enumerate(tied):
            parts[seat] = each + (1 if k < odd else 0)
        i = j
    return parts
