"""A tournament's changes, each one database transaction that is made once.

Seed 001: "În turnee, rezultatele rundelor contează numai pentru clasament, iar premiile
se acordă la final." The functions take a synchronous ``Connection`` inside the caller's
transaction (``run_sync``, as :mod:`server.economy.ledger`'s); each begins with a conditional
update of the tournament's row that only one transaction can make (PostgreSQL makes a
concurrent one wait for it, then finds the row changed; SQLite has one writer), and
keys that are unique back it up. So a change retried, or made by two servers at once,
is made once:

* :func:`open_tournament`: a tournament of a series (its ``key`` unique);
* :func:`register`, :func:`withdraw`: an entry, its fee taken from the balance (ledger
  ``fee:<tournament>:<player>:<n>``) or given back (``refund:...``), while registering;
* :func:`start`: at its start (a sit-and-go full, a scheduled one's time come) the first
  stage's tables, made as rooms already playing (a scheduled one with too few players is
  cancelled, its fees refunded);
* :func:`advance`: once every table of the stage being played has its match result, the
  next stage (``tournament_stages``' primary key: made once), or at the final table the
  prizes (ledger ``prize:<tournament>:<player>``) and the end.

The rooms they make are returned: the caller tells the live side once committed (a
server that stops before that restores them as every playing room, at its start).
"""

from __future__ import annotations

import logging
import random
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, cast

from sqlalchemy import Connection, Row, Table, func, insert, select, update

from server.accounts.identity import new_id
from server.economy.ledger import change, pay
from server.economy.payouts import split
from server.errors import Code, ServerError
from server.rooms.lobby.options import RoomSettings, RoundsEnd
from server.settings import TournamentSeries
from server.storage.models import (
    MatchResult,
    Room,
    Seat,
    Tournament,
    TournamentEntry,
    TournamentStage,
    TournamentTable,
)
from server.tournaments.plan import (
    TableResult,
    advance_per_table,
    advancing,
    is_final,
    places,
    seat_tables,
)

log = logging.getLogger(__name__)

_T = cast(Table, Tournament.__table__)
_ENTRIES = cast(Table, TournamentEntry.__table__)
_STAGES = cast(Table, TournamentStage.__table__)
_TABLES = cast(Table, TournamentTable.__table__)
_ROOMS = cast(Table, Room.__table__)
_SEATS = cast(Table, Seat.__table__)
_RESULTS = cast(Table, MatchResult.__table__)


def fee_key(tournament_id: str, player_id: str, n: int) -> str:
    """The ledger key of a player's ``n``-th entry fee to a tournament."""
    return f"fee:{tournament_id}:{player_id}:{n}"


def refund_key(tournament_id: str, player_id: str, n: int) -> str:
    """The ledger key of the ``n``-th entry fee given back."""
    return f"refund:{tournament_id}:{player_id}:{n}"


def prize_key(tournament_id: str, player_id: str) -> str:
    """The ledger key of a player's prize."""
    return f"prize:{tournament_id}:{player_id}"


def _row(conn: Connection, tournament_id: str) -> Row[Any]:
    row = conn.execute(select(_T).where(_T.c.id == tournament_id)).first()
    if row is None:
        raise ServerError(Code.TOURNAMENT_NOT_FOUND, f"no tournament {tournament_id!r}")
    return row


def _guard(conn: Connection, tournament_id: str, *where: Any, **values: Any) -> bool:
    """The tournament's row changed to ``values`` if it still is as ``where`` says: True
    for the one transaction that made the change."""
    done = conn.execute(update(_T).where(_T.c.id == tournament_id, *where).values(**values))
    return getattr(done, "rowcount", 0) == 1


# --- opening and registering -----------------------------------------------------


def open_tournament(
    conn: Connection,
    *,
    key: str,
    series: str | None,
    kind: str,
    table: RoomSettings,
    players: int,
    fee: int,
    prizes: Sequence[int],
    starts_at: datetime | None,
    now: datetime,
) -> str | None:
    """A new tournament open for registration; None when ``key`` is taken already."""
    if conn.execute(select(_T.c.id).where(_T.c.key == key)).first() is not None:
        return None
    tournament_id = new_id()
    conn.execute(
        insert(_T).values(
            id=tournament_id,
            key=key,
            series=series,
            kind=kind,
            status="registering",
            settings=table.model_dump(mode="json"),
            players=players,
            registered=0,
            fee=fee,
            prizes=list(prizes),
            pool=0,
            stage=0,
            starts_at=starts_at,
            created_at=now,
        )
    )
    log.info("tournament_opened", extra={"tournament_id": tournament_id, "key": key})
    return tournament_id


def register(conn: Connection, tournament_id: str, player_id: str, now: datetime) -> bool:
    """Register the player, their fee taken; False when registered already. Refused:
    ``registration_closed``, ``tournament_full``, ``insufficient_balance``."""
    t = _row(conn, tournament_id)
    entry = conn.execute(
        select(_ENTRIES).where(
            _ENTRIES.c.tournament_id == tournament_id, _ENTRIES.c.player_id == player_id
        )
    ).first()
    if entry is not None and entry.status == "registered":
        return False
    if t.status != "registering":
        raise ServerError(Code.REGISTRATION_CLOSED, f"the tournament is {t.status}")
    if not _guard(
        conn,
        tournament_id,
        _T.c.status == "registering",
        _T.c.registered < _T.c.players,
        registered=_T.c.registered + 1,
    ):
        raise ServerError(Code.TOURNAMENT_FULL, "every place of the tournament is taken")
    n = entry.registrations + 1 if entry is not None else 1
    if t.fee:
        pay(conn, player_id, fee_key(tournament_id, player_id, n), "tournament_fee", t.fee)
    if entry is None:
        conn.execute(
            insert(_ENTRIES).values(
                tournament_id=tournament_id,
                player_id=player_id,
                status="registered",
                registrations=n,
                registered_at=now,
            )
        )
    else:
        conn.execute(
            update(_ENTRIES)
            .where(_ENTRIES.c.tournament_id == tournament_id, _ENTRIES.c.player_id == player_id)
            .values(status="registered", registrations=n, registered_at=now)
        )
    log.info(
        "tournament_registered", extra={"tournament_id": tournament_id, "player_id": player_id}
    )
    return True


def withdraw(conn: Connection, tournament_id: str, player_id: str) -> bool:
    """Withdraw the player's entry, the fee given back; False when not registered.
    ``registration_closed`` once the tournament has started."""
    t = _row(conn, tournament_id)
    entry = conn.execute(
        select(_ENTRIES).where(
            _ENTRIES.c.tournament_id == tournament_id, _ENTRIES.c.player_id == player_id
        )
    ).first()
    if entry is None or entry.status != "registered":
        return False
    if not _guard(
        conn, tournament_id, _T.c.status == "registering", registered=_T.c.registered - 1
    ):
        raise ServerError(Code.REGISTRATION_CLOSED, f"the tournament is {t.status}")
    _refund(conn, tournament_id, player_id, entry.registrations, t.fee)
    conn.execute(
        update(_ENTRIES)
        .where(_ENTRIES.c.tournament_id == tournament_id, _ENTRIES.c.player_id == player_id)
        .values(status="withdrawn")
    )
    return True


def _refund(conn: Connection, tournament_id: str, player_id: str, n: int, fee: int) -> None:
    if fee:
        change(
            conn,
            player_id,
            refund_key(tournament_id, player_id, n),
            "tournament_refund",
            amount=fee,
        )


def _registered(conn: Connection, tournament_id: str) -> Sequence[Row[Any, Any]]:
    return conn.execute(
        select(_ENTRIES.c.player_id, _ENTRIES.c.registrations)
        .where(_ENTRIES.c.tournament_id == tournament_id, _ENTRIES.c.status == "registered")
        .order_by(_ENTRIES.c.registered_at, _ENTRIES.c.player_id)
    ).all()


def table_settings(spec: TournamentSeries) -> RoomSettings:
    """The settings of a series' tables: rooms of kind ``tournament`` (standings only),
    public (to watch), played to their rounds, bots filling the seats of no player."""
    return RoomSettings(
        variant=spec.variant,
        seats=spec.table_seats,
        end=RoundsEnd(kind="rounds", rounds=spec.rounds),
        turn_seconds=spec.turn_seconds,
        public=True,
        fill_with_bots=True,
        kind="tournament",
    )


def next_time(at: str, now: datetime) -> datetime:
    """The next ``HH:MM`` (UTC) after ``now``.

    >>> from datetime import UTC
    >>> next_time("19:00", datetime(2030, 1, 1, 18, 59, tzinfo=UTC)).isoformat()
    '2030-01-01T19:00:00+00:00'
    >>> next_time("19:00", datetime(2030, 1, 1, 19, 0, tzinfo=UTC)).isoformat()
    '2030-01-02T19:00:00+00:00'
    """
    hour, minute = (int(x) for x in at.split(":"))
    when = now.astimezone(UTC).replace(hour=hour, minute=minute, second=0, microsecond=0)
    return when if when > now else when + timedelta(days=1)


def open_series(
    conn: Connection, spec: TournamentSeries, prizes: Sequence[int], now: datetime
) -> str | None:
    """Open the series' next tournament if it has none open: a sit-and-go always has one
    open (numbered in its series), a scheduled one is opened for its next time. None when
    there is one already."""
    starts_at = None
    if spec.at is not None:
        starts_at = next_time(spec.at, now)
        key = f"{spec.series}#{starts_at:%Y-%m-%dT%H:%M}"
    else:
        open_one = conn.execute(
            select(_T.c.id).where(_T.c.series == spec.series, _T.c.status == "registering")
        ).first()
        if open_one is not None:
            return None
        made = conn.execute(
            select(func.count()).select_from(_T).where(_T.c.series == spec.series)
        ).scalar()
        key = f"{spec.series}#{int(made or 0) + 1}"
    return open_tournament(
        conn,
        key=key,
        series=spec.series,
        kind=spec.kind,
        table=table_settings(spec),
        players=spec.players,
        fee=spec.fee,
        prizes=prizes,
        starts_at=starts_at,
        now=now,
    )


# --- the stages --------------------------------------------------------------------


def is_due(t: Row[Any], now: datetime) -> bool:
    """Whether a tournament open for registration starts now: a sit-and-go once full, a
    scheduled one at its time."""
    if t.status != "registering":
        return False
    if t.kind == "sitngo":
        return bool(t.registered >= t.players)
    return t.starts_at is not None and t.starts_at <= now


def start(conn: Connection, tournament_id: str, now: datetime, min_players: int) -> list[str]:
    """Start the tournament if it is due (:func:`is_due`): its first stage's rooms (none:
    not due, started already, or cancelled for want of players)."""
    t = _row(conn, tournament_id)
    if not is_due(t, now):
        return []
    if not _guard(
        conn,
        tournament_id,
        _T.c.status == "registering",
        status="running",
        started_at=now,
        stage=1,
        pool=t.fee * t.registered,
    ):
        return []
    entries = _registered(conn, tournament_id)
    if len(entries) < min_players or not entries:
        for e in entries:
            _refund(conn, tournament_id, e.player_id, e.registrations, t.fee)
        conn.execute(
            update(_T)
            .where(_T.c.id == tournament_id)
            .values(status="cancelled", stage=0, pool=0, finished_at=now)
        )
        log.info("tournament_cancelled", extra={"tournament_id": tournament_id})
        return []
    players = [e.player_id for e in entries]
    random.Random(tournament_id).shuffle(players)  # the first seeding: drawn, reproducible
    log.info("tournament_started", extra={"tournament_id": tournament_id, "players": len(players)})
    return _make_stage(conn, t, 1, players, now)


def _make_stage(
    conn: Connection, t: Row[Any], number: int, players: list[str], now: datetime
) -> list[str]:
    """The stage's row, its tables and their rooms (playing: the live side deals)."""
    settings = RoomSettings.model_validate(t.settings)
    final = is_final(len(players), settings.seats)
    conn.execute(
        insert(_STAGES).values(
            tournament_id=t.id,
            number=number,
            final=final,
            advance=0 if final else advance_per_table(settings.seats),
            started_at=now,
        )
    )
    stored = settings.model_dump(mode="json")
    rooms = []
    for i, seating in enumerate(seat_tables(players, settings.seats)):
        room_id = new_id()
        owner = next(p for p in seating if p is not None)
        conn.execute(
            insert(_ROOMS).values(
                id=room_id,
                invite_code=None,
                owner_id=owner,
                public=True,
                settings=stored,
                status="playing",
                created_at=now,
                started_at=now,
                version=1,
            )
        )
        conn.execute(
            insert(_SEATS),
            [
                {
                    "room_id": room_id,
                    "seat": s,
                    "player_id": p,
                    "bot_level": None if p is not None else settings.bot_level,
                }
                for s, p in enumerate(seating)
            ],
        )
        conn.execute(
            insert(_TABLES).values(tournament_id=t.id, stage=number, number=i, room_id=room_id)
        )
        rooms.append(room_id)
    log.info(
        "tournament_stage",
        extra={"tournament_id": t.id, "stage": number, "tables": len(rooms), "final": final},
    )
    return rooms


def stage_results(conn: Connection, tournament_id: str, stage: int) -> list[TableResult] | None:
    """The stage's tables in order with their seating and match totals; None while one of
    them is being played."""
    tables = conn.execute(
        select(_TABLES.c.room_id, _RESULTS.c.totals)
        .select_from(_TABLES.outerjoin(_RESULTS, _RESULTS.c.room_id == _TABLES.c.room_id))
        .where(_TABLES.c.tournament_id == tournament_id, _TABLES.c.stage == stage)
        .order_by(_TABLES.c.number)
    ).all()
    if not tables or any(totals is None for _, totals in tables):
        return None
    seats = conn.execute(
        select(_SEATS.c.room_id, _SEATS.c.seat, _SEATS.c.player_id)
        .where(_SEATS.c.room_id.in_([room_id for room_id, _ in tables]))
        .order_by(_SEATS.c.room_id, _SEATS.c.seat)
    ).all()
    seating: dict[str, list[str | None]] = {}
    for room_id, _, player_id in seats:
        seating.setdefault(room_id, []).append(player_id)
    return [TableResult(seating[room_id], list(totals)) for room_id, totals in tables]


def advance(conn: Connection, tournament_id: str, now: datetime) -> list[str]:
    """Move a running tournament on once its stage's tables are all over: the next
    stage's rooms, or (after the final) the prizes and the end (no room)."""
    t = _row(conn, tournament_id)
    if t.status != "running" or t.stage < 1:
        return []
    stage = conn.execute(
        select(_STAGES).where(_STAGES.c.tournament_id == tournament_id, _STAGES.c.number == t.stage)
    ).first()
    results = stage_results(conn, tournament_id, t.stage)
    if stage is None or results is None:
        return []
    if stage.final:
        if not _guard(
            conn,
            tournament_id,
            _T.c.status == "running",
            _T.c.stage == t.stage,
            status="finished",
            finished_at=now,
        ):
            return []
        _close_stage(conn, tournament_id, t.stage, now)
        _pay_prizes(conn, t, results[0])
        return []
    if not _guard(
        conn,
        tournament_id,
        _T.c.status == "running",
        _T.c.stage == t.stage,
        stage=t.stage + 1,
    ):
        return []
    _close_stage(conn, tournament_id, t.stage, now)
    going = advancing(results, stage.advance)
    out = [p for r in results for p in r.seating if p is not None and p not in going]
    if out:
        conn.execute(
            update(_ENTRIES)
            .where(_ENTRIES.c.tournament_id == tournament_id, _ENTRIES.c.player_id.in_(out))
            .values(out_stage=t.stage)
        )
    return _make_stage(conn, t, t.stage + 1, going, now)


def _close_stage(conn: Connection, tournament_id: str, number: int, now: datetime) -> None:
    conn.execute(
        update(_STAGES)
        .where(_STAGES.c.tournament_id == tournament_id, _STAGES.c.number == number)
        .values(finished_at=now)
    )


def _pay_prizes(conn: Connection, t: Row[Any], final: TableResult) -> None:
    """The pool shared by the final table's standings (:func:`server.economy.payouts.split`:
    equal totals share; bots get nothing), each prize a ledger row; each finalist's
    place and prize on their entry."""
    eligible = [p is not None for p in final.seating]
    parts = split(t.pool, t.prizes, final.totals, eligible)
    place = places(final.totals, eligible)
    for seat, player_id in enumerate(final.seating):
        if player_id is None:
            continue
        if parts[seat]:
            change(
                conn,
                player_id,
                prize_key(t.id, player_id),
                "tournament_prize",
                amount=parts[seat],
            )
        conn.execute(
            update(_ENTRIES)
            .where(_ENTRIES.c.tournament_id == t.id, _ENTRIES.c.player_id == player_id)
            .values(place=place[seat], prize=parts[seat])
        )
    log.info("tournament_finished", extra={"tournament_id": t.id, "pool": t.pool, "prizes": parts})
