"""What goes into a room core and what comes out of it, as small frozen dataclasses.

**Inputs** (:data:`Command`): a connection's validated message (``Hello``, ``Act``,
``SetRack``, ``Ask``, ``Leave``, ``NextRound``, ``React``), a connection arriving or
gone (``Attach``, ``Gone``), the lobby's news (``SeatsChanged``, ``Started``), revoked
sessions (``Revoked``), a bot's decision (``BotDecision``, the answer to a
``BotRequest``); on restore, a :class:`Restored` room; the time, given with every step
(:class:`~server.rooms.core.clock.Now`). The server's actor also queues its own
``Start`` and ``Stop`` in its inbox (the core never sees them).

**Effects** (:data:`Effect`), each one yielded by the core's step and answered by its
shell before the step goes on: records to persist, in order (``ReserveVersions``,
``BeginRound``, ``AppendAction``, ``FinishRound``, ``RecordMatch``, ``SaveRack``), what
only the shell can read (``ReadCredits``, ``NewSeed``, ``FindLogged``).

**Output** (:data:`Output`), gathered in the core's outbox in order: frames for
connections (``Send``, ``Close``), requests (``BotRequest``: run a bot's search and
hand its ``BotDecision`` back as an input, whenever it is ready: the room answers
everything else meanwhile) and notes for the shell (``Rejected``, ``Acked``,
``Played``, ``MatchEnded``, ``ClockRestarted``). The shell hands the outbox over
before it performs each effect: a frame never waits for a record it does not depend
on, and never goes out before the records it does depend on.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from server.errors import Code
from server.rooms.core.bots import Bot
from server.rooms.core.config import RoomConfig
from server.rules.actions import Action
from server.rules.views import SeatView

# --------------------------------------------------------------------------- inputs


@dataclass(frozen=True, slots=True)
class Attach:
    """A connection of the room's: its number, player and session."""

    conn: int
    player_id: str
    session_id: str | None = None


@dataclass(frozen=True, slots=True)
class Hello:
    conn: int
    last_version: int | None = None
    patches: bool = False
    device: str | None = None


@dataclass(frozen=True, slots=True)
class Act:
    """A move: the engine's action (validated once, by the protocol or the practice's
    shell), decided on ``base_version``."""

    conn: int
    seq: int
    base_version: int
    action: Action


@dataclass(frozen=True, slots=True)
class SetRack:
    conn: int
    seq: int
    layout: tuple[int | None, ...]


@dataclass(frozen=True, slots=True)
class Ask:
    """A ``query``: ``formations`` (with ``taken``), ``row_preview`` (with ``index``) or
    ``arrange``."""

    conn: int
    seq: int
    query: str
    formations: tuple[tuple[int, ...], ...] = ()
    taken: int | None = None
    index: int | None = None


@dataclass(frozen=True, slots=True)
class Leave:
    conn: int


@dataclass(frozen=True, slots=True)
class NextRound:
    conn: int


@dataclass(frozen=True, slots=True)
class React:
    conn: int
    reaction: str


@dataclass(frozen=True, slots=True)
class Gone:
    conn: int


@dataclass(frozen=True, slots=True)
class Seat:
    """A seat as the lobby or the database has it."""

    seat: int
    player_id: str | None
    name: str | None = None
    bot_level: str | None = None
    rack: tuple[tuple[int | None, ...] | None, int] = (None, 0)
    """The saved layout and the round it was saved in."""


@dataclass(frozen=True, slots=True)
class SeatsChanged:
    """The lobby changed the waiting room's seats."""

    seats: tuple[Seat, ...]


@dataclass(frozen=True, slots=True)
class Started:
    """The lobby started the waiting room: its seats and the moves already logged."""

    seats: tuple[Seat, ...]
    logged: Mapping[int, frozenset[int]] = field(default_factory=dict)
    config: RoomConfig | None = None
    """The room's settings as it starts (None: as they were)."""


@dataclass(frozen=True, slots=True)
class Revoked:
    sessions: frozenset[str]


@dataclass(frozen=True, slots=True)
class Closed:
    """The lobby closed the waiting room (``code`` says why): every connection is told
    and closed."""

    code: Code
    message: str


@dataclass(frozen=True, slots=True)
class BotDecision:
    """A :class:`BotRequest`'s answer: the bot's ``choice`` (None: it failed) and
    ``searched``, the bot to keep (a worker process sends back its copy). Played only
    while the room is still at ``version`` with the seat's bot to move; else dropped."""

    seat: int
    version: int
    bot: Bot
    choice: Mapping[str, Any] | None
    searched: Bot


@dataclass(frozen=True, slots=True)
class Stop:
    """The actor is to stop (the shell's own command: the core never sees it)."""


@dataclass(frozen=True, slots=True)
class Start:
    """The lobby started the waiting room (the shell's own command: the server's actor
    reads the room's seats and settings, then hands the core :class:`Started`)."""


Command = (
    Attach
    | Hello
    | Act
    | SetRack
    | Ask
    | Leave
    | NextRound
    | React
    | Gone
    | SeatsChanged
    | Started
    | Revoked
    | Closed
    | BotDecision
)
"""What the core's :meth:`~server.rooms.core.room.RoomCore.handle` takes."""


@dataclass(frozen=True, slots=True)
class StoredRound:
    """The round in play as stored: its number, seed, options (with the deal) and log."""

    number: int
    variant: str
    seed: str
    first: int
    options: Mapping[str, Any]
    actions: tuple[tuple[int, Mapping[str, Any]], ...]
    turn_left: float | None
    """Seconds its turn has left (the shell works it out from the stored times; None:
    turns are not timed)."""
    key: object = None
    """The shell's key of the round (its database id; None: its number)."""


@dataclass(frozen=True, slots=True)
class Restored:
    """A room as its records hold it, to take up (a restart, another node's room)."""

    status: str
    version: int
    seats: tuple[Seat, ...]
    history: tuple[tuple[int, ...], ...] = ()
    """Each finished round's additions per seat."""
    current: StoredRound | None = None
    logged: Mapping[int, frozenset[int]] = field(default_factory=dict)
    """Seat -> the client seqs of its logged moves."""
    late: float = 0.0
    """Seconds beyond the reconnect grace before a player not here is away."""
    recent: tuple[tuple[int, int | None, bytes, bytes | None], ...] = ()
    """Events kept for replays (the offline practice keeps them; a server starts empty)."""


# --------------------------------------------------------------------------- effects


@dataclass(frozen=True, slots=True)
class ReserveVersions:
    """Versions up to ``upto`` are reserved (a restart never reuses one a client holds)."""

    upto: int


@dataclass(frozen=True, slots=True)
class BeginRound:
    """A round dealt; answered with the shell's key of the round."""

    number: int
    variant: str
    seed: str
    first: int
    stored: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class AppendAction:
    """A move applied; answered ``ok``, ``no_joker_credit`` or ``failed``.

    ``spend``: the seat's player whose joker credit the move spends (B.9)."""

    round_key: object
    index: int
    seat: int
    action: Mapping[str, Any]
    client_seq: int | None
    source: str
    version: int
    spend: str | None
    round_number: int


@dataclass(frozen=True, slots=True)
class FinishRound:
    round_key: object
    result: Mapping[str, Any]
    scores: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class RecordMatch:
    totals: tuple[int, ...]
    winners: tuple[int, ...]
    rounds: int


@dataclass(frozen=True, slots=True)
class SaveRack:
    seat: int
    round: int
    layout: tuple[int | None, ...]


@dataclass(frozen=True, slots=True)
class ReadCredits:
    """Each player's joker credits (a new round's button, B.9): a dict by player id."""

    player_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class NewSeed:
    """A new round's deal seed."""

    number: int


@dataclass(frozen=True, slots=True)
class LoggedMove:
    """A player's move as logged: the engine's action and the room version after it
    (None on rows logged before the log kept versions)."""

    action: Mapping[str, Any]
    version: int | None


@dataclass(frozen=True, slots=True)
class FindLogged:
    """The seat's logged move with this client seq: a :class:`LoggedMove`, None, or
    :data:`READ_FAILED`."""

    seat: int
    seq: int


READ_FAILED = "read_failed"


Record = ReserveVersions | BeginRound | AppendAction | FinishRound | RecordMatch | SaveRack
Effect = Record | ReadCredits | NewSeed | FindLogged

# --------------------------------------------------------------------------- output


@dataclass(frozen=True, slots=True)
class Send:
    conn: int
    frame: str


@dataclass(frozen=True, slots=True)
class Close:
    conn: int
    code: int


@dataclass(frozen=True, slots=True)
class Rejected:
    """A move refused with ``code`` (metrics)."""

    code: str


@dataclass(frozen=True, slots=True)
class Acked:
    """A player's move is stored and acknowledged (metrics)."""


@dataclass(frozen=True, slots=True)
class Played:
    """A move was shown; ``source``: player, bot or timeout (metrics)."""

    source: str


@dataclass(frozen=True, slots=True)
class MatchEnded:
    reason: str


@dataclass(frozen=True, slots=True)
class BotRequest:
    """Run ``bot`` on the seat's view (the room at ``version``), then hand the core a
    :class:`BotDecision` with the same seat, version and bot."""

    seat: int
    version: int
    bot: Bot
    view: SeatView


@dataclass(frozen=True, slots=True)
class ClockRestarted:
    """The running turn's clock started again with its whole time within the turn (its
    player came back), which no logged move records: the shell records the clock, so
    that a restart gives the turn the time it has."""


Output = Send | Close | Rejected | Acked | Played | MatchEnded | BotRequest | ClockRestarted
