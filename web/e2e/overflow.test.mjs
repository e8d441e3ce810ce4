// At 360×740 no element of the lobby, the table, the score sheet, a replay, a deal check
// or a tournament's page sticks out sideways (what is wider scrolls inside its own box),
// and the page never scrolls sideways.
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { launch } from "./browser.mjs";
import { botRound, overflowing, shot } from "./play.mjs";
import { startServer } from "./server.mjs";

const PHONE_360 = {
  viewport: { width: 360, height: 740 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};
const running = [];
test.afterAll(async () => {
  for (const x of running.reverse()) await x.close?.().catch?.(() => undefined);
});

test("phone-360: lobby, table, score sheet, replay, deal check and tournament page within the screen", async () => {
  test.setTimeout(300_000);
  const server = await startServer();
  const player = await launch(PHONE_360);
  running.push(player, { close: () => server.stop() });
  const page = await player.page();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await page.goto(server.url);
  await page.fill("[data-testid=name-input]", "Ana");
  await page.click("[data-testid=name-save]");
  await page.waitForSelector("[data-testid=create-form]");
  assert.deepEqual(await overflowing(page), [], "lobby");

  // A finished bot round: its table, score sheet, replay and deal check.
  const room = await botRound(page, server.url);
  await page.goto(`${server.url}/#/room/${encodeURIComponent(room)}`);
  // The finished round's summary first (the table behind it).
  await page.waitForSelector("[data-testid=summary]");
  assert.deepEqual(await overflowing(page), [], "round summary");
  await page.click("[data-testid=summary-close]");
  await page.click("[data-testid=scores-open]");
  await page.waitForSelector(`[data-testid=scores-replay-1]`);
  assert.deepEqual(await overflowing(page), [], "score sheet");
  await shot(page, "score-sheet-phone-360.png");
  await page.goto(`${server.url}/#/replay/${encodeURIComponent(room)}/1`);
  await page.waitForSelector("[data-testid=replay]");
  assert.deepEqual(await overflowing(page), [], "replay");
  await page.goto(`${server.url}/#/verify/${encodeURIComponent(room)}/1`);
  await page.waitForSelector("[data-testid=verify]");
  assert.deepEqual(await overflowing(page), [], "deal check");

  // A tournament's page, opened by its link.
  const list = await (await fetch(`${server.url}/api/tournaments`)).json();
  const tour = list.tournaments[0];
  assert.ok(tour, "a tournament is listed");
  await page.goto(`${server.url}/#/tournament/${encodeURIComponent(tour.id)}`);
  await page.waitForSelector("[data-testid=tournament-page]");
  assert.deepEqual(await overflowing(page), [], "tournament page");
  await shot(page, "tournament-page-phone-360.png");
  assert.deepEqual(errors, []);
});
