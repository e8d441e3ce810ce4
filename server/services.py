"""The app's service container: built once per app from the settings, then injected."""

from __future__ import annotations

from dataclasses import dataclass, field

from redis.asyncio import Redis

from server.accounts.credentials import Accounts
from server.accounts.identity import IdentityService
from server.bus import Bus, InProcessBus
from server.economy.leaderboards import Leaderboards
from server.economy.ledger import Economy
from server.economy.profiles import Profiles
from server.limits import CreateLimits
from server.metrics import Metrics
from server.rooms.lobby.quickstart import QuickStart
from server.rooms.lobby.service import RoomEvents, RoomService
from server.settings import Settings
from server.storage.database import Database
from server.storage.gamelog import GameLog
from server.tournaments.service import Tournaments


@dataclass
class Services:
    """Everything a request handler or a room actor needs, created once per app."""

    settings: Settings
    db: Database
    metrics: Metrics
    identity: IdentityService
    rooms: RoomService
    gamelog: GameLog
    limits: CreateLimits
    economy: Economy
    accounts: Accounts
    tournaments: Tournaments
    quick: QuickStart
    leaderboards: Leaderboards
    profiles: Profiles
    redis: Redis | None = field(default=None)
    bus: Bus = field(default_factory=InProcessBus)  # Redis pub/sub once Redis is configured


def build_services(settings: Settings, events: RoomEvents | None = None) -> Services:
    """Create the container; connects to nothing yet (see the app's lifespan)."""
    db = Database(settings)
    economy = Economy(db, settings)
    rooms = RoomService(db, settings, events)
    return Services(
        settings=settings,
        db=db,
        metrics=Metrics(),
        identity=IdentityService(db, settings.session_touch_seconds, economy),
        rooms=rooms,
        gamelog=GameLog(db),
        limits=CreateLimits(settings),
        economy=economy,
        accounts=Accounts(db),
        tournaments=Tournaments(db, settings),
        quick=QuickStart(db, settings, rooms),
        leaderboards=Leaderboards(db, settings),
        profiles=Profiles(db),
    )
