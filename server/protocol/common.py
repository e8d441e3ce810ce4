"""What the client's and the server's messages share: the base model and the field types."""

from __future__ import annotations

from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field

from server.rules.actions import MAX_ID

MAX_SEQ = 2**53 - 1
"""Largest ``seq`` (a JavaScript safe integer)."""
MAX_RACK_SLOTS = 64
"""Most slots a rack layout may have."""

TileId = Annotated[int, Field(strict=True, ge=0, le=MAX_ID, description="A tile id (RULES.md §1).")]
Seq = Annotated[
    int,
    Field(
        strict=True,
        ge=0,
        le=MAX_SEQ,
        description="Client sequence number, increasing per player; a resend reuses it.",
    ),
]
Version = Annotated[int, Field(strict=True, ge=0, description="A room version.")]
Index = Annotated[int, Field(strict=True, ge=0, le=MAX_ID)]

Reaction = Literal[
    "hello",
    "good_luck",
    "well_played",
    "thanks",
    "sorry",
    "oops",
    "hurry",
    "wow",
    "thumbs_up",
    "laugh",
    "surprised",
    "sad",
]
"""The quick reactions a seat may show (no free text); the client words and draws them."""
REACTIONS: tuple[str, ...] = get_args(Reaction)


class Model(BaseModel):
    """A protocol message or part of one: no unknown field, immutable."""

    model_config = ConfigDict(extra="forbid", frozen=True)
