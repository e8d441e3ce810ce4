"""The server's typed errors: one base, one code enum, beside the rules' own.

An illegal move is the rules' :class:`~server.rules.errors.RuleError` (RULES.md §C).
Everything else the server refuses — a malformed frame, a room operation, an HTTP
request — raises :class:`ServerError` with a :class:`Code` and a message a person
can read. Nothing here knows about HTTP: the HTTP edge (server/api/errors.py) picks
the status for each code, and the socket sends the code in an ``error`` frame.

>>> err = ServerError(Code.SEAT_TAKEN, "seat 1 is taken")
>>> err.code.value, str(err), Code.SEAT_TAKEN.describe()
('seat_taken', 'seat_taken: seat 1 is taken', 'The seat already has a player.')
"""

from __future__ import annotations

from enum import StrEnum

from server.rules.errors import ErrorCode


class Code(StrEnum):
    """Every code the server answers with beside RULES.md §C's."""

    # the room socket (docs/protocol.md)
    BAD_MESSAGE = "bad_message"
    STALE_VERSION = "stale_version"
    SEQ_REUSED = "seq_reused"
    NOT_SEATED = "not_seated"
    ROOM_CLOSED = "room_closed"
    OWNER_GONE = "owner_gone"
    RATE_LIMITED = "rate_limited"
    NOT_AUTHENTICATED = "not_authenticated"
    ROOM_NOT_FOUND = "room_not_found"
    INTERNAL_ERROR = "internal_error"
    PLAYED_ELSEWHERE = "played_elsewhere"
    SESSION_REVOKED = "session_revoked"
    ORIGIN_REFUSED = "origin_refused"
    REACTIONS_LIMITED = "reactions_limited"
    DATABASE_UNAVAILABLE = "database_unavailable"
    BUSY = "busy"
    ROOM_UNREACHABLE = "room_unreachable"
    # rooms and players (the HTTP API)
    INVALID_REQUEST = "invalid_request"
    INVALID_TOKEN = "invalid_token"
    PLAYER_NOT_FOUND = "player_not_found"
    SESSION_NOT_FOUND = "session_not_found"
    INVITE_NOT_FOUND = "invite_not_found"
    INVALID_SEAT = "invalid_seat"
    SEAT_TAKEN = "seat_taken"
    ROOM_FULL = "room_full"
    ROOM_NOT_WAITING = "room_not_waiting"
    NOT_OWNER = "not_owner"
    NO_PLAYERS = "no_players"
    SEATS_EMPTY = "seats_empty"
    ROUND_NOT_FOUND = "round_not_found"
    ROUND_NOT_FINISHED = "round_not_finished"
    MATCH_NOT_OVER = "match_not_over"
    # accounts and the balance (server/accounts/credentials.py, server/economy/ledger.py)
    USERNAME_TAKEN = "username_taken"
    ALREADY_CLAIMED = "already_claimed"
    BAD_CREDENTIALS = "bad_credentials"
    INSUFFICIENT_BALANCE = "insufficient_balance"
    BALANCE_TOO_LOW = "balance_too_low"
    NO_JOKER_CREDIT = "no_joker_credit"
    # tournaments (server/tournaments)
    TOURNAMENT_NOT_FOUND = "tournament_not_found"
    REGISTRATION_CLOSED = "registration_closed"
    TOURNAMENT_FULL = "tournament_full"
    # any HTTP request (server/api/limits.py)
    BODY_TOO_LARGE = "body_too_large"
    TOO_MANY_REQUESTS = "too_many_requests"

    def describe(self) -> str:
        """What the code means (docs/protocol.md's table)."""
        return _MEANINGS[self]


_MEANINGS: dict[Code, str] = {
    Code.BAD_MESSAGE: "The frame is not JSON, not a known message, or a field is invalid.",
    Code.STALE_VERSION: "`base_version` is not the room's current version; re-decide and "
    "resend with a new seq.",
    Code.SEQ_REUSED: "This seq was already used by this player for a different message.",
    Code.NOT_SEATED: "Only a seated player may do this (spectators watch).",
    Code.ROOM_CLOSED: "The room is not playing (waiting, between rounds or finished).",
    Code.OWNER_GONE: "The waiting room closed: its owner was gone for REMI_OWNER_GONE_SECONDS "
    "and only the owner can start it; the connection is closed with 4410.",
    Code.RATE_LIMITED: "Too many messages; the connection is closed with 1008.",
    Code.NOT_AUTHENTICATED: "No valid token (cookie or bearer).",
    Code.ROOM_NOT_FOUND: "No such room, or a private room without membership or ?code=.",
    Code.INTERNAL_ERROR: "The server could not store the move; nothing changed.",
    Code.PLAYED_ELSEWHERE: "The seat is now played from another device or tab (its `hello` "
    "named another `device`); the connection is closed with 4409. Reconnect to take it back.",
    Code.SESSION_REVOKED: "This connection's token was revoked (signed out on this device or "
    "everywhere); the connection is closed with 4403. Forget the token.",
    Code.ORIGIN_REFUSED: "The page that opened the socket, or that sent a state-changing "
    "request with the cookie, is from another site: neither this server's own address nor one "
    "of REMI_ALLOWED_ORIGINS; a socket is closed with 4003, a request refused with 403.",
    Code.REACTIONS_LIMITED: "The seat sent reactions too quickly; this one was not shown "
    "(a few in a short time are allowed, see REMI_REACTIONS_PER_MINUTE).",
    Code.DATABASE_UNAVAILABLE: "The database does not answer: the move (or rack layout) "
    "was not played. Send it again after `retry_after_ms` (with a back-off); every move "
    "already acknowledged is kept. An HTTP request answered with it (503, `Retry-After`) "
    "may be sent again after that many seconds.",
    Code.BUSY: "The server is catching up (it is checking that its rooms are still its own; "
    "the database answers): the move (or rack layout) was not played. Send it again after "
    "`retry_after_ms` (with a back-off).",
    Code.ROOM_UNREACHABLE: "The room is played on another server node and the link to it "
    "(Redis) is down: the room is paused for this connection until the link returns, then "
    "the connection is closed with 1012 and the client reconnects.",
    Code.INVALID_REQUEST: "A field of the request is missing or invalid.",
    Code.INVALID_TOKEN: "The token is not valid.",
    Code.PLAYER_NOT_FOUND: "No such player.",
    Code.SESSION_NOT_FOUND: "The player has no session with this id.",
    Code.INVITE_NOT_FOUND: "No room has this invite code.",
    Code.INVALID_SEAT: "The room has no such seat.",
    Code.SEAT_TAKEN: "The seat already has a player.",
    Code.ROOM_FULL: "Every seat of the room is taken.",
    Code.ROOM_NOT_WAITING: "Seats change only while the room waits for its players.",
    Code.NOT_OWNER: "Only the room's owner may do this.",
    Code.NO_PLAYERS: "Nobody is seated.",
    Code.SEATS_EMPTY: "Some seats are empty and the room does not fill them with bots.",
    Code.ROUND_NOT_FOUND: "The room has no round with this number.",
    Code.ROUND_NOT_FINISHED: "The round is still being played: its replay, its scenario file "
    "and its seed wait for its end.",
    Code.MATCH_NOT_OVER: "The match is still being played: it is played again once it ends.",
    Code.USERNAME_TAKEN: "Another account has this username (usernames ignore case).",
    Code.ALREADY_CLAIMED: "This player has an account already: sign in, or change the password.",
    Code.BAD_CREDENTIALS: "The username or the password is wrong (which one is not told).",
    Code.INSUFFICIENT_BALANCE: "The balance does not cover the purchase; nothing changed.",
    Code.BALANCE_TOO_LOW: "The room asks for a higher balance to sit down (`min_balance`).",
    Code.NO_JOKER_CREDIT: "The joker button needs a joker credit in the player's account "
    "(B.9); buy one or wait for the daily grant.",
    Code.TOURNAMENT_NOT_FOUND: "No such tournament.",
    Code.REGISTRATION_CLOSED: "The tournament has started (or ended): registration, and "
    "withdrawing with the fee back, are over.",
    Code.TOURNAMENT_FULL: "Every place of the tournament is taken.",
    Code.BODY_TOO_LARGE: "The request body is larger than the server accepts; it was not read.",
    Code.TOO_MANY_REQUESTS: "Too many requests that create something, from this address or "
    "this player; retry after `Retry-After` seconds.",
}


class ServerError(Exception):
    """A refused request or message: a :class:`Code` (or, for a malformed action, the
    rules' ``bad_action``) and a human ``message``; ``seq`` is the refused socket
    message's, when it had one. Nothing changed."""

    def __init__(self, code: Code | ErrorCode, message: str, seq: int | None = None) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.message = message
        self.seq = seq


class Throttled(ServerError):
    """A request refused by a rate limit: ``retry_after`` is how many whole seconds to
    wait before the same request can succeed (the HTTP edge sends it as ``Retry-After``)."""

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(Code.TOO_MANY_REQUESTS, message)
        self.retry_after = retry_after
