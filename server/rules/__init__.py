"""Pure rule engines for the Remi family (RULES.md): standard library only, no I/O.

The public API::

    state = new_round("remi45", players=4, seed=7)      # seeded deal (A.2)
    event = state.apply(seat, {"do": "draw"})           # raises RuleError, changes nothing
    view = view_for(state, seat)                        # what that seat may see (§D)
    state.result                                        # scores once over (A.16 / B.11-12)
"""

from server.rules.actions import Action, parse_action
from server.rules.errors import ErrorCode, RuleError
from server.rules.match import EndCondition, Match
from server.rules.state import Deal, Event, RoundOptions, RoundState, new_round, replay
from server.rules.variants import VARIANTS, RoundResult, Variant, get_variant
from server.rules.views import SeatView, spectator_view, view_for

__all__ = [
    "VARIANTS",
    "Action",
    "Deal",
    "EndCondition",
    "ErrorCode",
    "Event",
    "Match",
    "RoundOptions",
    "RoundResult",
    "RoundState",
    "RuleError",
    "SeatView",
    "Variant",
    "get_variant",
    "new_round",
    "parse_action",
    "replay",
    "spectator_view",
    "view_for",
]
