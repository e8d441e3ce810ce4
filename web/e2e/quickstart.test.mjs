// Quick start and the leaderboards in the browser: two
// players press the same variant's quick start at once and land at the same table; the
// match (one round: each player plays one turn of their own, then their turns time out
// and bots play them) is rated and settled (a player who made no move of their own would
// earn nothing and not be rated: docs/economy.md); the leaderboard lists both by rating and by balance, and a profile shows the
// match; a lone player's table fills with bots after the wait. Romanian and English.
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { DESKTOP, launch, PHONE } from "./browser.mjs";
import { plainTurn, shot, waitMyTurn } from "./play.mjs";
import { startServer } from "./server.mjs";

let server;
const browsers = [];
const problems = [];

test.beforeAll(async () => {
  server = await startServer({
    REMI_QUICK_START_SEATS: "2",
    REMI_QUICK_START_ROUNDS: "1",
    // Long enough for a browser on a busy machine to draw the waiting room before the bots
    // fill the table and it starts.
    REMI_QUICK_START_WAIT_SECONDS: "6",
    REMI_TURN_TIME_SCALE: "0.03", // 60 s turns last 1.8 s: the seats time out, bots play them
    REMI_UNRESPONSIVE_AFTER_TIMEOUTS: "1",
  });
});

test.afterAll(async () => {
  for (const b of browsers) await b.close();
  await server?.stop();
});

function watch(page) {
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
}

async function guest(options, name) {
  const b = await launch(options);
  browsers.push(b);
  const page = await b.page();
  watch(page);
  await page.goto(server.url);
  await page.fill("[data-testid=name-input]", name);
  await page.click("[data-testid=name-save]");
  await page.waitForSelector(`[data-testid=hello]:has-text('${name}')`);
  await page.waitForSelector("[data-testid=quick-remi]");
  return page;
}

const roomOf = (page) => decodeURIComponent(page.url().split("#/room/")[1] ?? "");

test("two quick starts at once share a table; the match is rated and on the leaderboard", async () => {
  test.setTimeout(240_000);
  const ana = await guest(DESKTOP, "Ana");
  const bob = await guest(PHONE, "Bob");
  for (const p of [ana, bob]) {
    await p.waitForFunction(() =>
      /^\d+$/.test(document.querySelector("[data-testid=chip-balance]")?.textContent ?? ""),
    );
  }
  await shot(bob, "quickstart-lobby-phone.png");
  await shot(ana, "quickstart-lobby-desktop.png");
  await ana.waitForFunction(() =>
    /^\d+$/.test(document.querySelector("[data-testid=chip-balance]")?.textContent ?? ""),
  );
  assert.match(await ana.locator("[data-testid=chip-credits]").textContent(), /^\d+$/);

  await Promise.all([ana.click("[data-testid=quick-remi]"), bob.click("[data-testid=quick-remi]")]);
  await ana.waitForURL(/#\/room\//);
  await bob.waitForURL(/#\/room\//);
  assert.equal(roomOf(ana), roomOf(bob), "both land at the same table");
  // Two seats, both taken: the match starts at once, at the table.
  await ana.waitForSelector("[data-testid=rack]", { timeout: 30_000 });
  await bob.waitForSelector("[data-testid=rack]", { timeout: 30_000 });

  // Each plays one turn of their own (an idle seat earns nothing and is not rated), then
  // the bots play the rest once the turns time out: the match ends, rated.
  await Promise.all(
    [ana, bob].map(async (p) => {
      await waitMyTurn(p);
      await plainTurn(p);
    }),
  );
  const ended = async (page) => {
    for (let i = 0; i < 200; i += 1) {
      const res = await page.evaluate(
        async (id) => (await fetch(`/api/rooms/${id}`)).json(),
        roomOf(page),
      );
      if (res.status === "finished") return;
      await page.waitForTimeout(500);
    }
    throw new Error("the match did not end");
  };
  await ended(ana);
  // The ratings are settled just after the match ends: the board is opened once they are.
  for (let i = 0; ; i += 1) {
    const board = await ana.evaluate(async () =>
      (await fetch("/api/leaderboards/rating/remi")).json(),
    );
    if (board.rows?.length === 2) break;
    assert.ok(i < 120, `both players rated: ${JSON.stringify(board)}`);
    await ana.waitForTimeout(500);
  }

  await ana.goto(`${server.url}/#/`);
  await ana.click("[data-testid=nav-leaderboard]");
  await ana.waitForSelector("[data-testid=leaderboard]");
  await ana.waitForFunction(
    () => document.querySelectorAll("[data-testid=board-row]").length === 2,
  );
  const names = await ana.locator("[data-testid=board-row] td:nth-child(2)").allTextContents();
  assert.deepEqual([...names].sort(), ["Ana", "Bob"]);
  assert.equal(
    await ana.locator("[data-testid=board-row] td:nth-child(1)").first().textContent(),
    "1",
  );
  assert.match(await ana.locator("[data-testid=board]").textContent(), /Jucătorii după rating la /);
  assert.ok(await ana.locator("[data-testid=board-more]").isHidden(), "two rows: one page");
  await ana.waitForFunction(() =>
    /^\d+$/.test(document.querySelector("[data-testid=chip-balance]")?.textContent ?? ""),
  );
  await shot(ana, "leaderboard-desktop.png");

  // The balance tab: both played a settled round.
  await ana.click("[data-testid=board-tab-balance]");
  await ana.waitForFunction(() =>
    document.querySelector("[data-testid=board]")?.textContent?.includes("Jucătorii după cont"),
  );
  await ana.waitForFunction(
    () => document.querySelectorAll("[data-testid=board-row]").length === 2,
  );

  // Bob's phone, in English: the leaderboard and his profile.
  await bob.goto(`${server.url}/#/`);
  await bob.click("[data-testid=lang]");
  await bob.click("[data-testid=nav-leaderboard]");
  await bob.waitForFunction(
    () => document.querySelectorAll("[data-testid=board-row]").length === 2,
  );
  assert.match(
    await bob.locator("[data-testid=board]").textContent(),
    /Players by rating in Classic Remi/,
  );
  await bob.waitForFunction(() =>
    /^\d+$/.test(document.querySelector("[data-testid=chip-balance]")?.textContent ?? ""),
  );
  await shot(bob, "leaderboard-phone.png");
  await bob.click("[data-testid=board-row] a:has-text('Bob')");
  await bob.waitForSelector("[data-testid=profile-remi]");
  assert.equal(await bob.locator("[data-testid=fig-remi-matches] dd").textContent(), "1");
  assert.equal(await bob.locator("[data-testid=fig-remi-rounds] dd").textContent(), "1");
  assert.match(await bob.locator("[data-testid=fig-remi-rating] dd").textContent(), /^\d{3,4}$/);
  await bob.waitForSelector("[data-testid=match]");
  assert.match(await bob.locator("[data-testid=profile-matches]").textContent(), /with Ana/);
  await shot(bob, "profile-phone.png");
  await ana.click("[data-testid=board-row] a:has-text('Ana')");
  await ana.waitForSelector("[data-testid=profile-remi] svg.spark");
  await ana.waitForSelector("[data-testid=match]");
  assert.match(
    await ana.locator("[data-testid=profile-remi]").textContent(),
    /Ratingul: de la 1500 la \d{3,4} într-un meci evaluat/,
  );
  await shot(ana, "profile-desktop.png");
  assert.deepEqual(problems, []);
});

test("a lone quick start fills with bots after the wait", async () => {
  test.setTimeout(120_000);
  const cip = await guest(PHONE, "Cip");
  await cip.click("[data-testid=quick-etalat]");
  await cip.waitForURL(/#\/room\//);
  await cip.waitForSelector("[data-testid=waiting-room] [data-testid=quick-waiting]");
  await cip.waitForFunction(() =>
    /^\d+$/.test(document.querySelector("[data-testid=chip-balance]")?.textContent ?? ""),
  );
  await shot(cip, "quickstart-waiting-phone.png");
  await cip.waitForSelector("[data-testid=rack]", { timeout: 30_000 });
  const room = await cip.evaluate(
    async (id) => (await fetch(`/api/rooms/${id}`)).json(),
    roomOf(cip),
  );
  assert.equal(room.settings.kind, "quick");
  assert.equal(room.seats[1].bot_level, "normal");
  assert.deepEqual(problems, []);
});
