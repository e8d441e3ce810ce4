"""The hard bot: the normal planner plus sampling of the tiles it cannot see.

(Placeholder: plays as the normal bot until the sampling is in.)
"""

from __future__ import annotations

from server.bots.bot import Bot


class HardBot(Bot):
    level = "hard"
