"""A seat's rack layout: the order and gaps a player gave their tiles (``rack`` message).

The layout is the player's alone: it is stored so that another device or a
reconnect shows the same rack, and it never changes the game (saving it is not a
move). :func:`layout_error` checks a new layout against the hand; :func:`normalize_rack`
fits a saved layout to the hand as it is now.
"""

from __future__ import annotations

from typing import Any


def layout_error(layout: list[int | None], hand: list[int]) -> str | None:
    """Why ``layout`` is refused for ``hand`` (None: it is fine).

    >>> layout_error([3, None, 5], [5, 3, 9]) is None
    True
    >>> layout_error([3, 3], [3])
    'layout: a tile appears twice'
    >>> layout_error([4], [3])
    'layout: tile 4 is not in your hand'
    """
    tiles = [t for t in layout if t is not None]
    if len(set(tiles)) != len(tiles):
        return "layout: a tile appears twice"
    mine = set(hand)
    stranger = [t for t in tiles if t not in mine]
    if stranger:
        return f"layout: tile {stranger[0]} is not in your hand"
    return None


def normalize_rack(layout: list[int | None] | None, hand: list[int]) -> list[int | None]:
    """A saved layout made to fit the hand, every remaining tile kept in its slot.

    A tile that left the hand (a discard, a meld laid, possibly by the bot playing
    for an away seat) leaves an empty slot (``None``), so that no later tile
    shifts. A tile the layout does not know (a draw) takes an empty slot whose
    neighbours are empty too, the last such slot, so that it is never glued onto
    the player's formations nor makes a false one with a lone tile; when there is
    none it is appended after an empty slot. A tile listed twice keeps its first
    slot. Without a layout the hand comes back as it is, without a gap.

    >>> normalize_rack([5, None, None, None, 9, 7, None, None], [7, 5, 11])
    [5, None, None, None, None, 7, None, 11]
    >>> normalize_rack([1, 2, 3, None, 4], [1, 3, 4])
    [1, None, 3, None, 4]
    >>> normalize_rack([1, 2], [1, 2, 8, 9])
    [1, 2, None, 8, None, 9]
    >>> normalize_rack(None, [3, 1])
    [3, 1]
    """
    if not layout:
        return list(dict.fromkeys(hand))
    have = set(hand)
    out: list[int | None] = []
    seen: set[int] = set()
    for slot in layout:
        if slot is not None and slot in have and slot not in seen:
            out.append(slot)
            seen.add(slot)
        else:
            out.append(None)
    for tile in hand:
        if tile in seen:
            continue
        seen.add(tile)
        i = _lone_slot(out)
        if i is not None:
            out[i] = tile
            continue
        if out and out[-1] is not None:
            out.append(None)
        out.append(tile)
    return out


def _lone_slot(slots: list[int | None]) -> int | None:
    """The last empty slot with no tile on either side, if any."""
    for i in range(len(slots) - 1, -1, -1):
        if (
            slots[i] is None
            and (i == 0 or slots[i - 1] is None)
            and (i == len(slots) - 1 or slots[i + 1] is None)
        ):
            return i
    return None


def saved_layout(stored: dict[str, Any] | None) -> tuple[list[int | None] | None, int]:
    """A layout as the journal stored it (``{"round", "layout"}``): the layout and its round.

    >>> saved_layout({"round": 2, "layout": [4, None, "x"]})
    ([4, None, None], 2)
    >>> saved_layout(None)
    (None, 0)
    """
    rack = stored or {}
    layout = rack.get("layout")
    if not isinstance(layout, list):
        return None, 0
    return [t if isinstance(t, int) else None for t in layout], int(rack.get("round", 0))
