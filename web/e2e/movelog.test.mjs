// What the others did, and what a joker is, on the table: the move log in words (both
// languages; a bot's stock draw shows no tile), who discarded each row tile, where the
// last move of another seat happened, a table joker showing the tile it stands for, a
// bought-back joker looking consumed, the log after a reload (the snapshot's recent
// events), a hostile display name kept as text; at phone sizes (360×740, 390×844) and on
// a desktop (1280×800).
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { DESKTOP, launch } from "./browser.mjs";
import {
  drag,
  findRun,
  layFormation,
  plainTurn,
  read,
  shot,
  slotOf,
  slotSel,
  startPractice,
  waitMyTurn,
  waitNotMyTurn,
} from "./play.mjs";
import { startServer } from "./server.mjs";

// Seat 0's hand: a joker and a natural run of five (6♥..10♥) (as in joker.test.mjs).
const SEED = "e2e-10102";
const NAME = "Dana <b>x</b>";

let server;
let player;

test.beforeAll(async () => {
  server = await startServer({ REMI_E2E_SEEDS: SEED });
  player = await launch(DESKTOP);
});

test.afterAll(async () => {
  await player?.close();
  await server?.stop();
});

/** The log's entries as text, oldest first (the whole round's, from the panel). */
async function logTexts(page) {
  await page.click("[data-testid=moves-open]");
  await page.waitForSelector("[data-testid=moves-panel]");
  const texts = await page.$$eval("[data-testid=moves-panel] .move-text", (els) =>
    els.map((e) => e.textContent.trim()),
  );
  await page.click("[data-testid=moves-close]");
  await page.waitForSelector("[data-testid=moves-panel]", { state: "detached" });
  return texts;
}

test("move log, row discarders, highlights and what a table joker stands for", async () => {
  test.setTimeout(180_000);
  const page = await player.page();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await startPractice(page, server.url, NAME, "remi");

  let st = await waitMyTurn(page);
  const joker = st.hand.find((t) => t >= 104);
  const run = findRun(st.hand, 5);
  assert.ok(joker !== undefined && run, "the scripted deal");
  // The joker in the hand has a joker's face: a star, never a 'J'.
  const jokerFace = await page.locator(`[data-testid=rack] [data-tile="${joker}"]`).textContent();
  assert.ok(jokerFace.includes("★") && !jokerFace.startsWith("J"), jokerFace);
  await plainTurn(page, [joker, ...run]); // first turn: discard only
  await waitNotMyTurn(page);
  st = await waitMyTurn(page);

  // The log: the round's start, this seat's discard (in the second person: the player's
  // own), the bot's draw (no tile shown) and its discard.
  let texts = await logTexts(page);
  assert.match(texts[0], /^Runda 1 a fost împărțită: începi tu$/);
  // The hostile name is text on the seat's card (the practice's seat 0), never markup.
  assert.match(await page.locator("[data-testid=seat-0]").textContent(), /Dana <b>x<\/b>/);
  assert.equal(await page.locator("[data-testid=seat-0] b").count(), 0);
  assert.ok(
    texts.some((x) => /^Ai aruncat \S+$/.test(x)),
    texts.join("\n"),
  );
  assert.ok(
    texts.includes("bot 2 a tras din talon") || texts.some((x) => x.startsWith("bot 2 a luat")),
    texts.join("\n"),
  );
  assert.ok(
    texts.some((x) => /^bot 2 a aruncat \S+$/.test(x)),
    texts.join("\n"),
  );
  const lastBot = Number(/^bot (\d) a aruncat/.exec(texts.at(-1))?.[1]) - 1;
  assert.ok(lastBot >= 1, texts.at(-1));
  assert.equal(await page.locator(".moves-box b, [data-testid=moves-last] b").count(), 0);
  assert.ok((await page.locator("[data-testid=moves-last] bdi").count()) > 0);

  // Who discarded each row tile: the last bot's discard is the row's newest, marked as
  // its seat's, and the highlight of its last move is on it.
  const rowBy = await page.$$eval(".row-tiles .rtile", (els) => els.map((e) => e.dataset.by));
  assert.equal(rowBy.at(-1), String(lastBot));
  assert.ok(
    rowBy.every((x) => /^[0-3]$/.test(x)),
    rowBy.join(),
  );
  const newest = page.locator(".row-tiles .rtile").last();
  assert.ok(
    Number(await newest.getAttribute("data-flashed")) > 0,
    "the bot's discard is highlighted",
  );
  assert.match(
    await newest.getAttribute("aria-label"),
    new RegExp(`aruncată de bot ${lastBot + 1}$`),
  );
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, "movelog-phone.png");
  await page.setViewportSize(DESKTOP.viewport);

  // Open with 6♥ JK 8♥: the joker on the table shows 7♥, the tile that buys it back.
  await page.click("[data-testid=stock]");
  await page.waitForFunction(
    () => document.querySelector("[data-testid=status]")?.dataset.phase === "build",
  );
  const meld = await layFormation(page, [run[0], joker, run[2]]);
  const onTable = page.locator(`[data-testid=meld-${meld}] [data-tile="${joker}"]`);
  assert.equal((await onTable.textContent()).trim(), "7♥★"); // 7♥, the joker's star
  // The owner's mark, drawn by the style sheet from its letter.
  assert.equal(await onTable.locator(".own").getAttribute("data-initial"), "D");
  assert.equal(
    await onTable
      .locator(".own")
      .evaluate((el) => getComputedStyle(el, "::after").content.replaceAll('"', "")),
    "D",
  );
  assert.match(await onTable.getAttribute("aria-label"), /^joker, ține locul: 7 de cupă ♥$/);
  await shot(page, "joker-stands-desktop.png");
  await page.setViewportSize({ width: 360, height: 740 });
  await shot(page, "joker-stands-phone.png");
  await page.setViewportSize(DESKTOP.viewport);

  // Buy it back with 7♥: the joker comes into the hand consumed, and looks it.
  st = await read(page);
  await drag(
    page,
    slotSel(slotOf(st, run[1])),
    `[data-testid=meld-${meld}] [data-tile="${joker}"]`,
  );
  await page.waitForSelector(`[data-testid=rack] .tile.consumed[data-tile="${joker}"]`);
  texts = await logTexts(page);
  assert.ok(
    texts.some((x) => /^Ai deschis cu .*\[6♥ ★ 8♥\]/.test(x)),
    texts.join("\n"),
  );
  assert.ok(
    texts.some((x) => /^Ai cumpărat jokerul din formația \d+ cu 7♥$/.test(x)),
    texts.join("\n"),
  );
  await shot(page, "joker-consumed-desktop.png");

  // In English.
  await page.click("[data-testid=lang]");
  texts = await logTexts(page);
  assert.ok(
    texts.some((x) => /^You bought back the joker of meld \d+ with 7♥$/.test(x)),
    texts.join("\n"),
  );
  assert.ok(
    texts.includes("bot 2 drew from the stock") || texts.some((x) => x.startsWith("bot 2 took")),
    texts.join("\n"),
  );
  await page.click("[data-testid=moves-open]");
  await page.setViewportSize({ width: 390, height: 844 });
  await shot(page, "movelog-panel-english-phone.png");
  await page.click("[data-testid=moves-close]");
  await page.setViewportSize(DESKTOP.viewport);
  await page.click("[data-testid=lang]");

  // A reload: the snapshot brings the round's recent events, the log goes on.
  await page.reload();
  await page.waitForSelector("[data-testid=rack] .tile");
  const reloaded = await logTexts(page);
  assert.ok(
    reloaded.some((x) => /^Ai cumpărat jokerul din formația \d+ cu 7♥$/.test(x)),
    reloaded.join("\n"),
  );
  assert.ok(reloaded[0].startsWith("Runda 1"), reloaded[0]);

  // The turn ends; the bot's moves come into the log as they happen.
  const count = reloaded.length;
  await plainTurn(page, [joker]);
  await waitNotMyTurn(page);
  st = await waitMyTurn(page, 60_000);
  if (!st.summary) {
    const later = await logTexts(page);
    assert.ok(later.length >= count + 2, `${count} -> ${later.length}`);
  }
  assert.deepEqual(errors, []);
});
