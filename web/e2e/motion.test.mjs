// Tiles move (src/table/motion.ts): a rack move glides in at most 300 ms without blocking
// the next tap, a draw glides in from the stock, a new deal comes from the stock; with the
// system's reduced motion nothing animates and the table is the same.
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { launch, PHONE } from "./browser.mjs";
import { plainTurn, read, shot, slotSel, startPractice, waitMyTurn } from "./play.mjs";
import { startServer } from "./server.mjs";

const running = [];
test.afterAll(async () => {
  for (const x of running.reverse()) await x.close?.().catch?.(() => undefined);
});

/** The tiles' glides running now (not the 2.6 s glow of another seat's last move): how
 * many, the longest (delay + duration). */
async function tileAnimations(page) {
  return page.evaluate(() => {
    const xs = document.getAnimations().filter((a) => a.id === "glide");
    return {
      n: xs.length,
      longest: Math.max(
        0,
        ...xs.map((a) => (a.effect.getTiming().delay ?? 0) + Number(a.effect.getTiming().duration)),
      ),
    };
  });
}

/** The glides of the first frame in which the rack holds more than `n` tiles (-1: any
 * number) and a glide runs, looked at in the page on every frame: a glide lasts at most
 * 300 ms, which a look from the test (a round trip to a busy browser) can miss. */
async function glidesOnceDrawn(page, n) {
  const handle = await page.waitForFunction(
    (k) => {
      if (document.querySelectorAll("[data-testid=rack] .tile").length <= k) return false;
      const xs = document.getAnimations().filter((a) => a.id === "glide");
      if (xs.length === 0) return false;
      const ends = xs.map(
        (a) => (a.effect.getTiming().delay ?? 0) + Number(a.effect.getTiming().duration),
      );
      return { n: xs.length, longest: Math.max(...ends) };
    },
    n,
    { timeout: 10_000 },
  );
  return handle.jsonValue();
}

for (const reduced of [false, true]) {
  test(`${reduced ? "reduced motion: nothing moves" : "motion: tiles glide, ≤ 300 ms, input never blocked"}`, async () => {
    test.setTimeout(180_000);
    const server = await startServer({ REMI_E2E_SEEDS: "e2e-12" });
    const player = await launch({ ...PHONE, reducedMotion: reduced ? "reduce" : "no-preference" });
    running.push(player, { close: () => server.stop() });
    const page = await player.page();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await startPractice(page, server.url, "Ana", "remi");
    let st = await waitMyTurn(page);
    // A rack move by taps: the tile is in its new slot at once, and travels there.
    const tile = st.rack.find((x) => x.tile !== null);
    const empty = [...st.rack].reverse().find((x) => x.tile === null);
    await page.click(slotSel(tile.slot));
    await page.click(slotSel(empty.slot));
    const moving = reduced ? await tileAnimations(page) : await glidesOnceDrawn(page, -1);
    assert.equal(
      await page.locator(slotSel(empty.slot)).getAttribute("data-tile"),
      String(tile.tile),
      "the tile is in its slot at once",
    );
    if (reduced) {
      assert.equal(moving.n, 0, "no animation under reduced motion");
    } else {
      assert.ok(moving.n >= 1, "the tile travels");
      assert.ok(moving.longest <= 300, `at most 300 ms (${moving.longest})`);
      // Input is not blocked: while it travels, another tap selects another tile.
      const other = st.rack.find((x) => x.tile !== null && x.slot !== tile.slot);
      await page.click(slotSel(other.slot));
      assert.equal(await page.locator(`${slotSel(other.slot)}.selected`).count(), 1);
      await page.click(slotSel(other.slot)); // unselect
    }
    await plainTurn(page);
    // A draw: the new tile comes from the stock.
    st = await waitMyTurn(page, 90_000);
    if (st.phase === "take") {
      await page.click("[data-testid=stock]");
      if (reduced) {
        await page.waitForFunction(
          (n) => document.querySelectorAll("[data-testid=rack] .tile").length > n,
          st.hand.length,
        );
        assert.equal((await tileAnimations(page)).n, 0);
      } else {
        const drawn = await glidesOnceDrawn(page, st.hand.length);
        assert.ok(drawn.n >= 1 && drawn.longest <= 300, JSON.stringify(drawn));
      }
      await shot(page, `motion-draw-${reduced ? "reduced" : "on"}-phone.png`);
    }
    assert.deepEqual(errors, []);
    void read;
  });
}
