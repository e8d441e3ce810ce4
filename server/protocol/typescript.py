"""web/src/protocol.gen.ts, generated from the JSON schema of the protocol's models.

The browser's types for every WebSocket message (server/protocol/client.py and
server.py) and for the variant catalogue of ``GET /api/variants``
(server/protocol/catalogue.py) are written from pydantic's JSON schema of those models,
so the client cannot drift from what the server sends and accepts:
``python -m server.protocol.typescript > web/src/protocol.gen.ts``;
tests/server/test_web_types.py fails when the checked-in file differs.

Only the JSON-schema shapes the models use are translated (objects, arrays,
``anyOf``/``oneOf``, ``const``/``enum``, ``$ref``, the scalar types); anything
else is refused rather than guessed. A field with a default is optional in the
generated type: a client may leave it out, and a reader must allow for it.

>>> print(ts_type({"anyOf": [{"type": "integer"}, {"type": "null"}]}))
number | null
>>> print(ts_type({"type": "array", "items": {"$ref": "#/$defs/MeldSpec"}}))
MeldSpec[]
"""

from __future__ import annotations

import json
import sys
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from server.protocol.catalogue import Catalogue
from server.protocol.client import ACTION_MODELS, CLIENT_MODELS
from server.protocol.server import SERVER_MODELS

_REF = "#/$defs/"
_SCALARS = {
    "integer": "number",
    "number": "number",
    "string": "string",
    "boolean": "boolean",
    "null": "null",
}


_NOTES = {"title", "description", "default", "examples", "deprecated"}
"""Keys that describe a node without constraining it: a node of these only is any value."""


def _paren(text: str) -> str:
    return f"({text})" if " | " in text else text


def ts_type(schema: dict[str, Any]) -> str:
    """The TypeScript type of one JSON-schema node."""
    if "$ref" in schema:
        ref = str(schema["$ref"])
        if not ref.startswith(_REF):
            raise ValueError(f"unsupported $ref {ref!r}")
        return ref[len(_REF) :]
    if "const" in schema:
        return json.dumps(schema["const"])
    if "enum" in schema:
        return " | ".join(json.dumps(v) for v in schema["enum"])
    for key in ("anyOf", "oneOf"):
        if key in schema:
            parts: list[str] = []
            for sub in schema[key]:
                t = ts_type(sub)
                if t not in parts:
                    parts.append(t)
            return " | ".join(parts)
    kind = schema.get("type")
    if kind == "array" and "prefixItems" in schema and schema.get("items") in (None, False):
        # A tuple of fixed length (a Python ``tuple[...]``).
        return f"[{', '.join(ts_type(sub) for sub in schema['prefixItems'])}]"
    if kind == "array":
        items = schema.get("items")
        return f"{_paren(ts_type(items))}[]" if items else "unknown[]"
    if kind == "object":
        if "properties" in schema:
            raise ValueError("an inline object with properties has no name")
        extra = schema.get("additionalProperties", True)
        value = ts_type(extra) if isinstance(extra, dict) else "unknown"
        return f"{{ [key: string]: {value} }}"
    if isinstance(kind, str) and kind in _SCALARS:
        return _SCALARS[kind]
    if not set(schema) - _NOTES:
        return "unknown"
    raise ValueError(f"unsupported JSON schema {schema!r}")


def ts_doc(text: str | None, indent: str = "") -> list[str]:
    """A docstring as a TypeScript doc comment's lines."""
    if not text:
        return []
    lines = text.replace("``", "`").replace("*/", "* /").strip().splitlines()
    if len(lines) == 1:
        return [f"{indent}/** {lines[0]} */"]
    return [f"{indent}/**", *[f"{indent} * {ln}".rstrip() for ln in lines], f"{indent} */"]


def ts_interface(name: str, schema: dict[str, Any]) -> list[str]:
    """The TypeScript interface of an object model's JSON schema (a field not required is
    optional)."""
    if schema.get("type") != "object" or "properties" not in schema:
        raise ValueError(f"{name}: not an object model")
    required = set(schema.get("required", ()))
    out = [*ts_doc(schema.get("description")), f"export interface {name} {{"]
    for field, sub in schema["properties"].items():
        out += ts_doc(sub.get("description"), "  ")
        optional = "" if field in required else "?"
        out.append(f"  {field}{optional}: {ts_type(sub)};")
    out.append("}")
    return out


def _union(name: str, doc: str, models: tuple[type[BaseModel], ...]) -> list[str]:
    return [*ts_doc(doc), f"export type {name} = {' | '.join(m.__name__ for m in models)};"]


def render_typescript() -> str:
    """The text of web/src/protocol.gen.ts."""
    models: tuple[type[BaseModel], ...] = (*CLIENT_MODELS, *SERVER_MODELS, Catalogue)
    _, schema = models_json_schema(
        [(m, "validation") for m in models], ref_template=_REF + "{model}"
    )
    out = [
        "// Generated from the pydantic models of server/protocol/ (the catalogue's included) by",
        "// `python -m server.protocol.typescript > web/src/protocol.gen.ts`; do not edit.",
        "// tests/server/test_web_types.py fails when this file and the models disagree.",
        "/* eslint-disable */",
        "",
    ]
    for name, sub in schema["$defs"].items():
        out += [*ts_interface(name, sub), ""]
    out += [
        *_union("GameAction", "A move inside an `action` message (`do` names it).", ACTION_MODELS),
        "",
        *_union("ClientMessage", "Every message a client sends (`type` names it).", CLIENT_MODELS),
        "",
        *_union(
            "ServerMessage", "Every message the server sends (`type` names it).", SERVER_MODELS
        ),
        "",
    ]
    return "\n".join(out)


if __name__ == "__main__":  # pragma: no cover
    sys.stdout.write(render_typescript())
