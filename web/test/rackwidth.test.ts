// The rack on a narrow screen: fewer columns, more rows, every formation kept whole, and
// the layout saved for every device in rows of 14 (state.ts colsFor, rack.ts reflow).
import * as assert from "node:assert/strict";
import { test } from "node:test";

import { Rack, reflow } from "../src/rack";
import { colsFor, COLS, nextSlot } from "../src/table/state";

const groups = (slots: (number | null)[], cols: number) => {
  const r = new Rack(cols, 1);
  r.slots = slots;
  return r.formations(1).map((f) => f.tiles);
};

test("a phone's width gives fewer columns, tiles of 34 px or more; a wide screen all 14", () => {
  assert.equal(colsFor(1280), COLS);
  assert.equal(colsFor(360), 9);
  assert.equal(colsFor(390), 10);
  for (const w of [320, 360, 390, 412, 500]) {
    const cols = colsFor(w);
    assert.ok(cols < COLS && cols >= 7);
    assert.ok((w - 16 - (cols - 1) * 3) / cols >= 34 || cols === 7, `${w}: ${cols}`);
  }
});

test("narrowing a rack keeps each group whole and in order; widening it back restores it", () => {
  const wide = [
    0,
    1,
    2,
    null,
    5,
    6,
    7,
    8,
    null,
    20,
    null,
    30,
    31,
    32,
    /* row 2 */ 40,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
    null,
  ];
  const narrow = reflow(wide, 14, 9);
  assert.equal(narrow.length % 9, 0);
  assert.deepEqual(groups(narrow, 9), [[0, 1, 2], [5, 6, 7, 8], [20], [30, 31, 32], [40]]);
  // Back to 14: every group still whole, in the same order.
  const back = reflow(narrow, 9, 14);
  assert.deepEqual(groups(back, 14), [[0, 1, 2], [5, 6, 7, 8], [20], [30, 31, 32], [40]]);
  // A layout made on the phone survives a round trip exactly.
  assert.deepEqual(reflow(reflow(narrow, 9, 14), 14, 9), narrow);
  // A row that fits keeps its columns.
  assert.deepEqual(
    reflow([null, 3, 4, 5, null, null, null, null, null, null, null, null, null, null], 14, 9),
    [null, 3, 4, 5, null, null, null, null, null],
  );
});

test("a group longer than the narrow row is cut only then; nothing is lost", () => {
  const wide = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, null, null, null];
  const narrow = reflow(wide, 14, 9);
  assert.deepEqual(
    narrow.filter((x) => x !== null),
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
  );
});

test("arrow keys move by the rack's own row width", () => {
  assert.equal(nextSlot("ArrowDown", 3, 9), 12);
  assert.equal(nextSlot("End", 10, 9), 17);
  assert.equal(nextSlot("ArrowUp", 20), 6);
});
