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

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from server.settings import TurnSeconds

Variant = Literal["remi", "remi45", "remi51", "etalat", "etalat51", "remi101", "remi101-rising"]
VARIANTS: tuple[Variant, ...] = (
    "remi",
    "remi45",
    "remi51",
    "etalat",
    "etalat51",
    "remi101",
    "remi101-rising",
)
FAMILY_A: frozenset[str] = frozenset({"remi", "remi45", "remi51", "etalat", "etalat51"})
FAMILY_B: frozenset[str] = frozenset({"remi101", "remi101-rising"})

BotLevel = Literal["easy", "normal", "hard"]


def family(variant: str) -> Literal["A", "B"]:
    """``"A"`` for Remi/Remi Etalat, ``"B"`` for Remi 101."""
    return "A" if variant in FAMILY_A else "B"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EndlessEnd(_Strict):
    """The match goes on until the players leave."""

    kind: Literal["endless"] = "endless"


class RoundsEnd(_Strict):
    """The match ends after a fixed number of rounds."""

    kind: Literal["rounds"]
    rounds: int = Field(ge=1, le=1000, description="Number of rounds to play.")


class TargetEnd(_Strict):
    """The match ends after the round in which some total reaches ``points``."""

    kind: Literal["target"]
    points: int = Field(ge=1, le=1_000_000, description="Total that ends the match.")


EndCondition = Annotated[EndlessEnd | RoundsEnd | TargetEnd, Field(discriminator="kind")]


class RoomSettings(_Strict):
    """Everything chosen when a room is created."""

    variant: Variant = Field(default="remi", description="Rules variant (RULES.md §0).")
    seats: int = Field(default=4, ge=2, le=4, description="Number of seats, 2 to 4.")
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
    row_depth: int | None = Field(
        default=None,
        ge=1,
        le=200,
        description="Family A: how deep into the discard row a seat may take; "
        "null = the whole row.",
    )
    joker_button: bool = Field(default=False, description="Remi 101 only: the joker button.")

    @model_validator(mode="after")
    def _check_combinations(self) -> RoomSettings:
        fam = family(self.variant)
        if self.short_game and self.seats != 2:
            raise ValueError("short_game needs exactly 2 seats")
        if self.short_game and fam != "A":
            raise ValueError(
                "short_game exists only for the Remi and Remi Etalat variants (family A)"
            )
        if self.row_depth is not None and fam != "A":
            raise ValueError(
                "row_depth applies only to the Remi and Remi Etalat variants (family A); "
                "leave it null"
            )
        if self.joker_button and fam != "B":
            raise ValueError("joker_button exists only in Remi 101 (remi101, remi101-rising)")
        return self

    @property
    def family(self) -> Literal["A", "B"]:
        """The variant's family."""
        return family(self.variant)
