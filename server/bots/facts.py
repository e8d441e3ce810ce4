"""The variant facts the bots play by, read once from the rules' catalogue.

The bots never ask which family or variant they play: they ask the facts
below, which come from :func:`server.rules.catalogue.variant_facts` (the same
record a client reads) and the variant's own scoring facts (RULES.md A.16,
B.11, B.12).

>>> f = facts_of(get_variant("remi45"))
>>> f.laid_credits, f.row_break, f.atu, f.top_rank, f.doubles, f.unopened_score
(True, True, True, 14, False, -100)
>>> g = facts_of(get_variant("remi101"))
>>> g.laid_credits, g.take_layoff, g.joker_layoff, g.top_rank, g.doubles, g.unopened_score
(False, True, True, 13, True, -202)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from server.rules.catalogue import variant_facts
from server.rules.variants import B_WIN, Variant, get_variant


@dataclass(frozen=True)
class Facts:
    """What a bot needs to know of a variant's rules."""

    laid_credits: bool
    """Laid tiles score for the seat that laid them (A.7, A.16: laid − hand); otherwise
    only the tiles left in hand count, as penalties (B.12)."""
    unopened_score: int
    """The round total of a seat that never opened (A.16: −100; B.12: −202)."""
    win_bonus: int
    """The closer's bonus when the round ends by a seat going out and only penalties
    count (B.11: 101); 0 where laid tiles score (the variant's ``out_bonus`` then)."""
    atu: bool
    """An atu is turned up and may be laid (A.3, A.12)."""
    row_break: bool
    """Takes break the row at any visible depth, the taken tile going into a new meld
    (A.9); otherwise only the last discard is taken (B.4)."""
    take_layoff: bool
    """A taken discard may go to a lay-off once the taker has opened (B.4)."""
    joker_layoff: bool
    """A joker may be laid off alone onto a meld (B.3; never in family A, A.10)."""
    doubles: bool
    """Doubles are melds (B.6): an opening on doubles, later doubles (B.7)."""
    ace_high: bool
    """The ace may follow the king in a run (A.5)."""
    top_rank: int
    """The highest rank a run may reach: 14 when the ace follows the king, else 13."""
    first_turn_restricted: bool
    """The first turn only draws (A.4)."""
    joker_button: bool
    """The joker button may exist (B.9, a room option)."""


@lru_cache(maxsize=16)
def _facts(variant_id: str) -> Facts:
    variant = get_variant(variant_id)
    cat = variant_facts(variant)
    family = variant.family
    return Facts(
        laid_credits=family.scores_laid,
        unopened_score=family.unopened_score,
        win_bonus=0 if family.scores_laid else B_WIN,
        atu=bool(cat["atu"]),
        row_break=bool(cat["row_break"]),
        take_layoff="take_discard" in cat["take_actions"],
        joker_layoff=bool(cat["joker_layoff"]),
        doubles="double" in cat["meld_kinds"],
        ace_high=bool(cat["ace_high"]),
        top_rank=variant.meld_rules.top_rank,
        first_turn_restricted=bool(cat["first_turn_restricted"]),
        joker_button=bool(cat["joker_button"]),
    )


def facts_of(variant: Variant) -> Facts:
    """The facts of ``variant`` (one object per variant, built on first use)."""
    return _facts(variant.id)
