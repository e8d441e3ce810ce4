"""A room's settings, validated with pydantic (RULES.md §0 for the variants).

>>> RoomSettings(variant="remi101", seats=3, end={"kind": "target", "points": 500}).end
TargetEnd(kind='target', points=500)
>>> from pydantic import ValidationError
>>> try:
...     RoomSettings(variant="remi101", short_game=True)
... except ValidationError as e:
...     print(e.errors()[0]["msg"])
Value error, short_game needs exactly 2 seats
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictInt,
    field_validator,
    model_validator,
)

from server.rules.catalogue import MAX_PLAYERS, MIN_PLAYERS
from server.rules.variants import VARIANTS, get_variant
from server.settings import TurnSeconds

BotLevel = Literal["easy", "normal", "hard"]
RoomKind = Literal["practice", "normal", "quick", "arena", "tournament"]
"""practice: no settlement; normal and quick (quick start): each finished round settles
into the seats' balances; arena and tournament: standings only (docs/economy.md)."""
ASKED_KINDS: tuple[str, ...] = ("practice", "normal", "arena")
"""The kinds a player's request may ask for; the server alone makes quick start rooms
(server/rooms/lobby/quickstart.py) and tournament tables (server/tournaments/)."""


def kind_of(settings: dict[str, object] | None) -> str:
    """A room's kind from its stored settings (rooms stored before kinds were normal).

    >>> kind_of({"kind": "practice"}), kind_of({}), kind_of(None)
    ('practice', 'normal', 'normal')
    """
    kind = (settings or {}).get("kind", "normal")
    return kind if isinstance(kind, str) and kind in get_args(RoomKind) else "normal"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EndlessEnd(_Strict):
    """The match goes on until the players leave."""

    kind: Literal["endless"] = "endless"


class RoundsEnd(_Strict):
    """The match ends after a fixed number of rounds."""

    kind: Literal["rounds"]
    rounds: StrictInt = Field(ge=1, le=1000, description="Number of rounds to play.")


class TargetEnd(_Strict):
    """The match ends after the round in which some total reaches ``points``."""

    kind: Literal["target"]
    points: StrictInt = Field(ge=1, le=1_000_000, description="Total that ends the match.")


EndCondition = Annotated[EndlessEnd | RoundsEnd | TargetEnd, Field(discriminator="kind")]


class RoomSettings(_Strict):
    """Everything chosen when a room is created."""

    variant: str = Field(
        default="remi",
        description="Rules variant (RULES.md §0): an id of GET /api/variants.",
        json_schema_extra={"enum": list(VARIANTS)},
    )
    seats: StrictInt = Field(
        default=4, ge=MIN_PLAYERS, le=MAX_PLAYERS, description="Number of seats, 2 to 4."
    )
    short_game: bool = Field(
        default=False,
        description="One pack, hands of 10/11: only with 2 seats and a Remi/Etalat variant.",
    )
    end: EndCondition = Field(default_factory=EndlessEnd, description="When the match ends.")
    turn_seconds: TurnSeconds | None = Field(
        default=None, description="Seconds per turn; the server's default when omitted."
    )
    public: bool = Field(
        default=True, description="Listed in the lobby; a private room gets an invite code."
    )
    fill_with_bots: bool = Field(
        default=False, description="Seats still empty at the start are played by bots."
    )
    bot_level: BotLevel = Field(default="normal", description="Level of those bots.")
    row_depth: StrictInt | None = Field(
        default=None,
        ge=1,
        le=200,
        description="Family A: how deep into the discard row a seat may take; "
        "null = the whole row.",
    )
    joker_button: bool = Field(default=False, description="Remi 101 only: the joker button.")
    kind: RoomKind = Field(
        default="normal",
        description="practice (no settlement), normal or quick (each round settles into "
        "the seats' balances), arena or tournament (standings only): docs/economy.md.",
    )
    min_balance: StrictInt | None = Field(
        default=None,
        ge=0,
        le=1_000_000_000,
        description="Balance a player needs to sit down (null: none).",
    )
    stake: StrictInt | None = Field(
        default=None,
        ge=1,
        le=1_000_000_000,
        description="Arena only: each seat's stake, one of GET /api/arena's, taken from its "
        "player's balance into the pot when the match starts (docs/tournaments.md).",
    )
    payout: list[StrictInt] | None = Field(
        default=None,
        description="Arena only, set by the server: per cent of the pot for the 1st, 2nd, "
        "... place (REMI_ARENA_PAYOUT_3 / _4; 2 seats: the winner's).",
    )

    @field_validator("variant")
    @classmethod
    def _known_variant(cls, value: str) -> str:
        if value not in VARIANTS:
            raise ValueError(f"unknown variant {value!r}; one of {', '.join(VARIANTS)}")
        return value

    @model_validator(mode="after")
    def _check_combinations(self) -> RoomSettings:
        """Each option exists only where the catalogue's facts say so."""
        fam = get_variant(self.variant).family
        if self.short_game and self.seats != 2:
            raise ValueError("short_game needs exactly 2 seats")
        if self.short_game and not fam.has_short_game:
            raise ValueError(f"short_game does not exist in {self.variant} (§1)")
        if self.row_depth is not None and not fam.row_break:
            raise ValueError(f"row_depth does not apply to {self.variant} (A.9); leave it null")
        if self.joker_button and not fam.joker_button:
            raise ValueError(f"joker_button does not exist in {self.variant} (B.9)")
        if (self.kind == "arena") != (self.stake is not None):
            raise ValueError("an arena table, and only one, has a stake")
        if self.payout is not None and self.kind != "arena":
            raise ValueError("only an arena table has a payout table")
        if self.kind == "practice" and (self.public or self.min_balance is not None):
            raise ValueError(
                "a practice room is private and asks no balance: it settles "
                "nothing (public false, min_balance null)"
            )
        if self.kind == "arena" and self.fill_with_bots:
            raise ValueError(
                "an arena table is played by players who all pay the stake: no fill_with_bots"
            )
        return self

    @property
    def plays_to_the_end(self) -> bool:
        """A tournament's table is played to its end condition, bots playing for the
        players who are not there; any other room ends when no human is left (its
        standings then are the match's)."""
        return self.kind == "tournament"
