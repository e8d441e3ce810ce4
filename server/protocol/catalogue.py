"""The variant catalogue's models: the body of ``GET /api/variants``
(:mod:`server.api.variants`), from the rules' catalogue (server/rules/catalogue.py).

The browser reads every variant fact from here (names, families, options, the
opening rule...), so it keeps no list of its own; the model documents the
catalogue's shape and refuses a field it does not name. Its TypeScript types are
generated with the socket's (:mod:`server.protocol.typescript`).
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Facts(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Players(_Facts):
    """How many seats a table of the variant may have (A.1, B.1)."""

    min: int
    max: int


class ShortGame(_Facts):
    """Family A's one-pack game (RULES.md §1): its seats, tiles and hand sizes."""

    players: int
    tiles: int
    hand: list[int] = Field(description="The first player's hand, then the others'.")


class Names(_Facts):
    """The variant's name as a player reads it, per language of the client."""

    ro: str
    en: str


class Opening(_Facts):
    """What an opening needs (A.8, B.6, B.8)."""

    threshold: int = Field(description="Points an opening must reach (0: none).")
    run_required: bool = Field(description="The opening must hold a run (A.8).")
    doubles: int | None = Field(description="Doubles that open instead (B.6); null: none.")
    rising: bool = Field(description="Each opening must beat the previous one (B.8).")


class VariantFacts(_Facts):
    """One variant of RULES.md §0 with every fact a client needs."""

    id: str
    title: str
    names: Names
    family: Literal["A", "B"]
    seed: str = Field(description="The seed text of RULES.md it comes from.")
    faces: Literal["cards", "numbers"] = Field(
        description="cards: ranks A..K in suits S H D C; numbers: 1..13 in colours R B K Y."
    )
    players: Players
    tiles: int = Field(description="Tiles in the full set (RULES.md §1).")
    first_joker_id: int = Field(description="Tile ids from this one on are jokers.")
    hand: list[int] = Field(description="The first player's hand size, then the others'.")
    short_game: ShortGame | None = Field(description="Null: the variant has no short game.")
    rack_rows: int = Field(description="Rows of the player's rack at the table.")
    min_meld: int = Field(description="Fewest tiles in a meld (a double has 2).")
    meld_kinds: list[Literal["set", "run", "double"]]
    meld_min: dict[str, int] = Field(
        description="Fewest tiles of each meld kind (B.3: runs and sets 3, doubles 2)."
    )
    max_jokers_per_meld: int | None = Field(description="Null: no limit but one natural tile.")
    ace_high: bool = Field(description="An ace may end a run high (Q K A).")
    atu: bool = Field(description="A tile is turned up beside the stock (A.12).")
    row_break: bool = Field(description="Deep takes from the discard row (A.9).")
    row_depth: bool = Field(description="The room option of the row's visible depth exists.")
    first_turn_restricted: bool = Field(description="Nothing reaches the table in a first turn.")
    take_actions: list[str]
    build_actions: list[str]
    joker_layoff: bool = Field(description="A joker may be laid off (B.3).")
    consumes_bought_jokers: bool = Field(description="A bought-back joker is consumed (A.11).")
    joker_discard_restricted: bool = Field(
        description="A joker is discarded only from a hand of jokers (etalat, A.14)."
    )
    joker_button: bool = Field(description="The room option of the joker button exists (B.9).")
    opening: Opening


class Catalogue(BaseModel):
    """Every variant, in the order of RULES.md §0."""

    variants: list[VariantFacts]
