"""docs/protocol.md is generated from the protocol's models; the two must agree."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter

from server import protocol
from server.protocol import docs
from server.rules.actions import ACTION_NAMES
from server.rules.errors import ErrorCode

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def test_doc_is_generated_from_the_models() -> None:
    assert DOC.read_text(encoding="utf-8") == docs.render_markdown(), (
        "docs/protocol.md is out of date: run "
        "`.venv/bin/python -m server.protocol.docs > docs/protocol.md`"
    )


@pytest.mark.parametrize(
    ("model", "example"), docs.all_examples(), ids=lambda v: getattr(v, "__name__", "")
)
def test_every_example_is_valid(model: type[BaseModel], example: dict[str, Any]) -> None:
    if model in protocol.CLIENT_MODELS:
        parsed = protocol.parse_client(json.dumps(example))
        assert isinstance(parsed, model)
    elif model in protocol.SERVER_MODELS:
        assert isinstance(protocol.validate_server(example), model)
    else:
        TypeAdapter(protocol.GameAction).validate_python(example)


def test_every_message_model_has_an_example() -> None:
    for model in (*protocol.CLIENT_MODELS, *protocol.SERVER_MODELS, *protocol.ACTION_MODELS):
        assert any(m is model for m, _ in docs.all_examples()), model.__name__


def test_actions_and_events_cover_the_engine() -> None:
    modelled = {m.model_fields["do"].annotation.__args__[0] for m in protocol.ACTION_MODELS}  # type: ignore[union-attr]
    assert modelled == set(ACTION_NAMES.values())
    documented = {name for name, _, _ in protocol.EVENT_KINDS}
    assert set(ACTION_NAMES.values()) <= documented
    for name, _, example in protocol.EVENT_KINDS:
        assert example["do"] == name
        frame = {
            "type": "event",
            "version": 1,
            "event": example,
            "view": None,
            "seats": None,
            "deadline": None,
            "server_time": 0.0,
            "scores": None,
            "replay": True,
        }
        protocol.validate_server(frame)


def test_every_error_code_is_documented() -> None:
    codes = {code for code, _ in protocol.ERROR_CODES}
    assert {c.value for c in ErrorCode} <= codes
    text = DOC.read_text(encoding="utf-8")
    for code in codes:
        assert f"`{code}`" in text


def test_the_doc_describes_a_refused_origin_as_it_happens() -> None:
    """server/ws.py accepts the handshake, sends ``origin_refused`` and closes 4003
    (tests/server/test_ws_safety.py checks the socket): the doc says the same."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text()
    intro = text.split("Every message has a `type`")[0]
    assert "`origin_refused`" in intro and "4003" in intro
    assert "403" not in intro.replace("4003", "")
