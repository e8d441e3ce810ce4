"""The garbage-collector policy: what it freezes, what it leaves to the collector, and
that it can be turned off and undone (its effect on pauses is a benchmark's, bench/soak)."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import base_settings
from fastapi.testclient import TestClient

from server import gcpolicy
from server.app import create_app


class Node:
    """A tracked object that can sit in a reference cycle."""

    def __init__(self) -> None:
        self.other: Node | None = None


def cycle() -> weakref.ref[Node]:
    """A reference cycle nothing else holds; a weak reference to one of its nodes."""
    a, b = Node(), Node()
    a.other, b.other = b, a
    return weakref.ref(a)


@pytest.fixture(autouse=True)
def collector_as_found() -> Iterator[None]:
    thresholds = gc.get_threshold()
    assert gc.get_freeze_count() == 0
    yield
    gc.unfreeze()
    gc.set_threshold(*thresholds)


def test_it_freezes_what_exists_and_raises_the_young_threshold() -> None:
    before = gc.get_threshold()
    kept = Node()  # alive at start-up: frozen
    applied = gcpolicy.apply(True)
    assert gc.get_freeze_count() > 0
    assert gc.get_threshold() == gcpolicy.THRESHOLDS
    assert gcpolicy.THRESHOLDS[0] > before[0]
    # The middle and oldest thresholds stay CPython's: nothing is held back longer.
    assert gcpolicy.THRESHOLDS[1:] == before[1:]
    assert all(o is not kept for o in gc.get_objects())
    gcpolicy.undo(applied)
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before
    assert any(o is kept for o in gc.get_objects())


def test_garbage_made_after_start_up_is_still_collected() -> None:
    """Nothing made after the policy is set is frozen: a cycle that becomes garbage
    later (a finished room, a closed connection) is freed by a full collection."""
    applied = gcpolicy.apply(True)
    frozen = gc.get_freeze_count()
    refs = [cycle() for _ in range(100)]
    assert all(r() is not None for r in refs)  # cycles: reference counting cannot free them
    gc.collect()
    assert all(r() is None for r in refs)
    assert gc.get_freeze_count() == frozen
    gcpolicy.undo(applied)


def test_garbage_frozen_is_not_collected_until_undone() -> None:
    """Why the freeze comes before the rooms: a cycle frozen is never freed while frozen."""
    ref = cycle()
    applied = gcpolicy.apply(True)
    # apply() collected first: the cycle, garbage already, was freed before the freeze.
    assert ref() is None
    a = Node()
    a.other = a
    held = weakref.ref(a)
    gc.freeze()  # as if a room had been frozen, then ended
    del a
    gc.collect()
    assert held() is not None
    gcpolicy.undo(applied)
    gc.collect()
    assert held() is None


def test_turned_off_it_changes_nothing() -> None:
    before = gc.get_threshold()
    applied = gcpolicy.apply(False)
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before
    gcpolicy.undo(applied)
    assert gc.get_threshold() == before


@pytest.mark.parametrize("enabled", [True, False])
def test_the_server_app_applies_it_at_start_up_and_undoes_it(tmp_path: Path, enabled: bool) -> None:
    before = gc.get_threshold()
    settings = base_settings(data_dir=tmp_path, database_url="", gc_policy=enabled)
    app = create_app(settings, process_wide=True)
    with TestClient(app):
        assert (gc.get_freeze_count() > 0) is enabled
        assert (gc.get_threshold() == gcpolicy.THRESHOLDS) is enabled
    assert gc.get_freeze_count() == 0
    assert gc.get_threshold() == before
