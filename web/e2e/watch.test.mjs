// Spectators: a public table being played is listed in the lobby with
// "Watch"; a player who is not seated opens it and follows it live: the seats, the row,
// the melds and the move log, with no rack, no hand and no reactions; a private table is
// not listed.
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { DESKTOP, PHONE } from "./browser.mjs";
import { shot } from "./play.mjs";
import { browserSession } from "./session.mjs";

// Bots at 0.4 s a move: the round is still being played when the spectator arrives (at
// 0.05 s a table of bots can finish its round before the spectator has found it).
const session = browserSession({ REMI_BOT_DELAY_SECONDS: "0.4" });
const { open, named, problems } = session;

async function botTable(page, visibility) {
  await page.goto(`${session.server.url}/#/`);
  await page.waitForSelector("[data-testid=create-form]");
  await page.selectOption("[data-testid=s-variant]", "remi");
  await page.selectOption("[data-testid=s-seats]", "3");
  await page.selectOption("[data-testid=s-vis]", visibility);
  await page.check("[data-testid=s-bots]");
  await page.click("[data-testid=create-room]");
  await page.waitForSelector("[data-testid=waiting-room]");
  await page.click("[data-testid=start]");
  await page.waitForSelector("[data-testid=rack] .tile");
  return decodeURIComponent(new URL(page.url()).hash.split("/").pop());
}

test("a public table is watched live from the lobby; a private one is not listed", async () => {
  test.setTimeout(180_000);
  const ana = await open(DESKTOP);
  await named(ana, "Ana");
  const hidden = await botTable(ana, "private");
  const room = await botTable(ana, "public");
  // Ana leaves her seat to a bot: the table goes on by itself.
  await ana.click("[data-testid=leave]");

  const eve = await open(PHONE);
  await named(eve, "Eve");
  const watch = eve.locator(`[data-testid=watch-${room}]`);
  await watch.waitFor();
  assert.equal(await eve.locator(`[data-testid=watch-${hidden}]`).count(), 0);
  assert.equal(await watch.textContent(), "Privește");
  await watch.click();
  await eve.waitForSelector("[data-testid=table] [data-testid=seat-0]");
  await eve.waitForSelector("[data-testid=watching]");
  assert.equal(await eve.locator("[data-testid=rack]").count(), 0);
  assert.equal(await eve.locator("[data-testid=react-open]").count(), 0);
  assert.equal(await eve.locator("[data-testid=sound-toggle]").count(), 1);

  // The moves go on under the spectator's eyes: the log grows.
  const count = async () =>
    Number((await eve.locator("[data-testid=moves-open]").textContent()).match(/\((\d+)\)/)[1]);
  const first = await count();
  await eve.waitForFunction(
    (n) => {
      const m = document.querySelector("[data-testid=moves-open]")?.textContent?.match(/\((\d+)\)/);
      return m && Number(m[1]) >= n + 2;
    },
    first,
    { timeout: 60_000 },
  );
  assert.ok((await count()) >= first + 2);
  await shot(eve, "watch-phone.png");
  assert.deepEqual(problems, []);
});
