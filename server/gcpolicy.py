"""The server process's garbage-collector policy, set once at start-up.

CPython frees most objects by reference counting; its cycle collector exists for the
rest (a connection and its protocol, a task and its coroutine) and runs by generation.
A young pass walks only recent objects and is cheap; a *full* pass walks every tracked
object of the process, and the event loop answers nothing meanwhile. A server holding
thousands of rooms tracks about a million objects: with CPython's defaults each full
pass stops every room for about a second, several times a minute at 500 moves a second
(docs/operations.md, "Garbage collector", has the figures). The policy:

1. **Freeze what lives as long as the process.** Once start-up has imported the modules
   and built the app and its services, one ``gc.collect()`` then ``gc.freeze()`` moves
   all of it to the permanent generation, which no pass walks again. This is done
   *before* the rooms are restored: a room ends, and a frozen room's cycles would never
   be freed, whereas what is frozen here is never garbage.
2. **A larger young generation** (:data:`THRESHOLDS`): a young pass every 10,000 new
   tracked objects instead of 700. The objects of one move (its coroutines, futures,
   frames, database rows) are then nearly all freed by reference counting before any
   pass sees them, so far fewer survive into the oldest generation; and CPython starts
   a full pass only once the objects promoted since the last one exceed a quarter of
   those the oldest generation holds. Fewer promotions, far fewer full passes. The
   middle and oldest thresholds stay CPython's: nothing is held back from collection,
   so cyclic garbage is still found, by the same rule, and memory levels off (the soak
   benchmark, bench/soak, shows it).

Nothing made after start-up is ever frozen, so the policy cannot leak: it changes
when the collector runs, not what it frees. ``REMI_GC_POLICY=false`` keeps CPython's
defaults. Only the server process applies it (:func:`server.app.create_app` with
``process_wide``); tests build apps without it.
"""

from __future__ import annotations

import gc
from dataclasses import dataclass

THRESHOLDS = (10_000, 10, 10)
"""``gc.set_threshold`` of the server: young, middle, oldest (CPython's: 700, 10, 10)."""


@dataclass(frozen=True)
class Applied:
    """What :func:`apply` changed, for :func:`undo`: the thresholds it replaced and
    whether it froze the heap."""

    thresholds: tuple[int, int, int]
    froze: bool


def apply(enabled: bool) -> Applied:
    """Set the policy (when ``enabled``): collect once, freeze what survives, raise the
    young threshold. Call it once start-up has built what lives as long as the process,
    before the rooms start."""
    before = gc.get_threshold()
    if not enabled:
        return Applied(before, froze=False)
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
    return Applied(before, froze=True)


def undo(applied: Applied) -> None:
    """Put the collector back as it was before :func:`apply` (at shutdown: a test's
    process goes on after its server)."""
    gc.set_threshold(*applied.thresholds)
    if applied.froze:
        gc.unfreeze()
