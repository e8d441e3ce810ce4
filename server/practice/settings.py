"""A practice match's settings, checked without pydantic (this runs under Pyodide).

The same choices as a server room where they apply (server/rooms/lobby/options.py): the
variant, 2 to 4 seats, the short game for 2 where the variant has one, a bot level per
bot seat, a turn timer (off, 15, 30, 60 or 120 s) and an end condition (one round, N
rounds, a target score). Seat 0 is the player's; the others are bots.

>>> s = parse_settings({"variant": "remi45", "seats": 2, "bot_levels": ["hard"],
...                     "end": {"kind": "rounds", "rounds": 1}})
>>> s.bot_levels, s.turn_seconds, s.end_condition()
(('hard',), None, EndCondition(kind='rounds', value=1))
>>> try:
...     parse_settings({"variant": "remi101", "seats": 2, "short_game": True})
... except SettingsError as e:
...     print(e)
short_game does not exist in remi101 (§1)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from server.bots import BOT_LEVELS
from server.rules import VARIANTS, EndCondition, RoundOptions, get_variant

TURN_SECONDS: tuple[int, ...] = (15, 30, 60, 120)
"""The turn timers a practice match may have (None: no timer)."""

END_KINDS: tuple[str, ...] = ("rounds", "target")


class SettingsError(ValueError):
    """A practice setting that cannot be played (code ``bad_settings``)."""

    code = "bad_settings"


@dataclass(frozen=True)
class PracticeSettings:
    """Checked settings; see the module docstring."""

    variant: str
    seats: int
    short_game: bool
    joker_button: bool
    bot_levels: tuple[str, ...]
    """The level of each bot seat, seats 1 to ``seats - 1``."""
    turn_seconds: int | None
    end_kind: str
    end_value: int

    def end_condition(self) -> EndCondition:
        """The engine's end condition (RULES.md A.17)."""
        return EndCondition(self.end_kind, self.end_value)

    def round_options(self) -> RoundOptions:
        """Every round's options, as a server room with the same settings has them."""
        credits = tuple([1] * self.seats) if self.joker_button else None
        return RoundOptions(
            short_game=self.short_game, joker_button=self.joker_button, joker_credits=credits
        )

    def to_dict(self) -> dict[str, Any]:
        end: dict[str, Any] = (
            {"kind": "rounds", "rounds": self.end_value}
            if self.end_kind == "rounds"
            else {"kind": "target", "points": self.end_value}
        )
        return {
            "variant": self.variant,
            "seats": self.seats,
            "short_game": self.short_game,
            "joker_button": self.joker_button,
            "bot_levels": list(self.bot_levels),
            "turn_seconds": self.turn_seconds,
            "end": end,
        }


def _int(data: Mapping[str, Any], key: str, default: int) -> int:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int):
        raise SettingsError(f"{key}: a whole number")
    return value


def parse_settings(data: Mapping[str, Any]) -> PracticeSettings:
    """Check ``data`` (the lobby's choices); raises :class:`SettingsError`."""
    variant = data.get("variant", "remi")
    if variant not in VARIANTS:
        raise SettingsError(f"unknown variant {variant!r}; one of {', '.join(VARIANTS)}")
    fam = get_variant(str(variant)).family
    seats = _int(data, "seats", 4)
    if not 2 <= seats <= 4:
        raise SettingsError("seats: 2 to 4")
    short_game = bool(data.get("short_game", False))
    if short_game and seats != 2:
        raise SettingsError("short_game needs exactly 2 seats")
    if short_game and not fam.has_short_game:
        raise SettingsError(f"short_game does not exist in {variant} (§1)")
    joker_button = bool(data.get("joker_button", False))
    if joker_button and not fam.joker_button:
        raise SettingsError(f"joker_button does not exist in {variant} (B.9)")
    levels = data.get("bot_levels", ["normal"] * (seats - 1))
    if not isinstance(levels, list | tuple) or len(levels) != seats - 1:
        raise SettingsError("bot_levels: one level for each bot seat")
    for level in levels:
        if level not in BOT_LEVELS:
            raise SettingsError(f"bot level {level!r}: one of {', '.join(BOT_LEVELS)}")
    turn = data.get("turn_seconds")
    if turn is not None and turn not in TURN_SECONDS:
        raise SettingsError("turn_seconds: off (null), 15, 30, 60 or 120")
    end = data.get("end", {"kind": "rounds", "rounds": 1})
    if not isinstance(end, Mapping) or end.get("kind") not in END_KINDS:
        raise SettingsError("end: one round, N rounds or a target score")
    key, top = ("rounds", 1000) if end["kind"] == "rounds" else ("points", 1_000_000)
    value = _int(end, key, 0)
    if not 1 <= value <= top:
        raise SettingsError(f"end.{key}: 1 to {top}")
    return PracticeSettings(
        str(variant),
        seats,
        short_game,
        joker_button,
        tuple(str(x) for x in levels),
        turn,
        str(end["kind"]),
        value,
    )
