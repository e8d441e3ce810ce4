// The room's data from the socket's messages (src/table/messages.ts).
import * as assert from "node:assert/strict";
import { test } from "node:test";

import type { EventMessage, SeatState, Snapshot } from "../src/protocol.gen";
import { applyMessage } from "../src/table/messages";
import { emptyRoom } from "../src/table/state";

const SEATS: SeatState[] = [0, 1].map((seat) => ({
  seat,
  player_id: null,
  name: `p${seat}`,
  bot_level: null,
  is_bot: false,
  away: false,
  unresponsive: false,
  bot_playing: false,
  total: 0,
}));
const VIEW = {
  variant_id: "remi",
  seat: 0,
  turn: 0,
  phase: "take",
  hand: [1, 2, 3],
  row: [],
  over: false,
};

function snapshot(over: Partial<Snapshot> = {}): Snapshot {
  return {
    type: "snapshot",
    version: 7,
    room: {
      id: "r",
      kind: "normal",
      status: "playing",
      settings: { variant: "remi45" },
      round: 2,
      turn_seconds: 30,
    },
    you: { player_id: "p", seat: 0 },
    seats: SEATS,
    view: VIEW,
    rack: [1, null, 2, 3],
    deadline: 1000,
    server_time: 990,
    scores: { rounds: [[5, -5]], totals: [5, -5], over: false, winners: [] },
    last_seq: 3,
    ...over,
  };
}

function event(over: Partial<EventMessage>): EventMessage {
  return {
    type: "event",
    version: 8,
    event: { do: "draw", seat: 0 },
    view: null,
    seats: null,
    deadline: 1030,
    server_time: 1000,
    scores: null,
    ...over,
  };
}

test("a snapshot replaces the room's data, its deadline on the local clock", () => {
  const a = applyMessage(emptyRoom(), snapshot(), 980); // the local clock is 10 s behind
  assert.equal(a.version, 7);
  assert.equal(a.refresh, true);
  assert.equal(a.room.variantId, "remi45");
  assert.equal(a.room.round, 2);
  assert.equal(a.room.deadline, 990);
  assert.deepEqual(a.room.rack, [1, null, 2, 3]);
  assert.deepEqual(a.room.seats, SEATS);
  assert.equal((a.room.view as unknown as typeof VIEW).phase, "take");
});

test("a patch replaces only the view's keys it names, in a new object", () => {
  const base = applyMessage(emptyRoom(), snapshot(), 990).room;
  const a = applyMessage(base, event({ patch: { phase: "build", hand: [1, 2, 3, 4] } }), 1000);
  assert.notEqual(a.room.view, base.view);
  assert.equal(a.room.view?.phase, "build");
  assert.deepEqual(a.room.view?.hand, [1, 2, 3, 4]);
  assert.equal(a.room.view?.turn, 0);
  assert.equal(base.view?.phase, "take"); // the old data is untouched
  assert.equal(a.room.seats, base.seats); // seats null: unchanged
  assert.equal(a.room.rack, null); // a saved layout comes with a snapshot only
  assert.equal(a.room.deadline, 1030);
  assert.equal(a.scoresChanged, false);
});

test("a replay draws the table only at its last event; the match's end is kept", () => {
  const base = applyMessage(emptyRoom(), snapshot(), 990).room;
  assert.equal(applyMessage(base, event({ replay: true }), 1000).refresh, false);
  assert.equal(
    applyMessage(base, event({ replay: true, view: { ...VIEW, turn: 1 } }), 1000).refresh,
    true,
  );
  const over = applyMessage(base, event({ event: { do: "match_over", winners: [1] } }), 1000).room;
  assert.equal(over.matchOver, true);
  assert.equal(over.status, "finished");
  assert.deepEqual(over.winners, [1]);
  const round = applyMessage(
    base,
    event({ event: { do: "round_start", round: 3 }, view: VIEW }),
    1000,
  ).room;
  assert.equal(round.round, 3);
});

test("other messages change nothing", () => {
  const base = emptyRoom();
  const a = applyMessage(base, { type: "pong" }, 0);
  assert.equal(a.room, base);
  assert.equal(a.refresh, false);
  assert.equal(a.version, null);
});

test("round_over holds the pause before the next deal; round_start ends it", () => {
  const base = applyMessage(emptyRoom(), snapshot(), 990).room;
  const over = applyMessage(
    base,
    event({ event: { do: "round_over", round: 2, next_round_in: 5 } }),
    990,
  ).room;
  assert.equal(over.nextRoundIn, 5);
  const last = applyMessage(
    base,
    event({ event: { do: "round_over", round: 3, next_round_in: null } }),
    990,
  ).room;
  assert.equal(last.nextRoundIn, null);
  const next = applyMessage(
    over,
    event({ version: 9, event: { do: "round_start", round: 3, first: 0 } }),
    990,
  ).room;
  assert.equal(next.nextRoundIn, null);
});
