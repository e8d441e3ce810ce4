"""The one typed error of the rule engine (RULES.md §C).

Every illegal action raises :class:`RuleError` carrying one :class:`ErrorCode`
and a message a person can read; the state it was applied to is unchanged.

>>> err = RuleError(ErrorCode.NOT_YOUR_TURN, "it is seat 1's turn")
>>> err.code.value, str(err)
('not_your_turn', "not_your_turn: it is seat 1's turn")
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """The codes of RULES.md §C, in the order the checks run."""

    BAD_ACTION = "bad_action"
    ROUND_OVER = "round_over"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"
    FIRST_TURN = "first_turn"
    EMPTY_ROW = "empty_row"
    ATU_TAKEN = "atu_taken"
    TILE_NOT_IN_HAND = "tile_not_in_hand"
    INVALID_MELD = "invalid_meld"
    TOO_MANY_JOKERS = "too_many_jokers"
    AMBIGUOUS_MELD = "ambiguous_meld"
    NOT_OPENED = "not_opened"
    DOUBLES_RESTRICTED = "doubles_restricted"
    BELOW_THRESHOLD = "below_threshold"
    RUN_REQUIRED = "run_required"
    TOO_DEEP = "too_deep"
    TAKEN_TILE_UNUSED = "taken_tile_unused"
    JOKER_LAYOFF = "joker_layoff"
    LAYOFF_DOES_NOT_FIT = "layoff_does_not_fit"
    WRONG_REPLACEMENT = "wrong_replacement"
    JOKER_CONSUMED = "joker_consumed"
    MUST_KEEP_DISCARD = "must_keep_discard"
    ATU_NOT_GOING_OUT = "atu_not_going_out"
    JOKER_DISCARD = "joker_discard"
    BUTTON_UNAVAILABLE = "button_unavailable"


class RuleError(Exception):
    """An action refused by the rules; nothing changed."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.message = message

    def to_dict(self) -> dict[str, str]:
        """JSON form sent to the client."""
        return {"code": self.code.value, "message": self.message}
