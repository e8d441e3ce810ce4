"""web/src/api.gen.ts, generated from the HTTP API's OpenAPI schema (the app's own
``app.openapi()``, built in-process: no server, no network).

The browser's types for every HTTP request body and response of server/api/ are written
from the schema's components, so the client cannot drift from what the server sends and
accepts: ``python -m server.apitypes > web/src/api.gen.ts``; tests/server/test_web_types.py
fails when the checked-in file differs. web/src/api.ts names its types from this file.

The schemas are translated as the socket's are (:mod:`server.protocol.typescript`), with
one rule of their own: a model a response carries is written whole by the server (every
field, defaults included: no route leaves a field out), so each of its fields is
required in its type; a model only sent by the client keeps its defaulted fields
optional. ``Endpoints`` maps each
operation (``"METHOD /path"``) to its JSON body and its success response (``void``: none).
"""

from __future__ import annotations

import json
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from server.app import create_app
from server.protocol.typescript import ts_doc, ts_interface, ts_type
from server.settings import Settings

_OPENAPI_REF = "#/components/schemas/"
_JSON = "application/json"


def openapi_schema() -> dict[str, Any]:
    """The app's OpenAPI schema, its references rewritten as the JSON schema's ``$defs``
    (what :func:`~server.protocol.typescript.ts_type` reads)."""
    with tempfile.TemporaryDirectory() as data_dir:  # the app makes its data folder
        schema = create_app(Settings(data_dir=Path(data_dir))).openapi()
    text = json.dumps(schema).replace(f'"{_OPENAPI_REF}', '"#/$defs/')
    return dict(json.loads(text))


def _refs(node: Any) -> Iterator[str]:
    """The names of the models a schema node refers to."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            yield ref.rsplit("/", 1)[-1]
        for value in node.values():
            yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def _reachable(roots: list[Any], models: dict[str, Any]) -> set[str]:
    """Every model the ``roots`` refer to, directly or through other models."""
    seen: set[str] = set()
    todo = [name for root in roots for name in _refs(root)]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(_refs(models[name]))
    return seen


def _operations(schema: dict[str, Any]) -> list[tuple[str, Any, Any]]:
    """Each operation as ("METHOD /path", its JSON body's schema, its success response's
    schema; None for none)."""
    out = []
    for path, methods in schema["paths"].items():
        for method, op in methods.items():
            body = op.get("requestBody", {}).get("content", {}).get(_JSON, {}).get("schema")
            response = None
            for status, answer in sorted(op.get("responses", {}).items()):
                if status.startswith("2"):
                    response = answer.get("content", {}).get(_JSON, {}).get("schema")
                    break
            out.append((f"{method.upper()} {path}", body, response))
    return out


def render_typescript() -> str:
    """The text of web/src/api.gen.ts."""
    schema = openapi_schema()
    models: dict[str, Any] = schema["components"]["schemas"]
    operations = _operations(schema)
    answered = _reachable([response for _, _, response in operations], models)
    out = [
        "// Generated from the HTTP API's OpenAPI schema (server/api/, app.openapi()) by",
        "// `python -m server.apitypes > web/src/api.gen.ts`; do not edit.",
        "// tests/server/test_web_types.py fails when this file and the API disagree.",
        "/* eslint-disable */",
        "",
    ]
    for name, model in models.items():
        if name in answered:  # written whole by the server: its defaults are sent too
            model = {**model, "required": list(model.get("properties", {}))}
        out += [*ts_interface(name, model), ""]
    out += [
        *ts_doc("Each operation's JSON body and success response (`void`: none)."),
        "export interface Endpoints {",
    ]
    for key, body, response in operations:
        body_type = ts_type(body) if body else "void"
        response_type = ts_type(response) if response is not None else "void"
        out.append(f"  {json.dumps(key)}: {{ body: {body_type}; response: {response_type} }};")
    out += ["}", ""]
    return "\n".join(out)


if __name__ == "__main__":  # pragma: no cover
    sys.stdout.write(render_typescript())
