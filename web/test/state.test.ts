// The table's reducer (src/table/state.ts): events in, state and effects out, the old
// state untouched. Variant behaviour comes from the catalogue facts given to it.
import * as assert from "node:assert/strict";
import { test } from "node:test";

import type { VariantFacts } from "../src/protocol.gen";
import {
  emptyRoom,
  initialState,
  layState,
  rackLayout,
  reduce,
  validFormations,
  type Effect,
  type RoomData,
  type TableEvent,
  type TableState,
} from "../src/table/state";
import type { FormationAnswer, OpeningLock, SeatView } from "../src/types";

function facts(over: Partial<VariantFacts>): VariantFacts {
  return {
    id: "cards-test",
    title: "Cards",
    names: { ro: "Cărți", en: "Cards" },
    family: "A",
    seed: "000",
    faces: "cards",
    players: { min: 2, max: 4 },
    tiles: 106,
    first_joker_id: 104,
    hand: [15, 14],
    short_game: { players: 2, tiles: 54, hand: [11, 10] },
    rack_rows: 2,
    min_meld: 3,
    meld_kinds: ["set", "run"],
    meld_min: { set: 3, run: 3 },
    max_jokers_per_meld: null,
    ace_high: true,
    atu: true,
    row_break: true,
    row_depth: true,
    first_turn_restricted: true,
    take_actions: ["draw", "take_row"],
    build_actions: ["discard", "lay", "layoff", "buy_joker"],
    joker_layoff: false,
    consumes_bought_jokers: true,
    joker_discard_restricted: false,
    joker_button: false,
    opening: { threshold: 0, run_required: true, doubles: null, rising: false },
    ...over,
  };
}

/** A row-breaking variant with card faces, and a last-discard variant with numbers. */
const ROW = facts({});
const DISCARD = facts({
  id: "numbers-test",
  family: "B",
  faces: "numbers",
  short_game: null,
  rack_rows: 3,
  min_meld: 2,
  meld_kinds: ["set", "run", "double"],
  meld_min: { set: 3, run: 3, double: 2 },
  atu: false,
  row_break: false,
  row_depth: false,
  first_turn_restricted: false,
  take_actions: ["draw", "take_discard", "joker_button"],
  joker_button: true,
  opening: { threshold: 101, run_required: false, doubles: 5, rising: false },
});

// Spades A..5 are ids 0..4; hearts 7, 8, 9 are 19, 20, 21.
const HAND = [0, 1, 2, 3, 19, 20, 21, 40];

function view(over: Partial<SeatView> = {}): SeatView {
  return {
    variant_id: "cards-test",
    players: 2,
    seat: 0,
    first: 0,
    turn: 0,
    phase: "build",
    hand: HAND,
    seats: [
      {
        seat: 0,
        tiles: HAND.length,
        opened: false,
        opened_with: null,
        credits: 0,
        first_turn: false,
      },
      { seat: 1, tiles: 14, opened: false, opened_with: null, credits: 0, first_turn: false },
    ],
    table: [],
    row: [30, 31, 32],
    row_offset: 0,
    row_length: 3,
    row_depth: null,
    atu: 50,
    atu_taken_by: null,
    stock_count: 60,
    consumed: [],
    last_points_opening: null,
    last_doubles_opening: null,
    joker_button: false,
    joker_credits: 0,
    button_used: false,
    over: false,
    result: null,
    hands: null,
    opened_with: [null, null],
    ...over,
  };
}

function room(v: SeatView | null, over: Partial<RoomData> = {}): RoomData {
  return {
    ...emptyRoom(),
    status: "playing",
    round: 1,
    variantId: v?.variant_id ?? null,
    view: v,
    ...over,
  };
}

/** Events one after the other; the effects of all of them. */
function run(state: TableState, ...events: TableEvent[]): { state: TableState; effects: Effect[] } {
  const effects: Effect[] = [];
  for (const e of events) {
    const step = reduce(state, e);
    state = step.state;
    effects.push(...step.effects);
  }
  return { state, effects };
}

const dealt = (v: SeatView, variant: VariantFacts = ROW, over: Partial<RoomData> = {}) =>
  run(initialState(), { type: "room", room: room(v, over), variant });

const valid = (kind: string, value: number): FormationAnswer => ({
  valid: true,
  code: null,
  message: "",
  kind,
  value,
});
/** The server's opening lock: open (nothing missing) unless told otherwise. */
const lockOf = (over: Partial<OpeningLock> = {}): OpeningLock => ({
  locked: false,
  code: null,
  message: "",
  value: 0,
  threshold: 45,
  has_run: true,
  run_required: true,
  doubles: 0,
  doubles_needed: null,
  opened: false,
  ...over,
});
const sends = (effects: Effect[]) =>
  effects.filter((e) => e.do === "send").map((e) => (e.do === "send" ? e.action : null));
const slotOf = (s: TableState, id: number) => s.rack!.slots.indexOf(id);

test("a dealt hand is arranged on as many rack rows as the catalogue says, each tile once", () => {
  for (const variant of [ROW, DISCARD]) {
    const { state, effects } = dealt(view({ variant_id: variant.id }), variant);
    assert.equal(state.rack!.rows, variant.rack_rows);
    assert.deepEqual(
      [...state.rack!.tiles()].sort((a, b) => a - b),
      [...HAND].sort((a, b) => a - b),
    );
    assert.deepEqual(effects, [{ do: "rackChanged" }]);
  }
});

test("the server's saved layout is kept when it holds exactly the hand", () => {
  const layout = [40, null, 0, 1, 2, 3, null, 19, 20, 21];
  const { state } = dealt(view(), ROW, { rack: layout });
  assert.deepEqual(state.rack!.slots.slice(0, layout.length), layout);
  assert.equal(state.rack!.slots.length % 14, 0);
  const bare = dealt(view(), ROW, { rack: [...HAND] }).state; // no gap: no layout, arranged
  assert.ok(bare.rack!.slots.includes(null) && bare.rack!.slots.length % 14 === 0);
});

test("a rejoin keeps the player's layout; tiles it lacks land away from formations", () => {
  // The layout knew 40 and the run 0 1 2 and held 7, which left the hand; 3, 19, 20, 21 are new.
  const layout = [40, null, 0, 1, 2, null, 7, null, null, null, null, null, null, null];
  const state = dealt(view(), ROW, { rack: layout }).state;
  const slots = state.rack!.slots;
  assert.deepEqual(slots.slice(0, 5), [40, null, 0, 1, 2]);
  assert.equal(slots.indexOf(7), -1);
  for (const id of [3, 19, 20, 21]) {
    const at = slots.indexOf(id);
    assert.ok(at >= 0, `tile ${id} is on the rack`);
    const row = Math.floor(at / 14);
    for (const n of [at - 1, at + 1])
      if (Math.floor(n / 14) === row && n >= 0) assert.equal(slots[n], null, `tile ${id} is alone`);
  }
  // No formation but the one the player made.
  assert.deepEqual(
    state.rack!.formations(3).map((f) => f.tiles),
    [[0, 1, 2]],
  );
});

test("moving a tile on the rack is a new state; the old one is untouched", () => {
  const start = dealt(view()).state;
  const before = [...start.rack!.slots];
  const from = slotOf(start, 40);
  const empty = start.rack!.slots.lastIndexOf(null);
  const selected = run(start, { type: "tap", act: `slot:${from}` });
  assert.deepEqual(selected.state.selection, { kind: "rack", slot: from });
  assert.equal(selected.state.focus?.key, `slot:${from}`);
  const moved = run(selected.state, { type: "tap", act: `slot:${empty}` });
  assert.equal(slotOf(moved.state, 40), empty);
  assert.equal(moved.state.selection, null);
  assert.deepEqual(moved.effects, [{ do: "rackChanged" }]);
  assert.deepEqual(start.rack!.slots, before);
  assert.deepEqual(selected.state.rack!.slots, before);
});

test("drawing: one move at a time, and a refusal comes back as an error", () => {
  const start = dealt(view({ phase: "take" })).state;
  const first = run(start, { type: "tap", act: "stock" });
  assert.deepEqual(sends(first.effects), [{ do: "draw" }]);
  assert.equal(first.state.busy, true);
  assert.deepEqual(sends(run(first.state, { type: "tap", act: "stock" }).effects), []); // busy
  const error = { code: "not_your_turn", message: "it is seat 1's turn" };
  const refused = run(first.state, {
    type: "sent",
    action: { do: "draw" },
    clearsPending: false,
    error,
  });
  assert.equal(refused.state.busy, false);
  assert.deepEqual(refused.effects, [{ do: "error", error }]);
  // Not this seat's turn: the stock only clears the selection.
  assert.deepEqual(
    sends(
      run(dealt(view({ phase: "take", turn: 1 })).state, { type: "tap", act: "stock" }).effects,
    ),
    [],
  );
});

test("a formation is as long as the catalogue's min_meld", () => {
  const pair = [0, 13]; // two aces: a double where doubles exist
  const layout = [0, 13, null, 19, 20, 21, null, 1, null, 2, null, 3, null, 40];
  const hand = [0, 13, 19, 20, 21, 1, 2, 3, 40];
  const cards = dealt(view({ hand }), ROW, { rack: layout }).state;
  const numbers = dealt(view({ hand, variant_id: DISCARD.id }), DISCARD, { rack: layout }).state;
  const tilesOf = (s: TableState) => s.rack!.formations(s.variant!.min_meld).map((f) => f.tiles);
  assert.deepEqual(tilesOf(cards), [[19, 20, 21]]);
  assert.deepEqual(tilesOf(numbers), [pair, [19, 20, 21]]);
});

test("lay sends the formations the server called valid, with their kind", () => {
  const layout = [0, 1, 2, 3, null, 19, 20, 21, null, 40];
  let s = dealt(view(), ROW, { rack: layout }).state;
  s = run(s, {
    type: "formations",
    forms: [
      [0, 1, 2, 3],
      [19, 20, 21],
    ],
    answers: [
      valid("run", 10),
      { valid: false, code: "invalid_meld", message: "", kind: null, value: 0 },
    ],
    lock: lockOf({ value: 10 }),
  }).state;
  assert.equal(validFormations(s).length, 1);
  assert.deepEqual(layState(s), {
    enabled: true,
    value: 10,
    doubles: 0,
    count: 1,
    pending: null,
    opened: false,
    block: "none",
  });
  const laid = run(s, { type: "tap", act: "lay" });
  assert.deepEqual(sends(laid.effects), [
    { do: "lay", melds: [{ kind: "run", tiles: [0, 1, 2, 3] }] },
  ]);
});

test("the first turn blocks a lay only where the catalogue restricts it", () => {
  const seats = view().seats.map((x) => ({ ...x, first_turn: true }));
  const layout = [0, 1, 2, null, 19, 20, 21, null, 3, null, 40];
  const answer: TableEvent = {
    type: "formations",
    forms: [
      [0, 1, 2],
      [19, 20, 21],
    ],
    answers: [valid("run", 6), valid("run", 24)],
    lock: lockOf(),
  };
  const cards = run(dealt(view({ seats }), ROW, { rack: layout }).state, answer).state;
  const numbers = run(
    dealt(view({ seats, variant_id: DISCARD.id }), DISCARD, { rack: layout }).state,
    answer,
  ).state;
  assert.equal(layState(cards).block, "firstTurn");
  assert.equal(layState(numbers).block, "none");
  assert.equal(layState(numbers).enabled, true);
});

test("taking from the row: preview, tiles pending on the rack, then the take the variant has", () => {
  for (const [variant, action] of [
    [ROW, "take_row"],
    [DISCARD, "take_discard"],
  ] as const) {
    const start = dealt(view({ phase: "take", variant_id: variant.id }), variant).state;
    const asked = run(start, { type: "tap", act: "row:1" });
    assert.deepEqual(asked.effects, [{ do: "rowPreview", index: 1, then: { kind: "show" } }]);
    const shown = run(asked.state, {
      type: "rowPreview",
      index: 1,
      tiles: [31, 32],
      then: { kind: "show" },
      error: null,
    });
    assert.deepEqual(shown.state.preview, { index: 1, tiles: [31, 32], block: null });
    assert.equal(shown.state.focus?.key, "preview-take");
    const taken = run(shown.state, { type: "tap", act: "preview-take" });
    assert.deepEqual(taken.state.pending, {
      kind: variant === ROW ? "row" : "discard",
      index: 1,
      taken: 31,
      tiles: [31, 32],
    });
    assert.ok(slotOf(taken.state, 31) >= 0 && slotOf(taken.state, 32) >= 0);
    // Locked until the server answers about these very formations and the taken tile.
    assert.equal(layState(taken.state).block, "checking");
    assert.equal(layState(taken.state).enabled, false);
    const unused = run(taken.state, {
      type: "formations",
      forms: [],
      answers: [],
      lock: lockOf({ locked: true, code: "taken_tile_unused", taken_used: false }),
    }).state;
    assert.equal(layState(unused).block, "needTaken");
    const sent = sends(run(taken.state, { type: "tap", act: "lay" }).effects);
    assert.equal(sent[0]?.do, action);
    // The turn passes: the pending tiles leave the rack.
    const passed = run(taken.state, {
      type: "room",
      room: room(view({ phase: "take", turn: 1, variant_id: variant.id })),
      variant,
    });
    assert.equal(passed.state.pending, null);
    assert.equal(slotOf(passed.state, 31), -1);
  }
});

test("a row tile dropped on a slot is previewed first, then placed there", () => {
  const start = dealt(view({ phase: "take" })).state;
  const slot = start.rack!.slots.lastIndexOf(null);
  const asked = run(start, {
    type: "drop",
    src: { kind: "row", index: 2 },
    target: `slot:${slot}`,
  });
  assert.deepEqual(asked.effects, [{ do: "rowPreview", index: 2, then: { kind: "take", slot } }]);
  const placed = run(asked.state, {
    type: "rowPreview",
    index: 2,
    tiles: [],
    then: { kind: "take", slot },
    error: null,
  });
  assert.equal(placed.state.pending?.taken, 32);
  assert.equal(slotOf(placed.state, 32), slot);
  const failed = run(asked.state, {
    type: "rowPreview",
    index: 2,
    tiles: [],
    then: { kind: "take", slot },
    error: { code: "bad_action", message: "no" },
  });
  assert.equal(failed.state.pending, null);
  assert.equal(failed.effects[0]?.do, "error");
});

test("the atu goes onto the rack and is laid with atu: true", () => {
  const layout = [0, 1, 2, 3, null, 19, 20, 21, null, 40, null, null];
  let s = dealt(view(), ROW, { rack: layout }).state;
  s = run(s, { type: "tap", act: "atu" }, { type: "tap", act: "slot:4" }).state;
  assert.equal(s.atuOnRack, true);
  assert.equal(slotOf(s, 50), 4);
  s = run(s, {
    type: "formations",
    forms: [[0, 1, 2, 3, 50, 19, 20, 21]],
    answers: [valid("run", 30)],
    lock: lockOf(),
  }).state;
  const laid = run(s, { type: "tap", act: "lay" });
  assert.deepEqual(sends(laid.effects), [
    { do: "lay", melds: [{ kind: "run", tiles: [0, 1, 2, 3, 50, 19, 20, 21] }], atu: true },
  ]);
  const done = run(laid.state, {
    type: "sent",
    action: sends(laid.effects)[0]!,
    clearsPending: false,
    error: null,
  });
  assert.equal(done.state.atuOnRack, false);
});

test("keys: arrows move the focus within the rack, Escape clears the selection", () => {
  const s = run(dealt(view()).state, { type: "tap", act: "slot:0" }).state;
  assert.equal(run(s, { type: "key", key: "ArrowRight", slot: 0 }).state.focus?.key, "slot:1");
  assert.equal(run(s, { type: "key", key: "End", slot: 3 }).state.focus?.key, "slot:13");
  assert.equal(run(s, { type: "key", key: "ArrowUp", slot: 0 }).state.focus?.key, "slot:0"); // off the rack: stays
  assert.equal(run(s, { type: "key", key: "Escape", slot: null }).state.selection, null);
});

test("a round's end opens the summary once; closing it keeps it closed", () => {
  const result = { reason: "out", out: 0, scores: [50, -30], closing: null, breakdown: [] };
  const over = view({ over: true, result, hands: [[], [5]] });
  const opened = run(dealt(view()).state, { type: "room", room: room(over), variant: ROW }).state;
  assert.equal(opened.summaryOpen, true);
  assert.equal(opened.summary?.view, over);
  const closed = run(opened, { type: "tap", act: "summary-close" }).state;
  assert.equal(closed.summaryOpen, false);
  assert.equal(
    run(closed, { type: "room", room: room(over), variant: ROW }).state.summaryOpen,
    false,
  );
});

test("closing the summary says it was read; the next deal closes it by itself", () => {
  const result = { reason: "out", out: 0, scores: [50, -30], closing: null, breakdown: [] };
  const over = view({ over: true, result, hands: [[], [5]] });
  const opened = run(dealt(view()).state, { type: "room", room: room(over), variant: ROW }).state;
  assert.deepEqual(run(opened, { type: "tap", act: "summary-close" }).effects, [
    { do: "summaryRead" },
  ]);
  assert.deepEqual(run(opened, { type: "key", key: "Escape", slot: null }).effects, [
    { do: "summaryRead" },
  ]);
  // Not read, but the pause ended: the new round's view closes the summary (no turn hidden).
  const next = run(opened, { type: "room", room: room(view()), variant: ROW }).state;
  assert.equal(next.summaryOpen, false);
  // After the match's last round there is no next deal to hurry.
  const last = run(dealt(view()).state, {
    type: "room",
    room: { ...room(over), matchOver: true },
    variant: ROW,
  }).state;
  assert.deepEqual(run(last, { type: "tap", act: "summary-close" }).effects, []);
});

test("leave and the score sheet are effects for the page", () => {
  const s = dealt(view()).state;
  assert.deepEqual(run(s, { type: "tap", act: "leave" }, { type: "tap", act: "scores" }).effects, [
    { do: "leave" },
    { do: "openScores" },
  ]);
});

// ------------------------------------------------------------------ issue 18.4: every way of opening

test("a take's button shows the running total and stays locked until the server's lock opens", () => {
  const start = dealt(view({ phase: "take" })).state;
  const shown = run(
    start,
    { type: "tap", act: "row:2" },
    { type: "rowPreview", index: 2, tiles: [32], then: { kind: "show" }, error: null, block: null },
  ).state;
  const taken = run(shown, { type: "tap", act: "preview-take" }).state;
  assert.equal(taken.pending?.taken, 32);
  const below = lockOf({
    locked: true,
    code: "below_threshold",
    value: 24,
    threshold: 45,
    taken_used: true,
  });
  const locked = run(taken, {
    type: "formations",
    forms: [[19, 20, 21]],
    answers: [valid("run", 24)],
    lock: below,
  }).state;
  assert.deepEqual(
    { ...layState(locked), pending: null },
    {
      enabled: false,
      value: 24,
      doubles: 0,
      count: 1,
      pending: null,
      opened: false,
      block: "locked",
    },
  );
  const open = run(locked, {
    type: "formations",
    forms: [[19, 20, 21]],
    answers: [valid("run", 24)],
    lock: lockOf({ value: 54, taken_used: true }),
  }).state;
  assert.equal(layState(open).enabled, true);
  // The rack moves: the answer was for other formations, locked again until the next one.
  const slot = open.rack!.slots.lastIndexOf(null);
  const moved = run(open, {
    type: "drop",
    src: { kind: "rack", slot: open.rack!.slotOf(19) },
    target: `slot:${slot}`,
  });
  assert.deepEqual(moved.effects, [{ do: "rackChanged" }]);
  assert.equal(layState(moved.state).block, "checking");
});

test("the lay button is locked while the lock is asked again for a changed turn or rack", () => {
  const layout = [0, 1, 2, 3, null, 19, 20, 21, null, 40];
  let s = dealt(view(), ROW, { rack: layout }).state;
  assert.equal(layState(s).block, "noFormation"); // nothing answered yet
  s = run(s, {
    type: "formations",
    forms: [
      [0, 1, 2, 3],
      [19, 20, 21],
    ],
    answers: [valid("run", 10), valid("run", 24)],
    lock: lockOf({ value: 34, locked: true, code: "below_threshold" }),
  }).state;
  assert.equal(layState(s).block, "locked");
  // Another seat opens (the 101 thresholds and doubles depend on it): asked again.
  const other = view({ opened_with: [null, "points"] });
  const next = run(s, { type: "room", room: room(other), variant: ROW });
  assert.deepEqual(next.effects, [{ do: "ask" }]);
  assert.equal(layState(next.state).block, "checking");
});

test("a deep take is not offered before the opening: the server's reason, no pending tiles", () => {
  const start = dealt(view({ phase: "take" })).state;
  const block = {
    code: "not_opened",
    message: "only a seat that has opened may reach below the top of the row",
  };
  const shown = run(
    start,
    { type: "tap", act: "row:0" },
    {
      type: "rowPreview",
      index: 0,
      tiles: [30, 31, 32],
      then: { kind: "show" },
      error: null,
      block,
    },
  ).state;
  assert.deepEqual(shown.preview?.block, block);
  assert.equal(shown.focus?.key, "preview-cancel");
  const tried = run(shown, { type: "tap", act: "preview-take" });
  assert.equal(tried.state.pending, null);
  assert.deepEqual(tried.effects, [{ do: "error", error: block }]);
  // Dragged onto the rack: the same refusal, nothing placed.
  const slot = start.rack!.slots.lastIndexOf(null);
  const dragged = run(start, {
    type: "rowPreview",
    index: 0,
    tiles: [30, 31, 32],
    then: { kind: "take", slot },
    error: null,
    block,
  });
  assert.equal(dragged.state.pending, null);
  assert.equal(slotOf(dragged.state, 30), -1);
  assert.equal(dragged.effects[0]?.do, "error");
});

test("Remi 101: pairs are formations, a double counts on the lay button", () => {
  const hand = [0, 52, 19, 20, 21, 40];
  const layout = [0, 52, null, 19, 20, 21, null, 40];
  let s = dealt(view({ hand, variant_id: DISCARD.id }), DISCARD, { rack: layout }).state;
  const forms = s.rack!.formations(DISCARD.min_meld).map((f) => f.tiles);
  assert.deepEqual(forms, [
    [0, 52],
    [19, 20, 21],
  ]);
  s = run(s, {
    type: "formations",
    forms,
    answers: [valid("double", 2), valid("run", 24)],
    lock: lockOf({
      value: 24,
      doubles: 1,
      doubles_needed: 5,
      locked: true,
      code: "below_threshold",
    }),
  }).state;
  const lay = layState(s);
  assert.equal(lay.doubles, 1);
  assert.equal(lay.value, 24);
  assert.equal(validFormations(s).length, 2); // the pair is valid: never marked invalid
});

// ------------------------------------------------------------------ issue 18.6: where arriving tiles land

function alone(slots: (number | null)[], id: number): boolean {
  const at = slots.indexOf(id);
  if (at < 0) return false;
  const row = Math.floor(at / 14);
  return [at - 1, at + 1].every(
    (n) => n < 0 || n >= slots.length || Math.floor(n / 14) !== row || slots[n] === null,
  );
}

test("a drawn tile lands on a free slot away from every formation", () => {
  // Row 0 is full but for slots 3 and 9 (each between tiles); row 1 has room.
  const hand = [0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14];
  const layout = [
    0,
    1,
    2,
    null,
    4,
    5,
    6,
    7,
    8,
    null,
    9,
    10,
    11,
    12,
    13,
    14,
    ...new Array(12).fill(null),
  ];
  const s = dealt(view({ hand }), ROW, { rack: layout }).state;
  const drew = run(s, {
    type: "room",
    room: room(view({ hand: [...hand, 30] })),
    variant: ROW,
  }).state;
  assert.ok(alone(drew.rack!.slots, 30));
  assert.equal(drew.rack!.slots[3], null);
  assert.equal(drew.rack!.slots[9], null);
});

test("the tiles that came along from the row land apart, none glued onto a formation", () => {
  const start = dealt(
    view({ phase: "take", seats: view().seats.map((x) => ({ ...x, opened: true })) }),
  ).state;
  const before = start.rack!.formations(3).map((f) => f.tiles.join());
  const shown = run(start, {
    type: "rowPreview",
    index: 0,
    tiles: [30, 31, 32],
    then: { kind: "show" },
    error: null,
    block: null,
  }).state;
  const taken = run(shown, { type: "tap", act: "preview-take" }).state;
  for (const id of [30, 31, 32]) assert.ok(alone(taken.rack!.slots, id), `tile ${id} alone`);
  assert.deepEqual(
    taken.rack!.formations(3).map((f) => f.tiles.join()),
    before,
  );
});

test("a rack with no lone free slot grows a row rather than glue a tile on", () => {
  const hand = Array.from({ length: 27 }, (_, i) => i);
  const layout: (number | null)[] = [...hand.slice(0, 13), null, ...hand.slice(13)];
  const s = dealt(view({ hand }), ROW, { rack: layout }).state;
  const drew = run(s, {
    type: "room",
    room: room(view({ hand: [...hand, 60] })),
    variant: ROW,
  }).state;
  assert.equal(drew.rack!.rows, 3);
  assert.ok(alone(drew.rack!.slots, 60));
  assert.equal(drew.rack!.slots[13], null);
});

test("on a narrow screen the rack has fewer columns and a row more; the layout is saved 14 wide", () => {
  const layout = [40, null, 0, 1, 2, 3, null, 19, 20, 21, null, null, null, null];
  let { state } = run(
    initialState(),
    { type: "cols", cols: 9 },
    { type: "room", room: room(view(), { rack: layout }), variant: ROW },
  );
  assert.equal(state.rack!.cols, 9);
  assert.equal(state.rack!.rows, ROW.rack_rows + 1);
  assert.deepEqual(
    state.rack!.formations(3).map((f) => f.tiles),
    [
      [0, 1, 2, 3],
      [19, 20, 21],
    ],
  );
  const saved = rackLayout(state)!;
  assert.equal(saved.length % 14, 0);
  assert.deepEqual(saved.slice(0, 4), [40, null, 0, 1]);
  // The screen widens (a phone turned): 14 columns again, the same formations.
  state = run(state, { type: "cols", cols: 14 }).state;
  assert.equal(state.rack!.cols, 14);
  assert.deepEqual(
    state.rack!.formations(3).map((f) => f.tiles),
    [
      [0, 1, 2, 3],
      [19, 20, 21],
    ],
  );
});

test("a tile tapped onto a table joker: bought back when the joker stands for it, else laid off", () => {
  // Meld 0: 5♠ 6♠ joker (standing for 7♠ = face 6); the hand holds 7♠ (id 6) and 4♠ (id 3).
  const table = [
    { kind: "run", tiles: [4, 5, 104], owners: [1, 1, 1], stands_for: [null, null, [6]] },
  ];
  const start = dealt(
    view({
      table,
      seats: [
        { seat: 0, tiles: 8, opened: true, opened_with: "points", credits: 30, first_turn: false },
        { seat: 1, tiles: 14, opened: true, opened_with: "points", credits: 20, first_turn: false },
      ],
      hand: [...HAND, 6],
    }),
  ).state;
  const seven = run(
    start,
    { type: "tap", act: `slot:${slotOf(start, 6)}` },
    { type: "tap", act: "joker:0:104" },
  );
  assert.deepEqual(sends(seven.effects), [{ do: "buy_joker", tile: 6, meld: 0 }]);
  const four = run(
    start,
    { type: "tap", act: `slot:${slotOf(start, 3)}` },
    { type: "tap", act: "joker:0:104" },
  );
  assert.deepEqual(sends(four.effects), [{ do: "layoff", tile: 3, meld: 0 }]);
});

test("take my seat back: a draw is sent; its refusal (not this seat's turn) shows nothing", () => {
  const seats = [
    {
      seat: 0,
      player_id: "p",
      name: "Ana",
      bot_level: null,
      is_bot: false,
      away: false,
      unresponsive: true,
      bot_playing: true,
      total: 0,
    },
  ];
  const start = dealt(view({ turn: 1, phase: "take" }), ROW, { seats }).state;
  const pressed = run(start, { type: "tap", act: "take-back" });
  assert.deepEqual(sends(pressed.effects), [{ do: "draw" }]);
  const error = { code: "not_your_turn", message: "it is seat 1's turn" };
  const after = run(pressed.state, {
    type: "sent",
    action: { do: "draw" },
    clearsPending: false,
    error,
  });
  assert.deepEqual(
    after.effects.filter((e) => e.do === "error"),
    [],
  );
  // Another refusal later is shown as usual.
  const again = run(
    after.state,
    { type: "tap", act: "stock" },
    { type: "sent", action: { do: "draw" }, clearsPending: false, error },
  );
  assert.equal(again.effects.filter((e) => e.do === "error").length, 1);
});
