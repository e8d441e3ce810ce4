// Jokers, the atu and a lost connection, in a practice game with a scripted deal:
// an opening holding a joker, the joker bought back by dropping the tile it stands for on
// it, the atu dragged into a rack formation and refused (it is taken only when going out),
// then the server restarts under the player: the banner shows, the client reconnects by
// itself and the game goes on.
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { DESKTOP, launch } from "./browser.mjs";
import {
  closeToast,
  drag,
  emptyStretch,
  face,
  findMeld,
  findRun,
  layFormation,
  placeTiles,
  plainTurn,
  read,
  shot,
  slotOf,
  slotSel,
  startPractice,
  waitMyTurn,
  waitNotMyTurn,
  waitToastText,
} from "./play.mjs";
import { startServer } from "./server.mjs";

// Seat 0's hand (docs/fairness.md deals it from the seed): a joker, a natural run of five
// (6♥..10♥), and Q♠ Q♣ beside the atu Q♥.
const SEED = "e2e-10102";

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

test("joker buy-back, the atu refused, reconnect after a server restart", async () => {
  test.setTimeout(180_000);
  const page = await player.page();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await startPractice(page, server.url, "Dana", "remi");

  let st = await waitMyTurn(page);
  const joker = st.hand.find((t) => t >= 104);
  const run = findRun(st.hand, 5);
  const atu = Number(await page.locator("[data-testid=atu]").getAttribute("data-tile"));
  const rest = st.hand.filter((t) => t !== joker && !run.includes(t));
  const atuMeld = findMeld([...rest, atu], atu)?.tiles;
  assert.ok(joker !== undefined && run && atuMeld, "the scripted deal");
  const keep = [joker, ...run, ...atuMeld];
  await plainTurn(page, keep); // first turn: discard only
  await waitNotMyTurn(page);

  st = await waitMyTurn(page);
  await page.click("[data-testid=stock]");
  await page.waitForFunction(
    () => document.querySelector("[data-testid=status]")?.dataset.phase === "build",
  );

  // Open with a joker inside the run: 6♥ JK 8♥ (the joker stands for 7♥).
  const meld = await layFormation(page, [run[0], joker, run[2]]);
  st = await read(page);
  assert.deepEqual(st.melds[meld], [run[0], joker, run[2]]);

  // Buy the joker back: drop 7♥ on it.
  await drag(
    page,
    slotSel(slotOf(st, run[1])),
    `[data-testid=meld-${meld}] [data-tile="${joker}"]`,
  );
  await page.waitForFunction(
    ([k, t]) => !!document.querySelector(`[data-testid=meld-${k}] [data-tile="${t}"]`),
    [meld, run[1]],
  );
  st = await read(page);
  assert.deepEqual(st.melds[meld], [run[0], run[1], run[2]]);
  assert.ok(st.hand.includes(joker), "the joker came into the hand");
  // A bought-back joker is consumed: it shows as a white tile.
  await page.waitForSelector(`[data-testid=rack] .tile.consumed[data-tile="${joker}"]`);

  // The atu: dragged into a formation on the rack, laid, refused with the reason (it is
  // taken only when that lay leaves one tile). Nothing on the table changes.
  const start = emptyStretch(
    st,
    3,
    atuMeld.filter((t) => t !== atu),
  );
  const handPart = atuMeld.filter((t) => t !== atu);
  const order = atuMeld; // low to high
  for (const t of handPart) {
    const cur = await read(page);
    const to = start + order.indexOf(t);
    if (slotOf(cur, t) !== to) await placeTiles(page, [t], to);
  }
  await drag(page, "[data-testid=atu]", slotSel(start + order.indexOf(atu)));
  await page.waitForSelector(`[data-testid=rack] .tile.atu-pending[data-tile="${atu}"]`);
  await page.waitForSelector(`[data-testid=formation-${start}] .fval`);
  const before = await read(page);
  await page.click("[data-testid=lay]");
  assert.equal(
    await waitToastText(page),
    "Atuul se ia doar când formația îți lasă o singură piesă.",
  );
  let now = await read(page);
  assert.deepEqual(now.melds, before.melds);
  assert.deepEqual(now.hand, before.hand);
  await closeToast(page);
  await page.click("[data-testid=pending-cancel]");
  await page.waitForSelector(`[data-testid=rack] [data-tile="${atu}"]`, { state: "detached" });
  await page.waitForSelector("[data-testid=atu]:not(.faded)");

  // The server goes away: the banner says so; it comes back: the client reconnects by
  // itself (no reload) and the turn goes on where it was.
  const mark = await page.evaluate(() => (window.__remiMark = Math.random()));
  st = await read(page);
  await server.kill();
  await page.waitForSelector("[data-testid=conn-banner].show");
  assert.match(await page.locator("[data-testid=conn-banner]").textContent(), /Reconectare/);
  await shot(page, "reconnecting-desktop.png");
  await server.restart();
  await page
    .waitForSelector("[data-testid=conn-banner].show", { state: "detached", timeout: 30_000 })
    .catch(async () => {
      await page.waitForFunction(
        () => !document.querySelector("[data-testid=conn-banner]")?.classList.contains("show"),
        null,
        { timeout: 30_000 },
      );
    });
  assert.equal(await page.evaluate(() => window.__remiMark), mark, "no reload");
  now = await read(page);
  assert.ok(now.mine);
  assert.equal(now.phase, "build");
  assert.deepEqual([...now.hand].sort(), [...st.hand].sort());
  await plainTurn(page, keep);
  st = await waitMyTurn(page, 60_000);
  assert.ok(st.mine || st.summary, "the game goes on after the restart");
  assert.deepEqual(errors, []);
  void face;
});
