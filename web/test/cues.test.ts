// When the table plays its short sounds (src/feel/cues.ts).
import * as assert from "node:assert/strict";
import { test } from "node:test";

import { cuesOf, tickDue } from "../src/feel/cues";
import type { EventMessage } from "../src/protocol.gen";

function event(e: Record<string, unknown>, over: Partial<EventMessage> = {}): EventMessage {
  return {
    type: "event",
    version: 8,
    event: e,
    view: null,
    seats: null,
    deadline: 1030,
    server_time: 1000,
    scores: null,
    ...over,
  };
}

test("a draw and a discard of any seat have their sounds", () => {
  const same = { turn: 1, seat: 0 };
  assert.deepEqual(cuesOf(same, same, event({ do: "draw", seat: 1 })), ["draw"]);
  assert.deepEqual(cuesOf(same, same, event({ do: "take_row", seat: 1, index: 2 })), ["draw"]);
  assert.deepEqual(cuesOf(same, same, event({ do: "layoff", seat: 1 })), []);
});

test("the turn sound comes when the turn becomes this seat's, once", () => {
  const discard = event({ do: "discard", seat: 1, tile: 4 });
  assert.deepEqual(cuesOf({ turn: 1, seat: 0 }, { turn: 0, seat: 0 }, discard), [
    "discard",
    "turn",
  ]);
  assert.deepEqual(
    cuesOf({ turn: 0, seat: 0 }, { turn: 0, seat: 0 }, event({ do: "draw", seat: 0 })),
    ["draw"],
  );
  assert.deepEqual(cuesOf({ turn: 1, seat: 0 }, { turn: 2, seat: 0 }, discard), ["discard"]);
  // A new round that this seat starts: its turn again, though it held the turn before.
  assert.deepEqual(
    cuesOf(
      { turn: 0, seat: 0 },
      { turn: 0, seat: 0 },
      event({ do: "round_start", round: 2, first: 0 }),
    ),
    ["turn"],
  );
  // A spectator (no seat) hears no turn.
  assert.deepEqual(cuesOf({ turn: 1, seat: null }, { turn: 0, seat: null }, discard), ["discard"]);
});

test("going out is a won round; the replay on reconnect is silent", () => {
  const over = event({ do: "round_over", round: 1, result: { out: 0 } });
  assert.deepEqual(cuesOf({ turn: 0, seat: 0 }, { turn: 0, seat: 0, over: true }, over), ["won"]);
  assert.deepEqual(cuesOf({ turn: 0, seat: 1 }, { turn: 0, seat: 1, over: true }, over), []);
  assert.deepEqual(
    cuesOf(
      { turn: 1, seat: 0 },
      { turn: 0, seat: 0 },
      event({ do: "discard", seat: 1 }, { replay: true }),
    ),
    [],
  );
});

test("the countdown ticks once a second in the last ten seconds", () => {
  assert.equal(tickDue(11, null), null);
  assert.equal(tickDue(10, 11), 10);
  assert.equal(tickDue(10, 10), null);
  assert.equal(tickDue(3, 4), 3);
  assert.equal(tickDue(0, 1), null);
  assert.equal(tickDue(null, 3), null);
});
