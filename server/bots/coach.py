"""The coach: a finished round reviewed for one seat, decision by decision, from its view.

For every action the seat played, the coach rebuilds what that seat could see then
(:func:`server.rules.views.view_for` of the round replayed up to that action, and the
row memory a bot at that seat would have kept), lists the engine's candidates (the
player's own choice, the hard level's policy choice and the alternatives its search
compares: drawing or the best take, the next best discards, opening now or waiting)
and values each by the hard level's play-outs (:mod:`server.bots.rollout`: the hidden
tiles dealt at random consistently with the view, the same policy and evaluation to
the end of the round), every candidate on the same sampled deals. The revealed hands
are never read: two rounds that differ only in tiles the seat could not see get the
same review.

A decision is *flagged* when the best candidate beats the player's choice on the same
deals by at least ``min_cost`` points on average and by more than ``z`` standard errors
of the paired differences (``mean - z * se > 0``), valued on at least ``flag_worlds``
sampled deals (when the budget runs out on a decision that clears the bar on fewer, the
coach samples on to that many first); the default, z = 2, 3 points and 16 deals, keeps a
flag clearly above the noise of the play-outs (docs/bots.md: flags on fewer deals did
worse when replayed).

The work per decision is wall-clock time (``CoachSettings.budget``, seconds, larger
than a bot's), read from a clock the caller passes (nothing here reads a clock of its
own); ``min_worlds`` and ``max_worlds`` bound the sampled deals. :func:`review` is a
generator: one :class:`Decision` per decision of the seat, so a caller can show
progress and stop.

>>> from server.rules.playout import play_round
>>> from server.rules.state import new_round
>>> import random
>>> s = new_round("remi", players=2, seed="coach-doc")
>>> _ = play_round(s, random.Random(3))
>>> ticks = iter(range(10**6))
>>> decisions = review(s.variant.id, 2, s.deal, s.options, s.log, 0, lambda: next(ticks),
...                    CoachSettings(budget=1e9, min_worlds=2, max_worlds=2))
>>> first = next(decisions)  # one Decision per action of seat 0, in the log's order
>>> (first.seat, first.index) == (0, next(i for i, (seat, _) in enumerate(s.log) if seat == 0))
True
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Container, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from server.bots import HARD
from server.bots.bot import NormalBot
from server.bots.hard import HardBot, discard_candidates, take_candidates
from server.bots.planner import best_plan, make_ctx
from server.bots.rollout import play_out, sample_world
from server.rules.errors import RuleError
from server.rules.state import Deal, RoundOptions, RoundState
from server.rules.tiles import FaceNotation, face_of
from server.rules.variants import get_variant
from server.rules.views import SeatView, view_for

Clock = Callable[[], float]


@dataclass(frozen=True)
class CoachSettings:
    """How long the coach thinks and when it speaks."""

    budget: float = 2.0  # seconds of play-outs per decision (a hard bot has about 0.5)
    min_worlds: int = 4  # sampled deals per decision at least, whatever the clock says
    max_worlds: int = 200  # and at most
    z: float = 2.0  # standard errors of the paired difference a flag must clear
    min_cost: float = 3.0  # points a flag must cost at least
    flag_worlds: int = 16  # sampled deals a flag needs (past the budget if one is in sight)


@dataclass
class Decision:
    """One decision of the seat, valued (``cost`` > 0: the best candidate was better)."""

    index: int  # the action's place in the round's log (replay step index + 1 shows it)
    seat: int
    kind: str  # take, discard, open, lay, layoff, buy_joker
    played: dict[str, Any]
    best: dict[str, Any]
    cost: float  # mean of (best - played) over the sampled deals, points
    se: float  # its standard error
    worlds: int  # sampled deals played
    candidates: int
    flagged: bool
    stock: int  # tiles in the stock at the decision
    text: dict[str, str] = field(default_factory=dict)  # en, ro: the flag in words
    marked: dict[str, str] = field(default_factory=dict)  # the same, tiles as {t:ID}
    values: list[float] = field(default_factory=list)  # each candidate's mean, played first
    hand: list[int] = field(default_factory=list)  # the seat's own tiles then (its view)
    row: list[int] = field(default_factory=list)  # the row as the seat saw it then

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def finished_round(
    variant: str,
    players: int,
    deal: Deal,
    options: RoundOptions | None,
    log: Sequence[Sequence[Any]],
) -> RoundState:
    """The round replayed from its log; ``ValueError`` unless it is over (a round still in
    play is never reviewed)."""
    state = RoundState(get_variant(variant), players, deal, options)
    for seat, action in log:
        state.apply(int(seat), action)
    if not state.over:
        raise ValueError("round_not_finished: a round is reviewed once it is over")
    return state


def review(
    variant: str,
    players: int,
    deal: Deal,
    options: RoundOptions | None,
    log: Sequence[Sequence[Any]],
    seat: int,
    clock: Clock,
    settings: CoachSettings | None = None,
    only: Container[int] | None = None,
    trace: list[dict[str, Any]] | None = None,
) -> Iterator[Decision]:
    """Each decision of ``seat`` in the finished round (``only``: those at these places
    of the log), valued from the seat's view. ``trace``: a list that receives each valued
    decision's sampled deals (:func:`value`), for a benchmark that judges other flag rules
    on the same play-outs."""
    settings = settings or CoachSettings()
    finished_round(variant, players, deal, options, log)
    if not 0 <= seat < players:
        raise ValueError("no such seat")
    state = RoundState(get_variant(variant), players, deal, options)
    policy = HardBot(replace(HARD, rollouts=0, rollouts_a=0), f"coach/{seat}")
    for index, (who, action) in enumerate(log):
        who = int(who)
        if who == seat:
            view = view_for(state, seat)
            if only is None or index in only:
                yield _decide(view, policy, dict(action), index, clock, settings, trace)
            else:
                policy.memory.update(view)  # the row memory follows every decision
                if action["do"] == "discard":
                    policy.memory.after_discard(view, int(action["tile"]))
        state.apply(who, action)


def _decide(
    view: SeatView,
    policy: HardBot,
    played: dict[str, Any],
    index: int,
    clock: Clock,
    settings: CoachSettings,
    trace: list[dict[str, Any]] | None = None,
) -> Decision:
    """The decision at ``view``: candidates, play-outs, the flag."""
    # The policy's own choice (it keeps the row memory, as a bot at the seat would).
    suggestion = policy.act(view)
    picked = set(policy.memory.picked)
    policy.memory.last_row = list(view.row)
    if played["do"] == "discard":
        policy.memory.after_discard(view, int(played["tile"]))
    kind, cands = candidates(view, picked, played, suggestion)
    seat = view.seat if view.seat is not None else 0
    base = Decision(
        index,
        seat,
        kind,
        played,
        played,
        0.0,
        0.0,
        0,
        len(cands),
        False,
        view.stock_count,
        hand=list(view.hand),
        row=list(view.row),
    )
    if len(cands) < 2 or view.stock_count <= 0:
        return base
    seed = f"coach/{seat}/{index}"
    values = value(view, picked, cands, policy, clock, settings, seed, trace)
    if not values or len(values[0]) == 0:
        return base
    n = len(values[0])
    means = [sum(v) / n if len(v) == n else float("-inf") for v in values]
    best = max(range(len(cands)), key=lambda k: (means[k], -k))
    base.worlds = n
    base.values = [round(m, 2) if math.isfinite(m) else -999.0 for m in means]
    if best == 0:
        return base
    diffs = [a - b for a, b in zip(values[best], values[0], strict=True)]
    cost = sum(diffs) / n
    var = sum((d - cost) ** 2 for d in diffs) / (n - 1) if n > 1 else float("inf")
    se = math.sqrt(var / n)
    base.best, base.cost, base.se = cands[best], round(cost, 2), round(se, 2)
    base.flagged = n >= settings.flag_worlds and _clears(diffs, settings)
    if base.flagged:
        base.text = explain(view, kind, played, cands[best], cost)
        base.marked = explain(view, kind, played, cands[best], cost, lambda x: f"{{t:{x}}}")
    return base


def candidates(
    view: SeatView, picked: set[int], played: dict[str, Any], suggestion: dict[str, Any]
) -> tuple[str, list[dict[str, Any]]]:
    """(kind, candidates): the player's action first, then the engine's, without repeats
    (two copies of a face are the same choice)."""
    ctx = make_ctx(view, picked, HARD)
    out: list[dict[str, Any]] = [played]
    if view.phase == "take":
        kind = "take"
        more = [suggestion]
        if not (view.variant.family.first_turn_restricted and view.seats[ctx.seat].first_turn):
            more += take_candidates(ctx, suggestion, HARD) or []
            more.append({"do": "draw"})
    else:
        do = played["do"]
        kind = "open" if do == "lay" and not ctx.opened else do
        more = [suggestion]
        if len(view.hand) > 2:
            first = suggestion if suggestion["do"] == "discard" else played
            if first["do"] == "discard":
                more += discard_candidates(ctx, first, HARD, HARD.rollout_candidates)
        if kind == "open" and suggestion["do"] != "discard":
            more.append(NormalBot(HARD, "coach").discard(ctx))
    keys = {_key(played)}
    for a in more:
        if _key(a) not in keys:
            keys.add(_key(a))
            out.append(a)
    return kind, out


def _key(action: Mapping[str, Any]) -> str:
    """An action with its tile ids written as faces."""

    def faces(x: Any, tiles: bool) -> Any:
        if isinstance(x, dict):
            return {k: faces(v, k in ("tile", "tiles", "melds")) for k, v in sorted(x.items())}
        if isinstance(x, list):
            return [faces(v, tiles) for v in x]
        if tiles and isinstance(x, int) and not isinstance(x, bool):
            return face_of(x)
        return x

    return json.dumps(faces(dict(action), False), sort_keys=True)


def value(
    view: SeatView,
    picked: set[int],
    cands: Sequence[dict[str, Any]],
    judge_bot: HardBot,
    clock: Clock,
    settings: CoachSettings,
    seed: str,
    trace: list[dict[str, Any]] | None = None,
) -> list[list[float]]:
    """Each candidate's play-out values on the same sampled deals, until the budget is
    spent (at least ``min_worlds`` deals). A candidate the engine refuses on a deal gets
    no value there, so it is never the best.

    ``trace``: receives ``{"seed", "cands", "table", "spent"}``: each sampled deal's
    values by candidate (``None`` where the engine refused one) and the deal count at
    which the budget ran out (``None``: it never did), so that a stricter flag rule can
    be applied to the same play-outs afterwards (bench/coach.py)."""
    seat = view.seat if view.seat is not None else 0
    rng = random.Random(seed)
    params = judge_bot.policy_params
    horizon = HARD.rollout_horizon
    values: list[list[float]] = [[] for _ in cands]
    table: list[list[float | None]] = []
    spent: int | None = None
    start = clock()
    for n in range(settings.max_worlds):
        if n >= settings.min_worlds and clock() - start >= settings.budget:
            spent = n if spent is None else spent
            if n >= settings.flag_worlds or not _in_sight(values, settings):
                break
        world = f"{rng.random():.17f}"
        row: list[float | None] = []
        for k, action in enumerate(cands):
            state = sample_world(view, picked, random.Random(world))
            try:
                state.apply(seat, action)
            except RuleError:
                if k == 0:
                    return []  # the player's own move: not judged on this view
                row.append(None)
                continue
            v = play_out(
                state, seat, lambda s: NormalBot(params, s), world, horizon, judge_bot.judge
            )
            values[k].append(v)
            row.append(v)
        table.append(row)
    if trace is not None:
        trace.append({"seed": seed, "cands": list(cands), "table": table, "spent": spent})
    return values


def _clears(diffs: Sequence[float], settings: CoachSettings) -> bool:
    """Whether paired differences (best - played) clear the flag's bar: a mean of at
    least ``min_cost`` and more than ``z`` standard errors above 0."""
    n = len(diffs)
    if n < 2:
        return False
    mean = sum(diffs) / n
    se = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (n - 1) / n)
    return mean >= settings.min_cost and mean - settings.z * se > 0


def _in_sight(values: Sequence[Sequence[float]], settings: CoachSettings) -> bool:
    """Whether the best candidate so far clears the bar against the played one (then the
    coach samples on to ``flag_worlds`` deals before it says so)."""
    n = len(values[0])
    full = [k for k in range(1, len(values)) if len(values[k]) == n]
    if n < 2 or not full:
        return False
    best = max(full, key=lambda k: sum(values[k]))
    return _clears([a - b for a, b in zip(values[best], values[0], strict=True)], settings)


# ------------------------------------------------------------------ words

_EN = {
    "draw": "drawing from the stock",
    "discard": "discarding {t}",
    "take_row": "taking the row from {t} ({n})",
    "take_discard": "taking the discard {t}",
    "joker_button": "pressing the joker button",
    "lay": "laying {m}",
    "layoff": "laying off {t}",
    "buy_joker": "buying back the joker with {t}",
}
_RO = {
    "draw": "tragerea din pachet",
    "discard": "aruncarea lui {t}",
    "take_row": "luarea rândului de la {t} ({n})",
    "take_discard": "luarea piesei aruncate {t}",
    "joker_button": "apăsarea butonului de joker",
    "lay": "așezarea {m}",
    "layoff": "lipirea lui {t}",
    "buy_joker": "răscumpărarea jokerului cu {t}",
}


def count(n: int, lang: str, one: str, many: str) -> str:
    """``n`` things in words, by the language's plural rules (those of ``Intl.PluralRules``,
    as the page's own words): English 1 tile, 2 tiles; Romanian 1 piesă, 2 piese, 20 de
    piese (a number ending in 20 to 99 or 00 takes "de").

    >>> count(1, "en", "tile", "tiles"), count(3, "en", "tile", "tiles")
    ('1 tile', '3 tiles')
    >>> [count(n, "ro", "piesă", "piese") for n in (1, 2, 19, 20, 101, 119, 120)]
    ['1 piesă', '2 piese', '19 piese', '20 de piese', '101 piese', '119 piese', '120 de piese']
    """
    if n == 1:
        return f"{n} {one}"
    if lang != "ro" or n == 0 or 1 <= n % 100 <= 19:
        return f"{n} {many}"
    return f"{n} de {many}"


def say(
    view: SeatView, action: Mapping[str, Any], lang: str, tile: Callable[[int], str] | None = None
) -> str:
    """An action in words (``en`` or ``ro``), tiles by their faces (``tile``: how a tile
    id is written instead)."""
    notation: FaceNotation = view.variant.family.notation
    name = tile or (lambda x: notation.format(face_of(x)))
    words = _RO if lang == "ro" else _EN
    do = str(action.get("do"))
    fmt = words.get(do, do)
    t = ""
    n = ""
    if "tile" in action:
        t = name(int(action["tile"]))
    elif do == "take_discard" and view.row:
        t = name(view.row[-1])
    if do == "take_row":
        i = int(action["index"]) - view.row_offset
        if 0 <= i < len(view.row):
            t = name(view.row[i])
            n = count(
                len(view.row) - i,
                lang,
                *(("piesă", "piese") if lang == "ro" else ("tile", "tiles")),
            )
    melds = []
    for m in action.get("melds", []) or []:
        tiles = m["tiles"] if isinstance(m, dict) else m
        melds.append("[" + " ".join(name(int(x)) for x in tiles) + "]")
    return fmt.format(t=t, n=n, m=" ".join(melds))


def explain(
    view: SeatView,
    kind: str,
    played: Mapping[str, Any],
    best: Mapping[str, Any],
    cost: float,
    tile: Callable[[int], str] | None = None,
) -> dict[str, str]:
    """The flag in a sentence, English and Romanian (``tile``: how a tile id is written;
    by default its face)."""
    pts = max(1, round(cost))
    stock = view.stock_count
    en_played, en_best = say(view, played, "en", tile), say(view, best, "en", tile)
    ro_played, ro_best = say(view, played, "ro", tile), say(view, best, "ro", tile)
    en = (
        f"{en_played[0].upper()}{en_played[1:]} cost about {count(pts, 'en', 'point', 'points')}"
        f": {en_best} was better (the stock had {count(stock, 'en', 'tile', 'tiles')} left)."
    )
    ro = (
        f"{ro_played[0].upper()}{ro_played[1:]} a costat cam "
        f"{count(pts, 'ro', 'punct', 'puncte')}: era mai bine {ro_best} "
        f"(mai {'era' if stock == 1 else 'erau'} {count(stock, 'ro', 'piesă', 'piese')} în pachet)."
    )
    return {"en": en, "ro": ro}


# ------------------------------------------------------------------ JSON in and out


def review_json(
    round_json: str, seat: int, clock: Clock, budget: float | None = None
) -> Iterator[str]:
    """:func:`review` for a round given as JSON (``variant``, ``players``, ``deal``,
    ``options``, ``log``: a finished round of the practice match or a server round record),
    each decision as a JSON object (for the browser's worker)."""
    data = json.loads(round_json)
    deal = Deal.from_dict(data["deal"])
    options = RoundOptions.from_dict(data.get("options") or {})
    settings = CoachSettings() if budget is None else CoachSettings(budget=budget)
    for d in review(
        str(data["variant"]),
        int(data["players"]),
        deal,
        options,
        [(int(s), a) for s, a in data["log"]],
        seat,
        clock,
        settings,
    ):
        yield json.dumps(d.to_dict())


# ------------------------------------------------------------------ the hint

_WHY_EN = {
    "draw": "nothing in the row is worth more to this hand than a tile from the stock",
    "take": "it makes {m} with your tiles",
    "open": "you are ready to open",
    "lay": "these melds are ready",
    "layoff": "{t} fits a meld on the table",
    "buy_joker": "the joker is worth more to you than {t}",
    "discard": "{t} is the tile your melds need least",
    "joker_button": "a joker now is worth the credit",
}
_WHY_RO = {
    "draw": "nimic din rând nu valorează mai mult pentru mâna ta decât o piesă din pachet",
    "take": "formează {m} cu piesele tale",
    "open": "ești gata să deschizi",
    "lay": "aceste formații sunt gata",
    "layoff": "{t} se potrivește la o formație de pe masă",
    "buy_joker": "jokerul valorează mai mult pentru tine decât {t}",
    "discard": "{t} este piesa de care formațiile tale au cea mai mică nevoie",
    "joker_button": "un joker acum merită creditul",
}


def hint(view: SeatView, seed: str = "hint") -> dict[str, Any]:
    """What the hard level would do now at ``view`` (the seat's turn) and why, in words:
    ``{"action", "text": {"en", "ro"}, "marked": {"en", "ro"}}`` (``marked``: tiles as
    ``{t:ID}``). The why: the melds a take makes, the opening it lays or, not opened yet,
    the one it sees in the hand, a lay-off, the discard. Only the view is read."""
    if view.seat is None or view.over or view.turn != view.seat:
        raise ValueError("not_your_turn: a hint is for the seat's own turn")
    action = HardBot(HARD, seed).act(view)
    do = action["do"]
    opened = view.seats[view.seat].opened
    why = {"take_row": "take", "take_discard": "take", "lay": "lay" if opened else "open"}.get(
        do, do
    )
    sees: list[list[int]] = []
    if not opened and do in ("draw", "discard"):
        ctx = make_ctx(view, None, HARD)
        plan = best_plan(ctx, list(view.hand), node_limit=HARD.node_limit)
        if plan is not None:
            sees = [list(t) for _, t in plan.ids.melds]
    notation = view.variant.family.notation
    out: dict[str, Any] = {"action": action, "text": {}, "marked": {}}
    names: list[tuple[str, Callable[[int], str]]] = [
        ("text", lambda x: notation.format(face_of(x))),
        ("marked", lambda x: f"{{t:{x}}}"),
    ]
    for key, name in names:

        def melds(groups: list[Any], name: Callable[[int], str] = name) -> str:
            return " ".join(
                "["
                + " ".join(name(int(x)) for x in (g["tiles"] if isinstance(g, dict) else g))
                + "]"
                for g in groups
            )

        m = melds(action.get("melds") or [])
        t = name(int(action["tile"])) if "tile" in action else ""
        if do == "take_discard" and view.row:
            t = name(view.row[-1])
        for lang, why_words, seen in (
            ("en", _WHY_EN, "the opening it sees: {m}"),
            ("ro", _WHY_RO, "deschiderea pe care o vede: {m}"),
        ):
            what = say(view, action, lang, name)
            reason = why_words.get(why, "")
            if why == "take" and not m:
                reason = ""
            reason = reason.format(m=m, t=t)
            if sees:
                reason = (
                    f"{reason}; {seen.format(m=melds(sees))}"
                    if reason
                    else seen.format(m=melds(sees))
                )
            what = what[0].upper() + what[1:]
            out[key][lang] = f"{what}: {reason}." if reason else f"{what}."
    return out


def hint_json(view_json: str) -> str:
    """:func:`hint` for a seat's view given as JSON (the practice table's view)."""
    data = json.loads(view_json)
    known = set(SeatView.__dataclass_fields__)
    view = SeatView.from_dict({k: v for k, v in data.items() if k in known})
    return json.dumps(hint(view))
