"""Account routes: claim an account for a guest, sign in with it on any device, change
the password; the balance ("cont"), its ledger, buying joker credits (docs/economy.md).

* ``GET /api/account``: the player's username (null for a guest), balance and joker
  credits (the day's grant is given on the first read of a UTC day).
* ``POST /api/account``: the guest claims a username and a password (the same player:
  seats, history and balance stay).
* ``POST /api/account/login``: sign in on this device with a username and password: a
  new session of the player; its token comes back once and as the cookie.
* ``POST /api/account/password``: change the password (the current one is asked); the
  player's other devices are signed out.
* ``GET /api/account/ledger``: the ledger, newest first, paginated by ``before``.
* ``POST /api/account/jokers``: buy joker credits with the balance.

Sign-ins are limited per address and per username, claims and password changes per
address and per player (``REMI_LOGIN_LIMIT_*``, ``REMI_CREATE_LIMIT_PER_IDENTITY``).
No password reaches a log: the bodies are not logged, the errors never echo them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query, Request, Response, status
from pydantic import BaseModel, Field, StrictInt, field_validator

from server.accounts.credentials import PASSWORD_MAX, check_password, clean_username
from server.api.cookies import device_label, set_cookie
from server.api.deps import CurrentAuth, CurrentPlayer, ServicesDep
from server.api.limits import client_address
from server.api.players import PlayerOut
from server.economy.ledger import Entry
from server.errors import Code, ServerError
from server.ids import ID_PATTERN
from server.rooms.live import LiveRooms

router = APIRouter(prefix="/api/account", tags=["account"])


class Credentials(BaseModel):
    """A username and a password."""

    username: str = Field(min_length=1, max_length=64)
    password: str = Field(min_length=1, max_length=PASSWORD_MAX)


class Claim(Credentials):
    """The username and password a guest claims."""

    @field_validator("username")
    @classmethod
    def _username(cls, value: str) -> str:
        return clean_username(value)

    @field_validator("password")
    @classmethod
    def _password(cls, value: str) -> str:
        return check_password(value)


class PasswordChange(BaseModel):
    """The current password and the new one."""

    current_password: str = Field(min_length=1, max_length=PASSWORD_MAX)
    new_password: str = Field(min_length=1, max_length=PASSWORD_MAX)

    @field_validator("new_password")
    @classmethod
    def _password(cls, value: str) -> str:
        return check_password(value)


class AccountOut(BaseModel):
    """The player's account."""

    player: PlayerOut
    username: str | None = Field(description="Null for a guest (no password yet).")
    balance: int = Field(description='The "cont": the sum of the ledger\'s amounts.')
    joker_credits: int = Field(description="Credits of the 101 joker button (B.9).")
    joker_credit_price: int = Field(description="Balance points one joker credit costs.")


class SignedIn(BaseModel):
    """The player signed in on this device, and this device's token: shown this once."""

    player: PlayerOut
    username: str
    token: str = Field(description="Bearer token; also set as an HttpOnly cookie.")


LEDGER_ID_MAX = 2**31 - 1
"""The largest ledger id (the column is a 32-bit integer): a larger cursor is a 422."""


class EntryOut(BaseModel):
    """One change of the balance or of the joker credits."""

    id: int
    reason: str = Field(
        description="start, daily_grant, round, joker_spent or joker_bought (docs/economy.md)"
    )
    amount: int
    credits: int
    room_id: str | None
    round_number: int | None
    seat: int | None
    created_at: datetime

    @classmethod
    def of(cls, e: Entry) -> EntryOut:
        return cls(
            id=e.id,
            reason=e.reason,
            amount=e.amount,
            credits=e.credits,
            room_id=e.room_id,
            round_number=e.round_number,
            seat=e.seat,
            created_at=e.created_at,
        )


class LedgerPage(BaseModel):
    """A page of the ledger, newest first; ``next_before`` asks for the next one."""

    entries: list[EntryOut]
    next_before: int | None


class JokerPurchase(BaseModel):
    """How many joker credits to buy; ``request_id`` makes a retry buy nothing more."""

    count: StrictInt = Field(ge=1, le=100, description="A JSON integer (not a string).")
    request_id: str = Field(min_length=1, max_length=64, pattern=ID_PATTERN)


async def _account(services: ServicesDep, player: PlayerOut, username: str | None) -> AccountOut:
    acc = await services.economy.account(player.id)
    return AccountOut(
        player=player,
        username=username,
        balance=acc.balance,
        joker_credits=acc.joker_credits,
        joker_credit_price=services.settings.joker_credit_price,
    )


@router.get("")
async def get_account(player: CurrentPlayer, services: ServicesDep) -> AccountOut:
    """The player's account; the day's grant is given on the day's first read."""
    await services.economy.daily_grant(player.id)
    username = await services.accounts.username_of(player.id)
    return await _account(services, PlayerOut.of(player), username)


@router.post("", status_code=status.HTTP_201_CREATED)
async def claim_account(
    body: Claim, request: Request, player: CurrentPlayer, services: ServicesDep
) -> AccountOut:
    """Claim an account for this guest: a username (3 to 32 of ``a-z 0-9 . - _``, case
    ignored) and a password (at least 8 characters). 409 ``username_taken`` or
    ``already_claimed``; 429 past the sign-in limits."""
    await services.limits.login(client_address(request), None)
    await services.limits.per_player("claim", player.id)
    username = await services.accounts.claim(player, body.username, body.password)
    return await _account(services, PlayerOut.of(player), username)


@router.post("/login", status_code=status.HTTP_201_CREATED)
async def login(
    body: Credentials, request: Request, response: Response, services: ServicesDep
) -> SignedIn:
    """Sign in on this device: a new session of the account's player (the device's
    guest, if it had one, is left). 401 ``bad_credentials`` (which of the two is wrong is
    not told); 429 ``too_many_requests`` past the limits per address or per username."""
    await services.limits.login(client_address(request), body.username)
    player = await services.accounts.check(body.username, body.password)
    token = await services.identity.open_session(player.id, device_label(request))
    set_cookie(response, services.settings, token)
    return SignedIn(
        player=PlayerOut.of(player), username=clean_username(body.username), token=token
    )


@router.post("/password", status_code=status.HTTP_204_NO_CONTENT)
async def change_password(
    body: PasswordChange, request: Request, auth: CurrentAuth, services: ServicesDep
) -> None:
    """Change the password; every other session of the player is signed out (this one
    stays). 401 ``bad_credentials`` when the current password is wrong."""
    await services.limits.login(client_address(request), None)
    await services.limits.per_player("password", auth.player.id)
    await services.accounts.change_password(
        auth.player.id, body.current_password, body.new_password
    )
    revoked = await services.identity.revoke_others(auth.player.id, auth.session_id)
    live = request.app.state.live
    assert isinstance(live, LiveRooms)
    await live.sessions_revoked(revoked)


@router.get("/ledger")
async def ledger(
    player: CurrentPlayer,
    services: ServicesDep,
    before: Annotated[
        int | None,
        Query(ge=1, le=LEDGER_ID_MAX, description="Entries with ids below this one."),
    ] = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
) -> LedgerPage:
    """The player's ledger, newest first: ``limit`` entries with ids below ``before``."""
    rows = await services.economy.ledger(player.id, before, limit)
    nxt = rows[-1].id if len(rows) == limit else None
    return LedgerPage(entries=[EntryOut.of(e) for e in rows], next_before=nxt)


@router.post("/jokers")
async def buy_jokers(
    body: JokerPurchase, player: CurrentPlayer, services: ServicesDep
) -> AccountOut:
    """Buy joker credits at ``joker_credit_price`` each; 409 ``insufficient_balance``."""
    if services.settings.joker_credit_price <= 0:
        raise ServerError(Code.INVALID_REQUEST, "joker credits are not sold on this server")
    await services.economy.buy_jokers(player.id, body.count, body.request_id)
    username = await services.accounts.username_of(player.id)
    return await _account(services, PlayerOut.of(player), username)
