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
    shifts; a tile the layout does not know (a draw) takes the first empty slot,
    or is appended when there is none. A tile listed twice keeps its first slot.

    >>> normalize_rack([5, None, 9, 7], [7, 5, 11])
    [5, 11, None, 7]
    >>> normalize_rack([1, 2, 3, None, 4], [1, 3, 4])
    [1, None, 3, None, 4]
    >>> normalize_rack([1, 2], [1, 2, 8, 9])
    [1, 2, 8, 9]
    >>> normalize_rack(None, [3, 1])
    [3, 1]
    """
    have = set(hand)
    out: list[int | None] = []
    seen: set[int] = set()
    for slot in layout or []:
        if slot is not None and slot in have and slot not in seen:
            out.append(slot)
            seen.add(slot)
        else:
            out.append(None)
    free = (i for i, slot in enumerate(out) if slot is None)
    for tile in hand:
        if tile in seen:
            continue
        seen.add(tile)
        i = next(free, None)
        if i is None:
            out.append(tile)
        else:
            out[i] = tile
    return out


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
