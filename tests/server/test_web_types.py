"""web/src/protocol.gen.ts is generated from the protocol's models; the two must agree."""

from __future__ import annotations

import re
from pathlib import Path

from server import apitypes, protocol
from server.protocol import typescript
from server.protocol.catalogue import Catalogue

GENERATED = Path(__file__).resolve().parents[2] / "web" / "src" / "protocol.gen.ts"


def test_the_checked_in_types_are_generated_from_the_models() -> None:
    assert GENERATED.read_text(encoding="utf-8") == typescript.render_typescript(), (
        "web/src/protocol.gen.ts is out of date: run "
        "`.venv/bin/python -m server.protocol.typescript > web/src/protocol.gen.ts`"
    )


def test_every_message_and_the_catalogue_have_a_type() -> None:
    text = typescript.render_typescript()
    declared = set(re.findall(r"^export (?:interface|type) (\w+)", text, re.MULTILINE))
    models = (*protocol.CLIENT_MODELS, *protocol.SERVER_MODELS, *protocol.ACTION_MODELS)
    assert {m.__name__ for m in models} | {"Catalogue", "VariantFacts"} <= declared
    assert {"GameAction", "ClientMessage", "ServerMessage"} <= declared


def _fields(text: str, name: str) -> set[str]:
    body = text.split(f"export interface {name} {{\n", 1)[1].split("\n}\n", 1)[0]
    return {line.strip() for line in body.splitlines() if not line.strip().startswith(("/*", "*"))}


def test_fields_keep_their_types_and_optionality() -> None:
    text = typescript.render_typescript()
    # A default makes a field optional for the writer; a required one stays required.
    assert "patches?: boolean;" in _fields(text, "Hello")
    assert _fields(text, "RackMessage") == {
        'type: "rack";',
        "seq: number;",
        "layout: (number | null)[];",
    }
    assert "patch?: { [key: string]: unknown } | null;" in _fields(text, "EventMessage")
    assert "seats: SeatState[] | null;" in _fields(text, "EventMessage")
    assert 'family: "A" | "B";' in _fields(text, "VariantFacts")
    assert "names: Names;" in _fields(text, "VariantFacts")
    assert set(Catalogue.model_fields) == {"variants"}


def test_an_unknown_schema_shape_is_refused_not_guessed() -> None:
    for schema in (
        {"type": "object", "properties": {"a": {}}},
        {"$ref": "other.json#/x"},
        {"not": {"type": "string"}},
    ):
        try:
            typescript.ts_type(schema)
        except ValueError:
            continue
        raise AssertionError(f"{schema} was translated")


API_GENERATED = GENERATED.with_name("api.gen.ts")


def test_the_checked_in_http_types_are_generated_from_the_openapi_schema() -> None:
    assert API_GENERATED.read_text(encoding="utf-8") == apitypes.render_typescript(), (
        "web/src/api.gen.ts is out of date: run "
        "`.venv/bin/python -m server.apitypes > web/src/api.gen.ts`"
    )


def test_every_http_model_and_operation_has_a_type() -> None:
    schema = apitypes.openapi_schema()
    text = apitypes.render_typescript()
    declared = set(re.findall(r"^export interface (\w+)", text, re.MULTILINE))
    assert set(schema["components"]["schemas"]) | {"Endpoints"} <= declared
    operations = {f"{m.upper()} {p}" for p, ms in schema["paths"].items() for m in ms}
    assert operations == set(re.findall(r'^  "([A-Z]+ /[^"]*)":', text, re.MULTILINE))
    assert "POST /api/rooms" in operations and "GET /api/variants" in operations
    endpoints = _fields(text, "Endpoints")
    assert '"POST /api/rooms": { body: RoomSettings; response: RoomView };' in endpoints
    assert '"POST /api/account/password": { body: PasswordChange; response: void };' in endpoints


def test_what_a_response_carries_is_required_and_a_request_default_is_optional() -> None:
    text = apitypes.render_typescript()
    # RoomView answers requests: its defaulted fields are sent all the same.
    assert "your_seat: number | null;" in _fields(text, "RoomView")
    assert "invite_code: string | null;" in _fields(text, "RoomView")
    # A request body only: a field with a default may be left out by the client.
    assert "stake?: number;" in _fields(text, "QuickStartRequest")


def test_the_client_names_its_http_types_from_the_generated_file() -> None:
    client = (GENERATED.parent / "api.ts").read_text(encoding="utf-8")
    assert 'import type * as gen from "./api.gen";' in client
    assert not re.search(
        r"^export interface (RoomView|Player|Account|Profile)\b", client, re.MULTILINE
    )
    tournaments = (GENERATED.parent / "tournament.ts").read_text(encoding="utf-8")
    assert "export type TournamentDetail = gen.TournamentDetail;" in tournaments
    assert "interface" not in tournaments.split("export const listTournaments", 1)[0]
