// Every tile in view on a phone, at 360×740, 390×844 and 1280×800: the whole rack without
// sideways scrolling (fewer columns, more rows), tap and drag still moving tiles, the melds
// on the table all seen (fitting their area, or scrolling inside it with a cue saying more
// are below), and the score sheet with every column on the screen.
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { DESKTOP, launch, PHONE } from "./browser.mjs";
import {
  drag,
  plainTurn,
  read,
  settled,
  shot,
  slotSel,
  startPractice,
  waitMyTurn,
} from "./play.mjs";
import { startServer } from "./server.mjs";

export const PHONE_360 = {
  viewport: { width: 360, height: 740 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};
const SIZES = [
  { name: "phone-360", opts: PHONE_360, cols: 9 },
  { name: "phone", opts: PHONE, cols: 10 },
  { name: "desktop", opts: DESKTOP, cols: 14 },
];

const running = [];
test.afterAll(async () => {
  for (const x of running.reverse()) await x.close?.().catch?.(() => undefined);
});

/** Where the rack's slots are against the screen and the rack's box. */
async function rackInView(page) {
  return page.evaluate(() => {
    const vw = window.innerWidth;
    const vh = window.innerHeight;
    const box = document.querySelector(".rack-box");
    const out = [];
    if (box.scrollWidth > box.clientWidth + 1)
      out.push(`the rack scrolls sideways (${box.scrollWidth} > ${box.clientWidth})`);
    for (const el of document.querySelectorAll("[data-testid=rack] [data-slot]")) {
      const r = el.getBoundingClientRect();
      if (r.left < -0.5 || r.right > vw + 0.5 || r.top < -0.5 || r.bottom > vh + 0.5)
        out.push(
          `slot ${el.dataset.slot} is off the screen (${Math.round(r.left)},${Math.round(r.top)}..${Math.round(r.right)},${Math.round(r.bottom)})`,
        );
    }
    if (document.documentElement.scrollWidth > vw) out.push("the page scrolls sideways");
    return out;
  });
}

/** The melds against their area: how many are cut or hidden, and which cue shows. */
async function meldsSeen(page) {
  return page.evaluate(() => {
    const area = document.querySelector("[data-testid=melds]");
    const a = area.getBoundingClientRect();
    const melds = [...area.querySelectorAll(".meld")];
    const hidden = melds.filter((m) => {
      const r = m.getBoundingClientRect();
      // Cut off by more than a pixel (what the cue counts, render.ts meldsCue).
      return (
        r.top < a.top - 1 || r.bottom > a.bottom + 1 || r.left < a.left - 1 || r.right > a.right + 1
      );
    }).length;
    const shown = (sel) => {
      const el = document.querySelector(sel);
      return !!el && !el.hidden && el.getBoundingClientRect().height > 0;
    };
    return {
      count: melds.length,
      hidden,
      below: shown("[data-testid=melds-more-below]"),
      above: shown("[data-testid=melds-more-above]"),
      scrolls: area.scrollHeight > area.clientHeight + 1,
      sideways: area.scrollWidth > area.clientWidth + 1,
    };
  });
}

/** Cells of the score sheet off the screen or outside the sheet. */
async function scoreSheetCut(page) {
  return page.evaluate(() => {
    const vw = window.innerWidth;
    const sheet = document.querySelector("[data-testid=scores]").getBoundingClientRect();
    const out = [];
    for (const el of document.querySelectorAll(
      "[data-testid=scores] th, [data-testid=scores] td",
    )) {
      const r = el.getBoundingClientRect();
      if (r.left < Math.max(0, sheet.left) - 0.5 || r.right > Math.min(vw, sheet.right) + 0.5)
        out.push(
          `"${el.textContent.trim().slice(0, 20)}" (${Math.round(r.left)}..${Math.round(r.right)})`,
        );
    }
    const scroller = document.querySelector("[data-testid=scores] .scroll-x");
    if (scroller && scroller.scrollWidth > scroller.clientWidth + 1)
      out.push("the sheet scrolls sideways");
    return out;
  });
}

for (const size of SIZES) {
  test(`${size.name}: the whole rack in view, tap and drag, the melds seen, the score sheet whole`, async () => {
    test.setTimeout(300_000);
    const server = await startServer({ REMI_E2E_SEEDS: "e2e-12" });
    const player = await launch(size.opts);
    running.push(player, { close: () => server.stop() });
    const page = await player.page();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await startPractice(page, server.url, "Ana", "remi");
    let st = await waitMyTurn(page);
    assert.equal(st.cols, size.cols, "the rack's columns for this width");
    assert.deepEqual(await rackInView(page), []);
    const narrowest = await page.evaluate(() =>
      Math.min(
        ...[...document.querySelectorAll("[data-testid=rack] .tile")].map(
          (el) => el.getBoundingClientRect().width,
        ),
      ),
    );
    assert.ok(narrowest >= 32, `rack tiles are 32 px or wider (${narrowest})`);
    await shot(page, `rack-whole-${size.name}.png`);

    // A tap moves a tile (tile, then an empty slot); a drag moves it back.
    const tile = st.hand[0];
    const from = st.rack.find((x) => x.tile === tile).slot;
    const to = st.rack.find((x) => x.tile === null && x.slot > from).slot;
    await page.click(slotSel(from));
    await page.click(slotSel(to));
    await page.waitForFunction(
      ([s, id]) =>
        document.querySelector(`[data-testid=rack] [data-slot="${s}"]`)?.dataset.tile ===
        String(id),
      [to, tile],
    );
    await drag(page, slotSel(to), slotSel(from));
    await page.waitForFunction(
      ([s, id]) =>
        document.querySelector(`[data-testid=rack] [data-slot="${s}"]`)?.dataset.tile ===
        String(id),
      [from, tile],
    );

    // Turns go by until the bots have laid melds (and on a phone, more than fit at once).
    let seen = await meldsSeen(page);
    for (
      let turn = 0;
      turn < 40 && !(seen.count >= 4 && (seen.scrolls || size.name === "desktop"));
      turn++
    ) {
      st = await plainTurn(page);
      if (st.summary) break;
      st = await waitMyTurn(page, 90_000);
      if (st.summary) break;
      seen = await meldsSeen(page);
    }
    assert.ok(seen.count >= 1, "the bots laid melds");
    assert.equal(seen.sideways, false, "the melds never scroll sideways");
    if (seen.hidden) {
      // Some are out of sight: the area scrolls, and the cue says more are below.
      assert.ok(seen.scrolls);
      assert.ok(seen.below || seen.above, "a cue says where the hidden melds are");
      await shot(page, `melds-more-${size.name}.png`);
      await page.evaluate(() => {
        const el = document.querySelector("[data-testid=melds]");
        el.scrollTop = el.scrollHeight;
      });
      await page.waitForFunction(
        () => document.querySelector("[data-testid=melds-more-below]").hidden,
      );
      await settled(page); // a meld's tiles may still glide in (up to 300 ms)
      const last = await page.evaluate(() => {
        const area = document.querySelector("[data-testid=melds]").getBoundingClientRect();
        const r = [...document.querySelectorAll("[data-testid=melds] .meld")]
          .pop()
          .getBoundingClientRect();
        return r.bottom <= area.bottom + 0.5 && r.top >= area.top - 0.5;
      });
      assert.ok(last, "scrolled to the end, the last meld is whole");
      assert.ok(
        await page.locator("[data-testid=melds-more-above]").isVisible(),
        "the cue now says more are above",
      );
    } else {
      assert.equal(seen.below || seen.above, false, "no cue when every meld is seen");
    }
    if (!st.summary) assert.deepEqual(await rackInView(page), []);
    await shot(page, `melds-${size.name}.png`);

    // The score sheet: every column on the screen, the replay and deal-check links too.
    if (st.summary) await page.click("[data-testid=summary-close]");
    await page.click("[data-testid=scores-open]");
    await page.waitForSelector("[data-testid=scores]");
    assert.deepEqual(await scoreSheetCut(page), []);
    await shot(page, `score-sheet-${size.name}.png`);
    assert.deepEqual(errors, []);
  });
}

/** The rack's formations as the page labels them. */
async function labels(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll("[data-testid=rack] .flabel")].map((el) => ({
      cls: el.className,
      value: Number(el.querySelector(".fval")?.textContent ?? 0),
      kind: el.querySelector(".fkind")?.textContent ?? null,
      bad: !!el.querySelector(".fbad"),
    })),
  );
}

for (const size of SIZES) {
  test(`${size.name}: "arrange" lays the hand out in the engine's melds; the way to the opening always shown`, async () => {
    test.setTimeout(240_000);
    const server = await startServer({ REMI_E2E_SEEDS: "e2e-12" });
    const player = await launch(size.opts);
    running.push(player, { close: () => server.stop() });
    const page = await player.page();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await startPractice(page, server.url, "Ana", "remi45");
    const before = await waitMyTurn(page);
    // Not opened: the threshold and the progress toward it, whoever's turn it is.
    await page.waitForFunction(() =>
      /Deschidere: \d+ din 45/.test(
        document.querySelector("[data-testid=open-progress]")?.textContent ?? "",
      ),
    );
    await page.click("[data-testid=arrange]");
    // The rack changes to the engine's layout, then the server values its formations.
    await page.waitForFunction(
      (old) => {
        const now = [...document.querySelectorAll("[data-testid=rack] [data-slot]")]
          .map((el) => el.dataset.tile ?? "")
          .join(",");
        return (
          now !== old &&
          document.querySelectorAll("[data-testid=rack] .flabel").length > 0 &&
          !document.querySelector("[data-testid=rack] .flabel.unknown")
        );
      },
      before.rack.map((x) => (x.tile === null ? "" : String(x.tile))).join(","),
      { timeout: 15_000 },
    );
    const st = await read(page);
    assert.deepEqual(
      [...st.hand].sort((a, b) => a - b),
      [...before.hand].sort((a, b) => a - b),
      "the same tiles, each once",
    );
    const found = await labels(page);
    assert.ok(found.length >= 1, "the engine found a meld in this hand");
    for (const f of found)
      assert.equal(f.bad, false, "every formation laid out by the engine is a meld");
    const total = found.reduce((sum, f) => sum + f.value, 0);
    await page.waitForFunction(
      (n) =>
        document
          .querySelector("[data-testid=open-progress]")
          ?.textContent.includes(`Deschidere: ${n} din 45`),
      total,
    );
    assert.deepEqual(await rackInView(page), []);
    await shot(page, `arranged-${size.name}.png`);
    // Another seat's turn: the progress is still there.
    await plainTurn(page);
    assert.match(
      await page.locator("[data-testid=open-progress]").textContent(),
      /Deschidere: \d+ din 45/,
    );
    assert.ok(await page.locator("[data-testid=open-progress]").isVisible());
    assert.deepEqual(errors, []);
  });
}

test("phone-360: a fresh Remi 101 deal marks no pair with a cross; arrange lays out melds only", async () => {
  test.setTimeout(180_000);
  const server = await startServer({ REMI_E2E_SEEDS: "e2e-101" });
  const player = await launch(PHONE_360);
  running.push(player, { close: () => server.stop() });
  const page = await player.page();
  await startPractice(page, server.url, "Ioana", "remi101");
  await waitMyTurn(page);
  await page.waitForFunction(
    () =>
      document.querySelectorAll("[data-testid=rack] .flabel:not(.unknown)").length > 0 ||
      document.querySelectorAll("[data-testid=rack] .flabel").length === 0,
  );
  await page.waitForTimeout(500); // the formations' answers
  assert.equal(await page.locator("[data-testid=rack] .fbad").count(), 0, "no ✗ on a fresh deal");
  assert.match(
    await page.locator("[data-testid=open-progress]").textContent(),
    /din 101.*duble: \d+ din 5/,
  );
  await shot(page, "table-101-fresh-phone-360.png");
  const before = await read(page);
  await page.click("[data-testid=arrange]");
  await page.waitForFunction(
    (old) => {
      const now = [...document.querySelectorAll("[data-testid=rack] [data-slot]")]
        .map((el) => el.dataset.tile ?? "")
        .join(",");
      return (
        now !== old &&
        !document.querySelector("[data-testid=rack] .flabel.unknown:not(:empty)") &&
        document.querySelectorAll("[data-testid=rack] .flabel.valid").length > 0
      );
    },
    before.rack.map((x) => (x.tile === null ? "" : String(x.tile))).join(","),
    { timeout: 15_000 },
  );
  // Every formation the engine laid out is a meld (runs, sets, and doubles where it found
  // equal pairs left over); nothing is marked wrong.
  assert.equal(await page.locator("[data-testid=rack] .fbad").count(), 0);
  assert.equal(await page.locator("[data-testid=rack] .flabel.invalid").count(), 0);
  assert.deepEqual(await rackInView(page), []);
  await shot(page, "arranged-101-phone-360.png");
});
