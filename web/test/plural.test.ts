// Words with numbers read right: the plural forms of Intl.PluralRules (i18n.ts `t`).
import * as assert from "node:assert/strict";
import { test } from "node:test";

import { formatWhen, setLang, t } from "../src/i18n";

test("Romanian: 1 piesă, 2 piese, 19 piese, 20 de piese, 101 piese", () => {
  setLang("ro");
  assert.equal(t("table.tiles", { n: 1 }), "1 piesă");
  assert.equal(t("table.tiles", { n: 2 }), "2 piese");
  assert.equal(t("table.tiles", { n: 19 }), "19 piese");
  assert.equal(t("table.tiles", { n: 20 }), "20 de piese");
  assert.equal(t("table.tiles", { n: 62 }), "62 de piese");
  assert.equal(t("table.tiles", { n: 101 }), "101 piese");
  assert.equal(t("practice.history.rounds", { n: 1 }), "1 rundă");
  assert.equal(t("practice.history.rounds", { n: 3 }), "3 runde");
  assert.equal(t("table.stock.count", { n: 48 }), "48 de piese în talon");
  assert.equal(t("coach.done", { n: 1 }), "Gata: 1 decizie a costat puncte.");
  assert.equal(t("coach.done", { n: 3 }), "Gata: 3 decizii au costat puncte.");
  assert.equal(t("coach.done", { n: 21 }), "Gata: 21 de decizii au costat puncte.");
});

test("English: 1 tile, 2 tiles; a key without plural forms is unchanged", () => {
  setLang("en");
  assert.equal(t("table.tiles", { n: 1 }), "1 tile");
  assert.equal(t("table.tiles", { n: 2 }), "2 tiles");
  assert.equal(t("practice.history.rounds", { n: 1 }), "1 round");
  assert.equal(t("table.round", { n: 1 }), "Round 1");
  setLang("ro");
});

test("dates and times in the interface's language, whatever the machine's", () => {
  const when = "2026-12-07T14:05:00Z";
  setLang("ro");
  assert.match(formatWhen(when, "date"), /dec\.? 2026/);
  assert.doesNotMatch(formatWhen(when, "date"), /Dec/);
  assert.match(formatWhen(when), /dec\.? 2026.*\d{2}:05/);
  setLang("en");
  assert.match(formatWhen(when, "date"), /Dec 2026/);
  assert.match(formatWhen(when, "time"), /^\d{2}:05$/);
  assert.equal(formatWhen("not a date"), "—");
  setLang("ro");
});
