// The browser's own check of a deal (src/fair): its SHA-256 against FIPS 180's vectors and
// node's crypto, and its shuffle and deal against docs/fairness.md's test vectors, which
// the server's engine passes too (tests/rules/test_fairness.py).
import * as assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { test } from "node:test";

import { hex, sha256, utf8 } from "../src/fair/sha256";
import { commitment, dealFrom, shuffle, tileSet } from "../src/fair/shuffle";
import type { VariantFacts } from "../src/protocol.gen";

const DOC = readFileSync(resolve(process.cwd(), "..", "docs", "fairness.md"), "utf8");

interface Vector {
  family: string;
  variant: string;
  players: number;
  first: number;
  short_game: boolean;
  seed: string;
  commitment: string;
  block0: string;
  order: number[];
  hands: string[];
  atu: string | null;
  stock: string;
}

function vectors(): Vector[] {
  const part = DOC.split("## Test vectors")[1];
  return JSON.parse(part.split("```json\n")[1].split("\n```")[0]) as Vector[];
}

test("SHA-256: FIPS 180's vectors and node's crypto on every length around the blocks", () => {
  assert.equal(
    hex(sha256(utf8("abc"))),
    "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
  );
  assert.equal(
    hex(sha256(utf8(""))),
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
  );
  assert.equal(
    hex(sha256(utf8("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"))),
    "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
  );
  for (let n = 0; n < 200; n++) {
    const bytes = Uint8Array.from({ length: n }, (_, i) => (i * 37 + n * 11) & 0xff);
    assert.equal(
      hex(sha256(bytes)),
      createHash("sha256").update(bytes).digest("hex"),
      `length ${n}`,
    );
  }
  assert.equal(commitment("ș"), createHash("sha256").update("ș", "utf8").digest("hex"));
});

// Faces as docs/fairness.md writes them: family A "AS".."KC", family B "1R".."13Y", "JK".
function faceText(family: string, id: number): string {
  if (id >= 104) return "JK";
  const face = id % 52;
  const rank = (face % 13) + 1;
  const suit = Math.floor(face / 13);
  if (family === "B") return `${rank}${"RBKY"[suit]}`;
  return `${"A23456789TJQK"[rank - 1]}${"SHDC"[suit]}`;
}

// The catalogue's facts this check reads (GET /api/variants), per family.
function facts(v: Vector): VariantFacts {
  const a = v.family === "A";
  return {
    tiles: 106,
    first_joker_id: 104,
    hand: a ? [15, 14] : [22, 21],
    atu: a,
    short_game: a ? { players: 2, tiles: 54, hand: [11, 10] } : null,
  } as unknown as VariantFacts;
}

test("the vectors of docs/fairness.md: commitment, order and deal, one per family", () => {
  const all = vectors();
  assert.deepEqual(all.map((v) => `${v.family}${v.short_game ? " short" : ""}`).sort(), [
    "A",
    "A short",
    "B",
  ]);
  for (const v of all) {
    assert.equal(commitment(v.seed), v.commitment);
    assert.equal(hex(sha256(utf8(`remi-shuffle/1:${v.seed}:0`))), v.block0);
    const { ids, sizes } = tileSet(facts(v), v.short_game);
    const order = shuffle(ids, v.seed);
    assert.deepEqual(order, v.order, v.seed);
    const deal = dealFrom(order, v.players, v.first, sizes, facts(v).atu);
    const text = (tiles: number[]) => tiles.map((x) => faceText(v.family, x)).join(" ");
    assert.deepEqual(deal.hands.map(text), v.hands);
    assert.equal(deal.atu === null ? null : faceText(v.family, deal.atu), v.atu);
    assert.equal(text(deal.stock), v.stock);
  }
  assert.deepEqual(shuffle([7, 6, 5, 4, 3, 2, 1, 0], "doc"), [4, 0, 3, 6, 5, 2, 1, 7]);
});

test("a different seed deals differently; every order of the ids is reached", () => {
  const ids = Array.from({ length: 106 }, (_, i) => i);
  assert.notDeepEqual(shuffle(ids, "a"), shuffle(ids, "b"));
  assert.deepEqual(
    [...shuffle(ids, "a")].sort((x, y) => x - y),
    ids,
  );
  const seen = new Set<string>();
  for (let i = 0; i < 600; i++) seen.add(shuffle([0, 1, 2], `s${i}`).join());
  assert.equal(seen.size, 6);
});
