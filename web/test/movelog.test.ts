// The move log (src/table/movelog.ts): events in, entries kept once each, their words in
// both languages, and where another seat's move happened.
import * as assert from "node:assert/strict";
import { test } from "node:test";

import { setLang } from "../src/i18n";
import type { EventMessage, Snapshot } from "../src/protocol.gen";
import { applyMessage } from "../src/table/messages";
import {
  describe,
  describeText,
  emptyLog,
  type DescribeContext,
  flashOf,
  LOG_MAX,
  logEvent,
  logRecent,
  meldsText,
} from "../src/table/movelog";
import { emptyRoom } from "../src/table/state";
import type { SeatView } from "../src/types";

const NAMES = ["Ana", "bot 2", "<b>Ion</b>"];
const name = (seat: number) => NAMES[seat];
const CARDS: DescribeContext = { faces: "cards", humanSeats: new Set([0, 2]) };
const NUMBERS: DescribeContext = { faces: "numbers", humanSeats: new Set([0]) };
// Tile ids: face = id % 52, rank = face % 13 + 1, suit = face // 13 (♠ ♥ ♦ ♣).
const H7 = 19; // 7♥
const S9 = 8; // 9♠

function words(event: Record<string, unknown>, ctx = CARDS): string {
  const d = describe(event, ctx);
  assert.ok(d, `no words for ${JSON.stringify(event)}`);
  return describeText(d, name);
}

test("a stock draw of another seat names no tile; one's own draw does", () => {
  setLang("en");
  assert.equal(words({ do: "draw", seat: 1, by: "bot" }), "bot 2 drew from the stock");
  assert.equal(
    words({ do: "draw", seat: 0, by: "player", tile: H7 }),
    "Ana drew 7♥ from the stock",
  );
  setLang("ro");
  assert.equal(words({ do: "draw", seat: 1, by: "bot" }), "bot 2 a tras din talon");
  assert.equal(
    words({ do: "draw", seat: 1, by: "bot", stock_empty: true, over: true }),
    "bot 2 a vrut să tragă: talonul s-a terminat",
  );
});

test("the reader's own moves are told in the second person, a bot's on that seat not", () => {
  const MINE: DescribeContext = { ...CARDS, me: 0 };
  setLang("ro");
  assert.equal(words({ do: "discard", seat: 0, tile: S9, by: "player" }, MINE), "Ai aruncat 9♠");
  assert.equal(
    words({ do: "draw", seat: 0, by: "player", tile: H7 }, MINE),
    "Ai tras 7♥ din talon",
  );
  assert.equal(
    words(
      { do: "take_row", seat: 0, by: "player", tiles: [H7, S9, 1, 2, 3], melds: [] },
      MINE,
    ).startsWith("Ai rupt rândul: 5 piese"),
    true,
  );
  assert.equal(
    words({ do: "timeout", seat: 0, by: "timeout", timeouts: 1 }, MINE),
    "Timpul tău a expirat: botul îți termină tura",
  );
  assert.equal(
    words({ do: "round_start", seat: null, first: 0, round: 2 }, MINE),
    "Runda 2 a fost împărțită: începi tu",
  );
  // A bot's move on the reader's seat stays in the third person, marked "(bot)".
  assert.equal(
    words({ do: "discard", seat: 0, tile: S9, by: "bot" }, MINE),
    "Ana a aruncat 9♠ (bot)",
  );
  // Another seat's move, and a replay (no reader): as before.
  assert.equal(
    words({ do: "discard", seat: 2, tile: S9, by: "player" }, MINE),
    "<b>Ion</b> a aruncat 9♠",
  );
  assert.equal(words({ do: "discard", seat: 0, tile: S9, by: "player" }), "Ana a aruncat 9♠");
  setLang("en");
  assert.equal(words({ do: "discard", seat: 0, tile: S9, by: "player" }, MINE), "You discarded 9♠");
  assert.equal(
    words({ do: "presence", seat: 0, away: true }, MINE),
    "You left: a bot plays for you",
  );
});

test("discards, lays, openings with the atu, lay-offs and buy-backs in words", () => {
  setLang("en");
  assert.equal(
    words({ do: "discard", seat: 2, tile: S9, by: "player" }),
    "<b>Ion</b> discarded 9♠",
  );
  assert.equal(
    words({ do: "discard", seat: 0, tile: S9, by: "player", over: true }),
    "Ana discarded 9♠ and went out",
  );
  const melds = [
    { kind: "run", tiles: [18, 104, 20] },
    { kind: "set", tiles: [8, 21, 34] },
  ];
  assert.equal(meldsText("cards", melds), "[6♥ ★ 8♥] [9♠ 9♥ 9♦]");
  assert.equal(
    words({ do: "lay", seat: 0, melds, atu: true, opened: true, by: "player" }),
    "Ana opened with [6♥ ★ 8♥] [9♠ 9♥ 9♦] (with the atu)",
  );
  assert.equal(
    words({ do: "layoff", seat: 1, tile: H7, meld: 2, by: "bot" }),
    "bot 2 laid off 7♥ on meld 3",
  );
  assert.equal(
    words({ do: "buy_joker", seat: 2, tile: H7, meld: 0, position: 1, by: "player" }),
    "<b>Ion</b> bought back the joker of meld 1 with 7♥",
  );
  setLang("ro");
  assert.equal(
    words({
      do: "lay",
      seat: 0,
      melds: melds.slice(0, 1),
      atu: false,
      opened: false,
      by: "player",
    }),
    "Ana a etalat [6♥ ★ 8♥]",
  );
  assert.equal(
    words({ do: "buy_joker", seat: 2, tile: H7, meld: 0, position: 1, by: "player" }),
    "<b>Ion</b> a cumpărat jokerul din formația 1 cu 7♥",
  );
});

test("a row take says how deep; a last-discard take says what it laid and laid off", () => {
  setLang("en");
  const melds = [{ kind: "run", tiles: [18, 19, 20] }];
  assert.equal(
    words({
      do: "take_row",
      seat: 1,
      index: 2,
      tiles: [18, 5, 40],
      melds,
      opened: true,
      by: "bot",
    }),
    "bot 2 broke the row 3 tiles deep, down to 6♥, and laid [6♥ 7♥ 8♥] (opening)",
  );
  assert.equal(
    words({ do: "take_row", seat: 1, index: 4, tiles: [18], melds, opened: false, by: "bot" }),
    "bot 2 took 6♥ from the row and laid [6♥ 7♥ 8♥]",
  );
  setLang("ro");
  assert.equal(
    words({ do: "take_row", seat: 1, index: 2, tiles: [18, 5], melds, opened: false, by: "bot" }),
    "bot 2 a rupt rândul: 2 piese, până la 6♥, și a etalat [6♥ 7♥ 8♥]",
  );
  setLang("en");
  const ev = {
    do: "take_discard",
    seat: 0,
    tile: 4,
    melds: [],
    layoffs: [{ tile: 4, meld: 1 }],
    opened: false,
    by: "player",
  };
  assert.equal(words(ev, NUMBERS), "Ana took the last discard, 5●: laid off 5● on meld 2");
});

test("the joker button, timeouts, takeovers and rounds; a bot on a player's seat is marked", () => {
  setLang("en");
  assert.equal(
    words({ do: "joker_button", seat: 0, by: "player" }, NUMBERS),
    "Ana used the joker button",
  );
  assert.equal(
    words({ do: "timeout", seat: 0, timeouts: 1 }),
    "Ana's time ran out: the bot finishes the turn",
  );
  assert.equal(
    words({ do: "timeout", seat: 0, timeouts: 2 }),
    "Ana's time ran out, 2 times in a row: the bot finishes the turn",
  );
  assert.equal(
    words({ do: "discard", seat: 0, tile: S9, by: "timeout" }),
    "Ana discarded 9♠ (bot)",
  );
  assert.equal(words({ do: "discard", seat: 1, tile: S9, by: "bot" }), "bot 2 discarded 9♠"); // a bot seat: no mark
  assert.equal(
    words({ do: "presence", seat: 2, away: true, unresponsive: false }),
    "<b>Ion</b> left: a bot plays for them",
  );
  assert.equal(
    words({ do: "presence", seat: 2, away: false, unresponsive: true }),
    "<b>Ion</b> is not responding: a bot plays for them",
  );
  assert.equal(
    words({ do: "presence", seat: 2, away: false, unresponsive: false }),
    "<b>Ion</b> is back at the table",
  );
  assert.equal(words({ do: "round_start", round: 2, first: 1 }), "Round 2 dealt: bot 2 starts");
  assert.equal(words({ do: "round_over", round: 2, result: {} }), "Round 2 is over");
  setLang("ro");
  assert.equal(
    words({ do: "presence", seat: 2, away: true, unresponsive: false }),
    "<b>Ion</b> a plecat: joacă un bot în locul lui",
  );
  assert.equal(describe({ do: "room_changed" }, CARDS), null);
});

test("the log keeps each version once, in order, and at most LOG_MAX entries", () => {
  let log = logEvent(emptyLog(), 5, { do: "draw", seat: 1 });
  log = logEvent(log, 5, { do: "draw", seat: 1 }); // a replay of what it has
  log = logEvent(log, 4, { do: "discard", seat: 0 }); // older
  log = logEvent(log, 6, { do: "room_changed" }); // says nothing
  log = logRecent(log, [
    { version: 6, event: { do: "discard", seat: 1 } },
    { version: 7, event: { do: "discard", seat: 1 } },
  ]);
  assert.deepEqual(
    log.entries.map((e) => e.version),
    [5, 7],
  );
  for (let v = 8; v < 8 + LOG_MAX + 10; v++) log = logEvent(log, v, { do: "draw", seat: 0 });
  assert.equal(log.entries.length, LOG_MAX);
  assert.equal(log.last, 7 + LOG_MAX + 10);
});

const VIEW = {
  seat: 0,
  table: [
    { kind: "run", tiles: [1, 2, 3], owners: [1, 1, 1] },
    { kind: "set", tiles: [4, 17, 30], owners: [1, 1, 1] },
  ],
} as unknown as SeatView;

test("where another seat's move happened: new melds, the extended meld, the row, the stock", () => {
  const two = [{ tiles: [1, 2, 3] }, { tiles: [4, 17, 30] }];
  assert.deepEqual(flashOf({ do: "lay", seat: 1, melds: two, by: "bot" }, VIEW, 9, 1000), {
    version: 9,
    at: 1000,
    seat: 1,
    melds: [0, 1],
    row: null,
    stock: false,
  });
  assert.deepEqual(
    flashOf({ do: "layoff", seat: 1, meld: 1, tile: 43, by: "bot" }, VIEW, 9, 0)?.melds,
    [1],
  );
  assert.deepEqual(
    flashOf({ do: "buy_joker", seat: 1, meld: 0, tile: 2, by: "bot" }, VIEW, 9, 0)?.melds,
    [0],
  );
  const take = flashOf(
    { do: "take_discard", seat: 1, tile: 4, melds: [], layoffs: [{ tile: 4, meld: 0 }], by: "bot" },
    VIEW,
    9,
    0,
  );
  assert.equal(take?.row, "take");
  assert.deepEqual(take?.melds, [0]);
  assert.equal(
    flashOf(
      { do: "take_row", seat: 1, index: 0, tiles: [4], melds: two.slice(1), by: "bot" },
      VIEW,
      9,
      0,
    )?.melds[0],
    1,
  );
  assert.equal(flashOf({ do: "discard", seat: 1, tile: 4, by: "bot" }, VIEW, 9, 0)?.row, "discard");
  assert.equal(flashOf({ do: "draw", seat: 1, by: "bot" }, VIEW, 9, 0)?.stock, true);
  // This seat's own moves are not highlighted, unless a bot made them for it.
  assert.equal(flashOf({ do: "discard", seat: 0, tile: 4, by: "player" }, VIEW, 9, 0), null);
  assert.equal(
    flashOf({ do: "discard", seat: 0, tile: 4, by: "timeout" }, VIEW, 9, 0)?.row,
    "discard",
  );
  assert.equal(flashOf({ do: "presence", seat: 1, away: true }, VIEW, 9, 0), null);
});

test("the room's messages fill the log: events as they come, a snapshot's recent events", () => {
  const snap = {
    type: "snapshot",
    version: 7,
    room: { id: "r", status: "playing", settings: { variant: "remi" }, round: 1, turn_seconds: 30 },
    you: { player_id: "p", seat: 0 },
    seats: [],
    view: VIEW,
    rack: null,
    deadline: null,
    server_time: 100,
    scores: { rounds: [], totals: [], over: false, winners: [] },
    last_seq: null,
    recent: [
      { version: 6, event: { do: "round_start", round: 1, first: 1 } },
      { version: 7, event: { do: "discard", seat: 1, tile: 4, by: "bot" } },
    ],
  } as unknown as Snapshot;
  let room = applyMessage(emptyRoom(), snap, 100).room;
  assert.deepEqual(
    room.log.entries.map((e) => e.version),
    [6, 7],
  );
  const ev = (version: number, event: Record<string, unknown>, replay = false): EventMessage =>
    ({
      type: "event",
      version,
      event,
      view: VIEW as unknown as Record<string, unknown>,
      seats: null,
      deadline: null,
      server_time: 100,
      scores: null,
      replay,
    }) as EventMessage;
  room = applyMessage(room, ev(8, { do: "draw", seat: 0, by: "player", tile: 3 }), 100).room;
  assert.equal(room.flash, null); // own move
  room = applyMessage(
    room,
    ev(9, { do: "layoff", seat: 1, meld: 1, tile: 43, by: "bot" }),
    101,
  ).room;
  assert.deepEqual([room.flash?.version, room.flash?.melds, room.flash?.at], [9, [1], 101000]);
  room = applyMessage(room, ev(10, { do: "discard", seat: 1, tile: 5, by: "bot" }, true), 102).room;
  assert.equal(room.flash?.version, 9); // a replayed event is logged, not highlighted
  assert.deepEqual(
    room.log.entries.map((e) => e.version),
    [6, 7, 8, 9, 10],
  );
  // A later snapshot (a reconnect) keeps the log and adds what is newer.
  room = applyMessage(
    room,
    {
      ...snap,
      version: 12,
      recent: [
        { version: 10, event: { do: "discard", seat: 1, tile: 5 } },
        { version: 12, event: { do: "draw", seat: 2 } },
      ],
    } as unknown as Snapshot,
    103,
  ).room;
  assert.deepEqual(
    room.log.entries.map((e) => e.version),
    [6, 7, 8, 9, 10, 12],
  );
});
