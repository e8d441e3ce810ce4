"""docs/protocol.md, generated from the protocol's models.

``python -m server.protocol.docs > docs/protocol.md``; tests/server/test_ws_protocol_doc.py
fails when the file and the models disagree.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import sys
import types
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from server.protocol.client import ACTION_MODELS, CLIENT_MODELS, LayoffSpec, MeldSpec
from server.protocol.server import (
    CLOSE_CODES,
    ERROR_CODES,
    EVENT_KINDS,
    SERVER_MODELS,
    RecentEvent,
    RoomInfo,
    Scores,
    SeatState,
)
from server.rules.actions import ACTION_TYPES


def _type_name(tp: Any) -> str:
    """A short, stable name of a field type for the documentation."""
    origin, args = get_origin(tp), get_args(tp)
    if origin is Annotated:
        return _type_name(args[0])
    if origin in (Union, types.UnionType):
        if all(isinstance(a, type) and (a in ACTION_MODELS or a in ACTION_TYPES) for a in args):
            return "action (see Actions)"
        return " | ".join(_type_name(a) for a in args)
    if origin is list:
        return f"list[{_type_name(args[0])}]"
    if origin is dict:
        return "object"
    if origin is Literal:
        return " | ".join(json.dumps(a) for a in args)
    if tp is type(None):
        return "null"
    names = {int: "int", str: "string", bool: "bool", float: "number"}
    if tp in names:
        return names[tp]
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return tp.__name__
    return "any"


def _field_rows(model: type[BaseModel]) -> list[str]:
    rows = ["| field | type | required | meaning |", "|---|---|---|---|"]
    for name, info in model.model_fields.items():
        if name == "type":
            continue
        ann = _type_name(info.annotation).replace("|", "\\|")
        required = "yes" if info.is_required() else "no"
        desc = (info.description or "").replace("|", "\\|")
        rows.append(f"| `{name}` | `{ann}` | {required} | {desc} |")
    return rows


def _examples(model: type[BaseModel]) -> list[dict[str, Any]]:
    extra = model.model_config.get("json_schema_extra")
    if isinstance(extra, dict):
        examples = extra.get("examples", [])
        if isinstance(examples, list):
            return [e for e in examples if isinstance(e, dict)]
    return []


def _model_section(model: type[BaseModel]) -> list[str]:
    type_field = model.model_fields.get("type") or model.model_fields.get("do")
    tag = ""
    if type_field is not None and type_field.annotation is not None:
        args = getattr(type_field.annotation, "__args__", ())
        tag = str(args[0]) if args else ""
    lines = [f"### `{tag}`" if tag else f"### {model.__name__}", ""]
    lines.append(inspect.cleandoc(model.__doc__ or ""))
    lines.append("")
    if len(model.model_fields) > 1:
        lines += _field_rows(model)
        lines.append("")
    for example in _examples(model):
        lines += ["```json", json.dumps(example, ensure_ascii=False), "```", ""]
    return lines


def render_markdown() -> str:
    """The text of docs/protocol.md."""
    from server.rules.views import SeatView

    out: list[str] = [
        "# WebSocket protocol",
        "",
        "<!-- Generated from server/protocol/ by "
        "`python -m server.protocol.docs > docs/protocol.md`;"
        " tests/server/test_ws_protocol_doc.py fails when they disagree. -->",
        "",
        "Endpoint: `GET /ws/rooms/{room_id}` (WebSocket; add `?code=<invite>` to watch a "
        "private room you are not seated in). Authentication: the guest cookie `remi_token` "
        "(browsers) or `Authorization: Bearer <token>`. A handshake whose `Origin` is not in "
        "the server's allowlist is accepted, answered with one `error` (code "
        "`origin_refused`, words the page shows) and closed with 4003, before any token is "
        "read; a client that sends no `Origin` (not a browser) is allowed. Text frames only, "
        "one JSON object each, at most 16 KB (a larger message, even in fragments, closes "
        "1009; text that is not UTF-8 closes 1007); permessage-deflate is off. Each "
        "connection may send 100 messages per 20 s, WebSocket pings included (beyond: "
        "`rate_limited`, close 1008).",
        "",
        "Every message has a `type`. The server keeps one authoritative room: every change "
        "is an `event` with the next room `version`. A connection sees only its own seat's "
        "view (RULES.md §D), or the spectator view when it has no seat.",
        "",
        "## Flow",
        "",
        "1. Connect, send `hello` with the last `version` you hold (null the first time).",
        "2. The server replays the `event`s you missed when it still holds them all, "
        "otherwise it sends a `snapshot`. Either way you are then current.",
        "3. Send `action`s with a fresh `seq` and the `base_version` you decided on. The "
        "server commits the move to the database, then answers `ack{seq, version}` and "
        "broadcasts the `event` to every connection. A refused move gets "
        "`error{seq, code, message}`.",
        "4. Resending a `seq` (after a reconnect, say) applies nothing and returns the "
        "original answer. An accepted move's `ack`, with its original `version`, is "
        "returned for as long as the room exists, across rounds and server restarts (the "
        "move is in the room's log). The answer to a refused message or to a `rack` "
        "message is kept for the player's last 64 messages and until a restart; resent "
        "later, the message is judged again as a new one (a refused move then gets "
        "`stale_version` once the room has moved on; a rack layout is saved again and "
        "acked with the current version). Another message with the `seq` of an accepted "
        "move, or of an answer still kept, gets `seq_reused`. A move based on another "
        "version than the current one is refused with `stale_version`.",
        "5. Turn time: `deadline` is when the current turn ends. Then a bot, seeing only "
        'that seat\'s view, finishes the turn (`timeout` event, `by: "timeout"`). After 2 '
        "timeouts in a row the seat is `unresponsive` and the bot plays its turns at once "
        "until the player sends an action. `leave` (or a lost connection, after a short "
        "grace) marks the seat `away` and the bot plays; `hello` again (from any device "
        "of the player) takes the seat back, mid-turn included.",
        "6. Devices and sessions: a `hello` that names its `device` (a random id per "
        "browser tab) closes the seat's older connections from another named device, with "
        "an `error` `played_elsewhere` then close 4409; the same device's connections and "
        "ones naming no device are never closed so. Signing a device out (or every device) "
        "closes the sockets opened with its token: `error` `session_revoked`, close 4403. "
        "A waiting room only its owner can start closes once the owner has had no socket on "
        "it for `REMI_OWNER_GONE_SECONDS`: its sockets get `error` `owner_gone`, then close "
        "4410, and the room (now `finished`, no round played) leaves the lobby.",
        "7. Between rounds the next round starts by itself after a short pause, until the "
        "room's end condition (RULES.md A.17): then `match_over`. A room with no player "
        "connected ends after a grace period (`match_over`, reason `abandoned`); the scores "
        "of finished rounds are kept.",
        "",
        "## Client → server",
        "",
    ]
    for model in CLIENT_MODELS:
        out += _model_section(model)
    out += [
        "### Actions (`action.action`)",
        "",
        "Malformed actions are refused with `bad_action`; illegal ones with the RULES.md §C code.",
        "",
    ]
    for model in ACTION_MODELS:
        out += _model_section(model)
    out += ["### Meld objects (`melds[]`)", "", inspect.cleandoc(MeldSpec.__doc__ or ""), ""]
    out += [*_field_rows(MeldSpec), ""]
    out += ["### Lay-offs (`layoffs[]`)", "", inspect.cleandoc(LayoffSpec.__doc__ or ""), ""]
    out += [*_field_rows(LayoffSpec), ""]
    out += ["## Server → client", ""]
    for model in SERVER_MODELS:
        out += _model_section(model)
    out += ["### Seat entries (`seats[]`)", "", *_field_rows(SeatState), ""]
    out += ["### Score sheet (`scores`)", "", *_field_rows(Scores), ""]
    out += ["### Room (`room`)", "", *_field_rows(RoomInfo), ""]
    out += ["### Recent events (`recent[]` of a snapshot)", "", *_field_rows(RecentEvent), ""]
    view_fields = ", ".join(f"`{f.name}`" for f in dataclasses.fields(SeatView))
    out += [
        "### The view (`view`)",
        "",
        "The engine's SeatView (docs/engine-api.md): " + view_fields + ". `hand` is this "
        "seat's own tiles only; `hands` (every hand) and `result` appear once the round is "
        "over. A spectator's view has an empty `hand`. `commitment` is SHA-256 of the "
        "round's deal seed, the same for every seat (docs/fairness.md); the seed itself is "
        "never in a view: it comes with `round_over`.",
        "",
        "## Events",
        "",
        "`event.do` names what happened. Engine moves carry the acting `seat` and `by`.",
        "",
    ]
    for name, text, example in EVENT_KINDS:
        out += [f"### `{name}`", "", text, "", "```json", json.dumps(example), "```", ""]
    out += ["## Error codes", "", "| code | meaning |", "|---|---|"]
    out += [f"| `{code}` | {text} |" for code, text in ERROR_CODES]
    out += ["", "## Close codes", "", "| code | meaning |", "|---|---|"]
    out += [f"| {code} | {text} |" for code, text in CLOSE_CODES]
    out.append("")
    return "\n".join(out)


def all_examples() -> list[tuple[type[BaseModel], dict[str, Any]]]:
    """Every documented example with its model (for the tests)."""
    out: list[tuple[type[BaseModel], dict[str, Any]]] = []
    for model in (*CLIENT_MODELS, *SERVER_MODELS, *ACTION_MODELS):
        out += [(model, e) for e in _examples(model)]
    return out


if __name__ == "__main__":  # pragma: no cover
    sys.stdout.write(render_markdown())
