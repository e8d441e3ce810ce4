"""A room's connections as an audience: what each one last received, the replay buffer,
and the frame that brings each one up to date.

Every connection gets its own seat's view, made by the engine (``every_view``: each
seat's ``view_for`` and the spectator's view, made at once; RULES.md §D): nothing else
decides what a seat sees. A connection whose ``hello`` asked for ``patches`` gets,
instead of the whole view at every event, the top-level keys of its view whose value
differs from the view it last received (``{}`` when none does), and ``seats`` and
``scores`` only when their JSON differs from what it last got (null otherwise). It gets
the whole view, with ``seats`` and ``scores``, when it holds none, holds another
round's, or holds a view this audience no longer keeps.

A move's work follows what it changed: the audience keeps, per seat, the last view it
sent (:class:`Sent`, one for all the connections of that seat); a connection records
only the version of the view it holds. The keys that changed are found once per seat by
comparing values (no encoding), and each distinct frame is encoded once, by the room's
one encoder, with only those keys.

The last events are kept (``Stored``: plain JSON) so that a reconnecting client
gets what it missed (:meth:`Audience.replay`), or else a snapshot.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from server.rooms.core import frames
from server.rooms.core.frames import Encode, dumps
from server.rooms.core.peers import Peer
from server.rules import Event, RoundState, SeatView
from server.rules.views import every_view

Stored = tuple[int, int | None, bytes, bytes | None]
"""A buffered event: version, acting seat, the public copy's JSON, the acting seat's
copy's JSON (None when it sees the public one)."""


@dataclass(frozen=True, slots=True)
class Change:
    """A room event: what every seat sees (``public``), and the acting ``seat``'s own
    copy when it sees more (``own``: a drawn tile, RULES.md §D)."""

    public: dict[str, Any]
    seat: int | None = None
    own: dict[str, Any] | None = None

    @classmethod
    def of_move(cls, event: Event, by: str) -> Change:
        """An engine event, filtered per seat by the engine (§D); ``by`` who played it."""
        public = {**event.for_seat(None), "by": by}
        own = {**event.for_seat(event.seat), "by": by} if event.private else None
        return cls(public, event.seat, own)

    def for_seat(self, seat: int | None) -> dict[str, Any]:
        if self.own is not None and seat is not None and seat == self.seat:
            return self.own
        return self.public


@dataclass(slots=True)
class Table:
    """What every connection sees alike at a version, besides the view; the JSON of
    ``seats`` and ``scores`` is made once, and kept by the next version's table while
    they do not change (:func:`next_table`: most moves change neither)."""

    seats: list[dict[str, Any]]
    scores: dict[str, Any]
    deadline: float | None
    encode: Encode = dumps
    seats_key: tuple[Any, ...] = ()
    scores_key: tuple[Any, ...] = ()
    _seats_json: bytes = b""
    _scores_json: bytes = b""

    @property
    def seats_json(self) -> bytes:
        if not self._seats_json:
            self._seats_json = self.encode(self.seats)
        return self._seats_json

    @property
    def scores_json(self) -> bytes:
        if not self._scores_json:
            self._scores_json = self.encode(self.scores)
        return self._scores_json


def next_table(
    previous: Table | None,
    slots: Sequence[frames.ShownSeat],
    totals: Sequence[int],
    default_level: str,
    rounds: Sequence[Sequence[int]],
    over: bool,
    winners: Sequence[int],
    deadline: float | None,
    encode: Encode = dumps,
) -> Table:
    """The table at a new version (:func:`frames.seat_states`, :func:`frames.scores`),
    with ``previous``'s ``seats`` and ``scores`` and their JSON where they are unchanged."""
    seats_key = (
        tuple((s.seat, s.player_id, s.name, s.bot_level, s.away, s.unresponsive) for s in slots),
        tuple(totals),
        default_level,
    )
    scores_key = (tuple(map(tuple, rounds)), tuple(totals), over, tuple(winners) if over else ())
    same_seats = previous is not None and previous.seats_key == seats_key
    same_scores = previous is not None and previous.scores_key == scores_key
    table = Table(
        previous.seats
        if same_seats and previous
        else frames.seat_states(slots, totals, default_level),
        previous.scores
        if same_scores and previous
        else frames.scores(rounds, totals, over, winners),
        deadline,
        encode,
        seats_key,
        scores_key,
    )
    if same_seats and previous:
        table._seats_json = previous._seats_json
    if same_scores and previous:
        table._scores_json = previous._scores_json
    return table


def view_fields(view: SeatView, shared: dict[int, Any]) -> dict[str, Any]:
    """A view (the engine's) as a dict of its top-level keys, ``seats`` as dicts.

    ``SeatView.to_dict`` deep-copies every value; the engine built them fresh for this
    version, so they are taken as they are. ``shared`` holds the ``seats`` dicts made
    for a list of the views of the same version (:func:`every_view` shares it)."""
    out = dict(vars(view))
    seats = shared.get(id(view.seats))
    if seats is None:
        seats = shared[id(view.seats)] = [dict(vars(info)) for info in view.seats]
    out["seats"] = seats
    return out


@dataclass
class Shown:
    """The room at one version, as the audience shows it; each seat's view is made
    once, when a connection of that seat first needs it."""

    version: int
    state: RoundState | None
    round_key: object  # the round the views are of (a new key: views are sent whole)
    table: Table
    server_time: float
    encode: Encode = dumps
    _views: tuple[SeatView, list[SeatView]] | None = None
    _fields: dict[int | None, dict[str, Any]] = field(default_factory=dict)
    _shared: dict[int, Any] = field(default_factory=dict)  # made once for every view

    def view(self, seat: int | None) -> dict[str, Any] | None:
        """The seat's view (None: no round); the spectator's for ``seat`` None."""
        state = self.state
        if state is None:
            return None
        fields = self._fields.get(seat)
        if fields is None:
            if self._views is None:
                self._views = every_view(state)
            watcher, seats = self._views
            view = watcher if seat is None else seats[seat]
            fields = self._fields[seat] = view_fields(view, self._shared)
        return fields

    @property
    def seats_json(self) -> bytes:
        return self.table.seats_json

    @property
    def scores_json(self) -> bytes:
        return self.table.scores_json


@dataclass(slots=True)
class Seen:
    """What one connection holds: the version of its view (None: none), the JSON of
    ``seats`` and ``scores``."""

    patching: bool
    version: int | None = None
    seats: bytes | None = None
    scores: bytes | None = None


@dataclass(frozen=True, slots=True)
class Sent:
    """The last view the audience sent a seat's connections (or the spectators', seat
    None), at ``version`` of the round ``round_key``: what their next patch is made from."""

    round_key: object
    version: int
    fields: dict[str, Any]


Send = Callable[[Peer, str], None]
"""Hands a frame to the shell for one connection (after what it was given before)."""


class Audience:
    """The connections of one room (see the module docstring)."""

    def __init__(
        self, replay_events: int, recent_events: int = 0, *, send: Send, encode: Encode = dumps
    ) -> None:
        self.buffer: deque[Stored] = deque(maxlen=replay_events)
        self.recent_events = recent_events
        self.seen: dict[Peer, Seen] = {}
        self.sent: dict[int | None, Sent] = {}
        self.send = send
        self.encode = encode

    def hello(self, peer: Peer, patching: bool) -> None:
        """The connection said ``hello``: it holds nothing yet."""
        self.seen[peer] = Seen(patching)

    def forget(self, peer: Peer) -> None:
        self.seen.pop(peer, None)

    def record(self, version: int, change: Change) -> None:
        """Keep the event at ``version`` for replays."""
        encode = self.encode
        own = encode(change.own) if change.own is not None else None
        self.buffer.append((version, change.seat, encode(change.public), own))

    def publish(self, change: Change, peers: Iterable[Peer], shown: Shown) -> None:
        """Send the event at ``shown.version`` to every connection that said ``hello``.

        Connections that are to get the same text get one frame, made once: the same
        seat's whole view, or the same event copy with the same patch (a patch of
        values every seat sees alike is one frame for all of them)."""
        made: dict[tuple[Any, ...], str] = {}
        changed: dict[int | None, tuple[tuple[str, int], ...] | None] = {}  # once a seat
        for peer in peers:
            seen = self.seen.get(peer)
            if seen is None or not peer.ready or peer.closed:
                continue
            seat = peer.seat
            copy = change.for_seat(seat)
            if not seen.patching:
                key: tuple[Any, ...] = (seat,)
                frame = made.get(key)
                if frame is None:
                    frame = made[key] = self._whole(shown, copy, seat, False)
            else:
                key = self._difference(seen, seat, shown, copy, changed)
                frame = made.get(key)
                if frame is None:
                    frame = made[key] = self._patch(shown, copy, seat, key)
                self._hold(seen, seat, shown)
            self.send(peer, frame)

    def replay(self, peer: Peer, last_version: int | None, shown: Shown) -> bool:
        """Send the events after ``last_version`` (the last one with the whole state);
        False when they are not all held (the caller sends a snapshot)."""
        buffer = self.buffer
        if last_version is None or last_version > shown.version:
            return False
        if last_version < shown.version and not (buffer and buffer[0][0] <= last_version + 1):
            return False
        seat = peer.seat
        missed = [stored for stored in buffer if stored[0] > last_version]
        for i, (version, actor, public, own) in enumerate(missed):
            change = json.loads(own if own is not None and seat == actor else public)
            if i < len(missed) - 1:
                self.send(
                    peer, frames.replayed(version, change, shown.server_time, encode=shown.encode)
                )
            else:
                self.send(peer, self._whole(shown, change, seat, True, self._patching(peer)))
        self._caught_up(peer, shown)
        return True

    def snapshot(
        self,
        peer: Peer,
        shown: Shown,
        room: dict[str, Any],
        rack: list[int | None] | None,
        last_seq: int | None,
    ) -> None:
        """Send the whole state the connection may see."""
        table = shown.table
        self.send(
            peer,
            frames.snapshot(
                shown.version,
                room,
                peer.player_id,
                peer.seat,
                seats=table.seats,
                view=shown.view(peer.seat),
                rack=rack,
                deadline=table.deadline,
                server_time=shown.server_time,
                scores=table.scores,
                last_seq=last_seq,
                recent=self.recent(peer.seat),
                encode=shown.encode,
            ),
        )
        self._caught_up(peer, shown)

    def recent(self, seat: int | None) -> list[tuple[int, dict[str, Any]]]:
        """The current round's last buffered events as ``seat`` sees them (the copy the
        engine made for it, as in a replay), oldest first: at most ``recent_events``,
        none before the round's ``round_start``."""
        out: list[tuple[int, dict[str, Any]]] = []
        for version, actor, public, own in reversed(self.buffer):
            if len(out) >= self.recent_events:
                break
            change = json.loads(own if own is not None and seat == actor else public)
            out.append((version, change))
            if change.get("do") == "round_start":
                break
        out.reverse()
        return out

    # ------------------------------------------------------------------ internals

    def _patching(self, peer: Peer) -> bool:
        seen = self.seen.get(peer)
        return seen is not None and seen.patching

    def _caught_up(self, peer: Peer, shown: Shown) -> None:
        """The connection holds the state at ``shown`` now."""
        seen = self.seen.get(peer)
        if seen is not None and seen.patching:
            self._hold(seen, peer.seat, shown)

    def _hold(self, seen: Seen, seat: int | None, shown: Shown) -> None:
        """The connection holds the room at ``shown`` now; the audience keeps the view
        it holds (once per seat and version)."""
        seen.seats = shown.seats_json
        seen.scores = shown.scores_json
        fields = shown.view(seat)
        if fields is None:
            seen.version = None
            return
        seen.version = shown.version
        sent = self.sent.get(seat)
        if sent is None or sent.version != shown.version or sent.round_key != shown.round_key:
            self.sent[seat] = Sent(shown.round_key, shown.version, fields)

    def _difference(
        self,
        seen: Seen,
        seat: int | None,
        shown: Shown,
        copy: dict[str, Any],
        changed: dict[int | None, tuple[tuple[str, int], ...] | None],
    ) -> tuple[Any, ...]:
        """What a patch connection is to get, as the key of its frame: ``("whole", seat)``
        when it holds no view of this round, or one the audience no longer keeps (the
        whole view, ``seats`` and ``scores``); else the event copy, the changed keys with
        their values' identities (none when no round), whether ``seats`` and ``scores``
        come. The changed keys are found once per seat (kept in ``changed``), by value."""
        fields = shown.view(seat)
        seats, scores = seen.seats != shown.seats_json, seen.scores != shown.scores_json
        if fields is None:
            return (id(copy), (), seats, scores)
        sent = self.sent.get(seat)
        if (
            seen.version is None
            or sent is None
            or sent.version != seen.version
            or sent.round_key != shown.round_key
        ):
            return ("whole", seat, id(copy))
        if seat in changed:
            patch = changed[seat]
        else:
            keys = _changed_keys(sent.fields, fields)
            # Values are told apart by identity: two seats whose changed values are the
            # same objects (a value every seat sees alike) share one frame.
            patch = changed[seat] = (
                None if keys is None else tuple((k, id(fields[k])) for k in keys)
            )
        if patch is None:
            return ("whole", seat, id(copy))
        return (id(copy), patch, seats, scores)

    @staticmethod
    def _whole(
        shown: Shown, change: dict[str, Any], seat: int | None, replay: bool, patching: bool = False
    ) -> str:
        table = shown.table
        return frames.event(
            shown.version,
            change,
            view=shown.view(seat),
            seats=table.seats,
            deadline=table.deadline,
            server_time=shown.server_time,
            scores=table.scores,
            replay=replay,
            patching=patching,
            encode=shown.encode,
        )

    @staticmethod
    def _patch(shown: Shown, change: dict[str, Any], seat: int | None, key: tuple[Any, ...]) -> str:
        table = shown.table
        view = shown.view(seat)
        if key[0] == "whole":
            return Audience._whole(shown, change, seat, False, patching=True)
        _, changed, seats, scores = key
        return frames.event(
            shown.version,
            change,
            view=None,
            patch=None if view is None else {k: view[k] for k, _ in changed},
            seats=table.seats if seats else None,
            deadline=table.deadline,
            server_time=shown.server_time,
            scores=table.scores if scores else None,
            patching=True,
            encode=shown.encode,
        )


def _changed_keys(held: dict[str, Any], fields: dict[str, Any]) -> tuple[str, ...] | None:
    """The top-level keys whose value differs between two views of a seat (None: their
    keys differ, so a patch cannot say it). Equal values are equal in JSON: a view holds
    JSON values only, and a key keeps its type (a count stays an int, a flag a bool)."""
    if held.keys() != fields.keys():
        return None
    return tuple(k for k, v in fields.items() if v is not held[k] and v != held[k])
