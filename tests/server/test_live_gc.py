"""server/rooms/live.py: the garbage collector's young threshold is set at start-up
(``gc_young_threshold``; 0 leaves Python's)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest
from wsharness import FAST, running_server

from server.settings import Settings


@pytest.fixture
def thresholds() -> Iterator[tuple[int, int, int]]:
    before = gc.get_threshold()
    yield before
    gc.set_threshold(*before)


@pytest.mark.parametrize(("setting", "expected"), [(12345, 12345), (0, 700)])
async def test_the_young_threshold_is_set_at_start_up_and_0_leaves_pythons(
    settings: Settings, thresholds: tuple[int, int, int], setting: int, expected: int
) -> None:
    gc.set_threshold(700, 10, 10)
    async with running_server(settings, {**FAST, "gc_young_threshold": setting}):
        assert gc.get_threshold() == (expected, 10, 10)
