// A table meld's accessible name holds what its tiles show (WCAG 2.5.3, label in name):
// a joker is named by the face it shows, then what it stands for.
import * as assert from "node:assert/strict";
import { test } from "node:test";

import { setLang } from "../src/i18n";
import { meldLabel, tileShown } from "../src/tiles";

// ids: face = id % 52, rank = face % 13 + 1, suit = face // 13 (0 spades, 1 hearts);
// 104 is a joker.
const SIX_SPADES = 5;
const SEVEN_SPADES = 6;
const SEVEN_HEARTS = 19;
const EIGHT_SPADES = 7;
const JOKER = 104;

test("a joker shows the face it stands for: its rank, then each suit it may be", () => {
  assert.equal(tileShown("cards", SIX_SPADES), "6♠");
  assert.equal(tileShown("cards", JOKER, [SEVEN_SPADES]), "7♠");
  assert.equal(tileShown("cards", JOKER, [SEVEN_SPADES, SEVEN_HEARTS]), "7♠♥");
  assert.equal(tileShown("cards", JOKER, null), "JOKER");
  assert.equal(tileShown("numbers", SEVEN_HEARTS), "7■");
});

test("a meld's name: its tiles as they show, in order, then what each joker stands for", () => {
  setLang("ro");
  const tiles = [SIX_SPADES, JOKER, EIGHT_SPADES];
  assert.equal(
    meldLabel("cards", 2, "run", tiles, [null, [SEVEN_SPADES], null]),
    "Formația 2 (scară): 6♠ 7♠ 8♠; joker, ține locul: 7♠",
  );
  assert.equal(
    meldLabel("cards", 1, "set", [SEVEN_SPADES, SEVEN_HEARTS], undefined),
    "Formația 1 (combinație): 7♠ 7♥",
  );
  setLang("en");
  assert.match(
    meldLabel("cards", 2, "run", tiles, [null, [SEVEN_SPADES], null]),
    /^Meld 2 \(.+\): 6♠ 7♠ 8♠; .*7♠$/,
  );
});
