"""Quick start: ``POST /api/quickstart`` seats the player at a waiting
table of a variant and stake, or opens one that bots fill after a short wait
(server/rooms/lobby/quickstart.py)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field, StrictInt

from server.api.deps import ServicesDep
from server.api.limits import LimitedQuickStart
from server.ids import ID_PATTERN
from server.rooms.lobby.service import RoomView
from server.rules.variants import VARIANTS

router = APIRouter(prefix="/api", tags=["rooms"])


class QuickStartRequest(BaseModel):
    """Body of POST /api/quickstart."""

    variant: str = Field(
        description="A variant id of GET /api/variants.", json_schema_extra={"enum": list(VARIANTS)}
    )
    stake: StrictInt = Field(
        default=0,
        ge=0,
        le=1_000_000_000,
        description="The balance a table asks to sit down (its min_balance); 0: none.",
    )
    request_id: str | None = Field(
        default=None,
        min_length=1,
        max_length=64,
        pattern=ID_PATTERN,
        description="Chosen by the client once per press and sent again on a retry: the "
        "same request gives the same room (for REMI_QUICK_START_REQUEST_SECONDS), even "
        "after that room started.",
    )


@router.post("/quickstart")
async def quick_start(
    body: QuickStartRequest, player: LimitedQuickStart, services: ServicesDep
) -> RoomView:
    """Seat the player at a waiting normal or quick start room of this variant and stake,
    or open a quick start room; the same room again while the player waits in one. The
    room starts when full, or after ``REMI_QUICK_START_WAIT_SECONDS`` with bots in the
    empty seats; the same ``request_id`` again gives the same room. 409
    ``balance_too_low`` below the stake; 429 ``too_many_requests`` beyond the creation
    limits (it may open a room)."""
    return await services.quick.join(player, body.variant, body.stake, body.request_id)
