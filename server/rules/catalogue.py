"""The variant catalogue: every fact about a variant that a client or a room needs.

One JSON-ready record per variant, read from the rules' own registry
(:data:`~server.rules.variants.VARIANTS` and each variant's family), so that
neither the server's room options nor the browser keep a list or a rule of
their own. ``GET /api/variants`` serves :func:`catalogue`.

>>> remi45 = variant_facts(get_variant("remi45"))
>>> remi45["family"], remi45["opening"]["threshold"], remi45["row_break"], remi45["atu"]
('A', 45, True, True)
>>> b = variant_facts(get_variant("remi101-rising"))
>>> b["opening"]["rising"], b["opening"]["doubles"], b["take_actions"], b["min_meld"]
(True, 5, ['draw', 'take_discard', 'joker_button'], 2)
"""

from __future__ import annotations

from typing import Any

from server.rules.actions import ACTION_NAMES
from server.rules.tiles import FIRST_JOKER_ID
from server.rules.variants import VARIANTS, Variant, get_variant

MIN_PLAYERS = 2  # A.1, B.1
MAX_PLAYERS = 4

# The order actions are listed in (the engine's sets have none).
_ACTION_ORDER = tuple(ACTION_NAMES.values())

LANGUAGES = ("ro", "en")
"""The languages a variant's name is given in (the web client's, web/src/i18n.ts)."""

_NAMES: dict[str, tuple[str, str]] = {
    # id: (Romanian, English), as RULES.md §0 lists them
    "remi": ("Remi clasic", "Classic Remi"),
    "remi45": ("Remi 45", "Remi 45"),
    "remi51": ("Remi 51", "Remi 51"),
    "etalat": ("Remi Etalat", "Remi Etalat"),
    "etalat51": ("Remi Etalat 51", "Remi Etalat 51"),
    "remi101": ("Remi 101", "Remi 101"),
    "remi101-rising": ("Remi 101 cu barem crescător", "Remi 101, rising threshold"),
}


def _names(variant: Variant) -> dict[str, str]:
    """What a player reads for ``variant``, per language of :data:`LANGUAGES`."""
    return dict(zip(LANGUAGES, _NAMES[variant.id], strict=True))


def _action_names(kinds: frozenset[type]) -> list[str]:
    names = {ACTION_NAMES[k] for k in kinds}
    return [n for n in _ACTION_ORDER if n in names]


def variant_facts(variant: Variant) -> dict[str, Any]:
    """Everything a client needs to know of ``variant`` (RULES.md §0, §1, A, B)."""
    family = variant.family
    rules = variant.meld_rules
    big, small = family.hand_sizes(False)
    short: dict[str, Any] | None = None
    if family.has_short_game:
        s_big, s_small = family.hand_sizes(True)
        short = {"players": 2, "tiles": len(family.tile_ids(True)), "hand": [s_big, s_small]}
    return {
        "id": variant.id,
        "title": variant.title,
        "names": _names(variant),
        "family": family.name,
        "seed": variant.seed,
        "faces": family.faces,
        "players": {"min": MIN_PLAYERS, "max": MAX_PLAYERS},
        "tiles": len(family.tile_ids(False)),
        "first_joker_id": FIRST_JOKER_ID,
        "hand": [big, small],
        "short_game": short,
        "rack_rows": family.rack_rows,
        "min_meld": 2 if rules.doubles else 3,
        "meld_kinds": ["set", "run", "double"] if rules.doubles else ["set", "run"],
        "meld_min": {"set": 3, "run": 3, **({"double": 2} if rules.doubles else {})},
        "max_jokers_per_meld": rules.max_jokers,
        "ace_high": rules.ace_high,
        "atu": family.has_atu,
        "row_break": family.row_break,
        "row_depth": family.row_break,  # the room option of A.9's visible depth
        "first_turn_restricted": family.first_turn_restricted,
        "take_actions": _action_names(family.take_actions),
        "build_actions": _action_names(family.build_actions),
        "joker_layoff": family.joker_layoff,
        "consumes_bought_jokers": family.consumes_bought_jokers,
        "joker_discard_restricted": variant.joker_discard_restricted,
        "joker_button": family.joker_button,  # the room option of B.9
        "opening": {
            "threshold": variant.threshold,
            "run_required": variant.run_required,
            "doubles": variant.doubles_threshold or None,
            "rising": variant.rising,
        },
    }


def catalogue() -> list[dict[str, Any]]:
    """Every variant's facts, in the order of RULES.md §0."""
    return [variant_facts(v) for v in VARIANTS.values()]


__all__ = ["catalogue", "get_variant", "variant_facts"]
