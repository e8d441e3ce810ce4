"""Checking a finished round against its revealed seed (docs/fairness.md).

A round's *published record* is what the server gives out once the round is over
(``GET /api/rooms/{id}/rounds/{n}/verify``): the variant, seats, first seat and options,
the commitment every seat was sent at the deal, the seed, the deal as it was logged, the
action log and the stored result. :func:`verify` recomputes what the record claims, with
the engine alone:

1. ``commitment``: ``SHA-256(seed)`` equals the commitment of the record;
2. ``deal``: the documented shuffle of the seed (:mod:`server.rules.shuffle`), dealt as
   :func:`~server.rules.state.deal_tiles` deals, equals the logged deal;
3. ``log``: every logged action is legal, applied in order to that deal, and the
   round is over after the last one;
4. ``result``: the replayed round's result (reason, who went out, scores, the closing,
   each seat's breakdown) equals the stored one.

The checks show that the record holds together: the committed seed deals the logged
deal, and the logged moves, all legal, lead to the stored result. A log changed into
other legal moves with the very same result would hold together too: that the moves are
the ones played is what the players saw (the replay shows every move).

A player compares the record's commitment with the one their own seat received when the
round was dealt (the browser keeps it; ``--commitment`` on the command line).

>>> import random
>>> from server.rules import new_round
>>> from server.rules.playout import play_round
>>> s = new_round("remi", players=2, seed="doc-seed", first=1)
>>> _ = play_round(s, random.Random(2))
>>> record = published(s, "doc-seed")
>>> [(c.name, c.ok) for c in verify_record(record)]
[('commitment', True), ('deal', True), ('log', True), ('result', True)]
>>> [c.name for c in verify_record({**record, "seed": "doc-seed2"}) if not c.ok]
['commitment', 'deal', 'log', 'result']
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from server.rules.errors import RuleError
from server.rules.shuffle import SCHEME, commitment
from server.rules.state import Deal, RoundOptions, RoundState, deal_tiles
from server.rules.variants import Variant, get_variant

__all__ = [
    "SCHEME",
    "Check",
    "PublishedRound",
    "parse_record",
    "published",
    "verify",
    "verify_record",
]

RESULT_KEYS = ("reason", "out", "scores", "closing", "breakdown")
"""What of a result is compared: all of it (the breakdown: each seat's points, laid and
in hand, bonuses and multipliers)."""


@dataclass(frozen=True)
class Check:
    """One step of the verification: its name, whether it holds, what was found."""

    name: str
    ok: bool
    detail: str

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class PublishedRound:
    """A finished round as published: everything :func:`verify` needs."""

    variant: Variant
    players: int
    first: int
    options: RoundOptions
    seed: str
    commitment: str | None
    deal: Deal
    actions: list[tuple[int, Any]]
    result: Mapping[str, Any] | None


def _need(data: Mapping[str, Any], key: str, kind: type | tuple[type, ...]) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is int):
        raise ValueError(f"the record's {key!r} is missing or of the wrong type")
    return value


def parse_record(data: Any) -> PublishedRound:
    """The published record read from JSON; ``ValueError`` says what is wrong with it."""
    if not isinstance(data, Mapping):
        raise ValueError("a round record is a JSON object")
    try:
        variant = get_variant(_need(data, "variant", str))
    except KeyError:
        raise ValueError(f"unknown variant {data.get('variant')!r}") from None
    players = _need(data, "players", int)
    first = _need(data, "first", int)
    seed = data.get("seed")
    if not isinstance(seed, str | int) or isinstance(seed, bool):
        raise ValueError("the record has no seed (a round's seed is shown once it is over)")
    committed = data.get("commitment")
    if committed is not None and not isinstance(committed, str):
        raise ValueError("the record's 'commitment' must be a hex string or null")
    try:
        options = RoundOptions.from_dict(_need(data, "options", Mapping))
        deal = Deal.from_dict(_need(data, "deal", Mapping))
        raw = _need(data, "actions", list)
        actions = [
            (int(a[0]), a[1]) if isinstance(a, list | tuple) else (int(a["seat"]), a["action"])
            for a in raw
        ]
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise ValueError(f"the record's options, deal or actions are malformed: {exc}") from None
    result = data.get("result")
    if result is not None and not isinstance(result, Mapping):
        raise ValueError("the record's 'result' must be an object or null")
    return PublishedRound(
        variant, players, first, options, str(seed), committed, deal, actions, result
    )


def _deal_difference(expected: Deal, logged: Deal) -> str | None:
    """Where the logged deal departs from the seed's, in words (None: nowhere)."""
    if logged.first != expected.first:
        return f"the first seat is {logged.first}, the seed deals to {expected.first} first"
    if len(logged.hands) != len(expected.hands):
        return f"{len(logged.hands)} hands logged, {len(expected.hands)} dealt"
    for seat, (want, got) in enumerate(zip(expected.hands, logged.hands, strict=True)):
        if tuple(got) != tuple(want):
            return f"seat {seat}'s hand differs from the seed's deal"
    if logged.atu != expected.atu:
        return f"the atu is tile {logged.atu}, the seed's is {expected.atu}"
    if tuple(logged.stock) != tuple(expected.stock):
        pairs = zip(expected.stock, logged.stock, strict=False)
        at = next(
            (i for i, (a, b) in enumerate(pairs) if a != b),
            min(len(expected.stock), len(logged.stock)),
        )
        return f"the stock differs from the seed's at position {at} (0: the top)"
    return None


def _replayed(record: PublishedRound, deal: Deal) -> tuple[RoundState | None, Check]:
    try:
        state = RoundState(record.variant, record.players, deal, record.options)
    except ValueError as exc:
        return None, Check("log", False, f"the round cannot be set up: {exc}")
    for k, (seat, action) in enumerate(record.actions, start=1):
        try:
            state.apply(seat, action)
        except RuleError as exc:
            do = action.get("do") if isinstance(action, Mapping) else None
            return state, Check(
                "log",
                False,
                f"action {k} (seat {seat}, {do}) is refused: {exc.code.value}: {exc.message}",
            )
    if not state.over:
        return state, Check(
            "log", False, f"the {len(record.actions)} actions leave the round unfinished"
        )
    return state, Check(
        "log",
        True,
        f"all {len(record.actions)} actions are legal from the seed's deal and end the round",
    )


def _result_check(state: RoundState | None, stored: Mapping[str, Any] | None) -> Check:
    result = state.result if state is not None else None
    if result is None:
        return Check("result", False, "the log does not reach a result")
    if stored is None:
        return Check("result", False, "the record holds no result")
    replayed = json.loads(json.dumps(asdict(result)))  # as the stored one: plain JSON
    wrong = [k for k in RESULT_KEYS if stored.get(k) != replayed[k]]
    if wrong:
        return Check(
            "result",
            False,
            "the stored result differs from the replay in "
            + ", ".join(
                k
                if k == "breakdown"
                else f"{k} ({stored.get(k)!r} stored, {replayed[k]!r} replayed)"
                for k in wrong
            ),
        )
    return Check(
        "result", True, f"the replay ends as stored: {result.reason}, scores {result.scores}"
    )


def verify(record: PublishedRound) -> list[Check]:
    """The four checks of the module docstring, in order."""
    checks: list[Check] = []
    computed = commitment(record.seed)
    if record.commitment is None:
        checks.append(Check("commitment", False, "the round was dealt without a commitment"))
    elif computed != record.commitment.lower():
        checks.append(
            Check(
                "commitment",
                False,
                f"SHA-256(seed) is {computed}, the round's commitment is {record.commitment}",
            )
        )
    else:
        checks.append(Check("commitment", True, f"SHA-256(seed) = {computed}"))
    try:
        expected = deal_tiles(
            record.variant, record.players, record.seed, record.first, record.options
        )
    except ValueError as exc:
        checks.append(Check("deal", False, f"the seed cannot deal this table: {exc}"))
        return [
            *checks,
            Check("log", False, "no deal to replay"),
            Check("result", False, "no deal to replay"),
        ]
    difference = _deal_difference(expected, record.deal)
    dealt = sum(map(len, expected.hands)) + len(expected.stock) + (expected.atu is not None)
    checks.append(
        Check(
            "deal",
            difference is None,
            difference
            or f"the seed's shuffle deals exactly the logged hands, atu and stock ({dealt} tiles)",
        )
    )
    state, log_check = _replayed(record, expected)
    checks.append(log_check)
    checks.append(_result_check(state if log_check.ok else None, record.result))
    return checks


def verify_record(data: Any) -> list[Check]:
    """:func:`parse_record` then :func:`verify` (``ValueError`` for a malformed record)."""
    return verify(parse_record(data))


def published(
    state: RoundState, seed: int | str, actions: Sequence[Sequence[Any]] | None = None
) -> dict[str, Any]:
    """A finished round's published record (JSON-ready) from its state and seed: how the
    server writes it, and how tests make one."""
    result = state.result
    deal = state.deal
    return {
        "scheme": SCHEME,
        "variant": state.variant.id,
        "players": state.players,
        "first": deal.first,
        "options": state.options.to_dict(),
        "commitment": deal.commitment,
        "seed": str(seed),
        "deal": {k: v for k, v in deal.to_dict().items() if k != "commitment"},
        "actions": [[seat, dict(a)] for seat, a in (state.log if actions is None else actions)],
        "result": asdict(result) if result is not None else None,
    }
