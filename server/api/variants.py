"""``GET /api/variants``: the rules' variant catalogue (server/rules/catalogue.py), in the
shape of :class:`server.protocol.catalogue.Catalogue`."""

from __future__ import annotations

from fastapi import APIRouter

from server.protocol.catalogue import Catalogue
from server.rules.catalogue import catalogue

router = APIRouter(prefix="/api/variants", tags=["variants"])


@router.get("")
async def variants() -> Catalogue:
    """The variant catalogue: what each variant is and which room options it has."""
    return Catalogue.model_validate({"variants": catalogue()})
