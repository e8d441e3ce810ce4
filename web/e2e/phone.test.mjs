// Issue 18, items 4-7, at both phone sizes (360×740, 390×844) and the desktop (1280×800):
// every way of opening locked with the lay button's running total and reason (breaking
// the row, a deep take not offered before the opening; Remi 101's doubles counted and its
// hint), "your games" in the lobby and one tap back to the seat, nothing clipped (the
// header, the status line with its timer, every button, the seat cards saying in words
// whether a seat opened and its points laid), tiles 32 px or wider, the reconnect banner
// under a usable header, and room settings showing only the chosen variant's options.
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { DESKTOP, launch, PHONE } from "./browser.mjs";
import {
  emptyStretch,
  findMeld,
  placeTiles,
  plainTurn,
  read,
  shot,
  slotOf,
  slotSel,
  startPractice,
  waitMyTurn,
} from "./play.mjs";
import { startServer } from "./server.mjs";

const PHONE_360 = {
  viewport: { width: 360, height: 740 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};
const SIZES = [
  { name: "phone-360", opts: PHONE_360 },
  { name: "phone", opts: PHONE },
  { name: "desktop", opts: DESKTOP },
];

const running = [];
test.afterAll(async () => {
  for (const x of running.reverse()) await x.close?.().catch?.(() => undefined);
});

async function setUp(opts, env = {}) {
  const server = await startServer(env);
  const player = await launch(opts);
  running.push(player, { close: () => server.stop() });
  const page = await player.page();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  return { server, player, page, errors };
}

/** Everything on the table that must not be cut short, and what is. */
async function clipped(page) {
  return page.evaluate(() => {
    const out = [];
    const vw = window.innerWidth;
    const sels = [
      ".tbar button",
      ".ttitle .variant",
      ".ttitle .round",
      "[data-testid=status] > span",
      ".ctl-buttons button",
      ".hint > *",
      ".seat-opened",
      ".moves-open",
    ];
    for (const sel of sels) {
      for (const el of document.querySelectorAll(sel)) {
        const r = el.getBoundingClientRect();
        if (!r.width || getComputedStyle(el).display === "none") continue;
        const text = (el.textContent ?? "").trim().slice(0, 40);
        if (r.left < -0.5 || r.right > vw + 0.5)
          out.push(
            `${sel} "${text}": off the screen (${Math.round(r.left)}..${Math.round(r.right)})`,
          );
        if (getComputedStyle(el).display === "inline") continue;
        if (el.scrollWidth > el.clientWidth + 1)
          out.push(`${sel} "${text}": cut sideways (${el.scrollWidth} > ${el.clientWidth})`);
        if (el.scrollHeight > el.clientHeight + 1 && getComputedStyle(el).overflowY !== "visible")
          out.push(`${sel} "${text}": cut (${el.scrollHeight} > ${el.clientHeight})`);
      }
    }
    const status = document.querySelector("[data-testid=status]")?.getBoundingClientRect();
    const timer = document.querySelector("[data-testid=status] .timer")?.getBoundingClientRect();
    if (
      status &&
      timer &&
      timer.width &&
      (timer.right > status.right + 0.5 || timer.left < status.left - 0.5)
    )
      out.push("the status line's timer is cut");
    if (document.documentElement.scrollWidth > vw)
      out.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${vw})`);
    return out;
  });
}

/** The narrowest tile on the rack and in the row. */
async function narrowestTile(page) {
  return page.evaluate(() =>
    Math.min(
      ...[...document.querySelectorAll("[data-testid=rack] .tile, .row-tiles .tile")].map(
        (el) => el.getBoundingClientRect().width,
      ),
    ),
  );
}

/** Every seat card says in words whether the seat opened, and its points laid. */
async function seatWords(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll("[data-testid^=opened-]")].map((el) => ({
      text: el.textContent,
      opened: el.dataset.opened === "1",
      laid: Number(el.dataset.laid),
      title: el.title,
    })),
  );
}

for (const size of SIZES) {
  test(`${size.name}: the opening lock on a row take, a deep take not offered, your games, nothing clipped`, async () => {
    test.setTimeout(240_000);
    const { server, page, errors } = await setUp(size.opts, { REMI_E2E_SEEDS: "e2e-12" });
    await startPractice(page, server.url, "Ana", "remi");
    const roomId = decodeURIComponent(page.url().split("#/room/")[1]);

    // The first player's first turn: nothing clipped, tiles 32 px or wider.
    let st = await waitMyTurn(page);
    assert.deepEqual(await clipped(page), []);
    assert.ok(
      (await narrowestTile(page)) >= 32,
      `tiles are at least 32 px wide (${await narrowestTile(page)})`,
    );
    for (const seat of await seatWords(page)) {
      assert.equal(seat.opened, false);
      assert.equal(seat.text, "nedeschis");
      assert.match(seat.title, /nu a deschis/);
    }
    await shot(page, `table-start-${size.name}.png`);
    await plainTurn(page);

    // A later turn, not yet opened, with a row to take from.
    for (let i = 0; i < 6; i++) {
      st = await waitMyTurn(page, 90_000);
      if (st.phase === "take" && !st.opened && st.row.length >= 2) break;
      await plainTurn(page);
    }
    assert.equal(st.phase, "take");
    assert.equal(st.opened, false);
    assert.ok(st.row.length >= 2, "the row holds two tiles or more");

    // A deep take is not offered: the server's reason, no "take" button.
    await page.click(`[data-testid=row-${st.row[0].index}]`);
    await page.waitForSelector("[data-testid=row-blocked][data-code=not_opened]");
    assert.equal(await page.locator("[data-testid=preview-take]").count(), 0);
    assert.match(
      await page.locator("[data-testid=row-blocked]").textContent(),
      /după ce ai deschis/,
    );
    assert.deepEqual(await clipped(page), []);
    await shot(page, `row-blocked-${size.name}.png`);
    await page.click("[data-testid=preview-cancel]");
    await page.waitForSelector("[data-testid=row-blocked]", { state: "detached" });

    // The top tile: taken onto the rack, the button locked with the lay button's reason.
    const top = st.row[st.row.length - 1];
    await page.click(`[data-testid=row-${top.index}]`);
    await page.click("[data-testid=preview-take]");
    await page.waitForSelector(`[data-testid=rack] .tile.pending[data-tile="${top.tile}"]`);
    assert.ok(await page.locator("[data-testid=lay]").isDisabled());
    assert.match(await page.locator("[data-testid=lay]").textContent(), /Rupe rândul/);
    const meld = findMeld([...st.hand, top.tile], top.tile);
    if (meld) {
      // With a formation holding the taken tile: the running total of the opening and
      // what is missing, the same words as the lay button's (45 points and a run).
      let cur = await read(page);
      const start = emptyStretch(cur, meld.tiles.length, meld.tiles);
      await placeTiles(page, meld.tiles, start);
      await page.waitForSelector(`[data-testid=formation-${start}] .fval`);
      await page
        .waitForFunction(
          () =>
            /deschide cu \d+/.test(document.querySelector("[data-testid=lay]")?.textContent ?? ""),
          null,
          { timeout: 10_000 },
        )
        .catch(async (err) => {
          await shot(page, `debug-${size.name}.png`);
          throw new Error(
            `${err.message}: ${await page.locator("[data-testid=lay]").textContent()} / ${JSON.stringify(await read(page))}`,
          );
        });
      await page.waitForFunction(
        () =>
          !!document.querySelector("[data-testid=lay]:not([disabled])") ||
          /Lipsesc|Lipsește/.test(
            document.querySelector("[data-testid=lay-reason]")?.textContent ?? "",
          ),
      );
      const label = await page.locator("[data-testid=lay]").textContent();
      const total = await page.evaluate(() =>
        [...document.querySelectorAll("[data-testid=rack] .flabel.valid")].reduce(
          (sum, el) => sum + Number(el.querySelector(".fval")?.textContent ?? 0),
          0,
        ),
      );
      assert.equal(
        Number(label.match(/deschide cu (\d+)/)[1]),
        total,
        "the label's total is the formations' sum",
      );
      if (await page.locator("[data-testid=lay]").isDisabled()) {
        assert.match(
          await page.locator("[data-testid=lay-reason]").textContent(),
          /Lipsesc \d+ puncte|Lipsește scara/,
        );
      }
      cur = await read(page);
      assert.ok(cur.rack.some((x) => x.tile === top.tile && x.pending));
    } else {
      await page.waitForFunction(() =>
        /formație adevărată|Lipsesc|Lipsește/.test(
          document.querySelector("[data-testid=lay-reason]")?.textContent ?? "",
        ),
      );
      assert.ok(await page.locator("[data-testid=lay]").isDisabled());
    }
    assert.deepEqual(await clipped(page), []);
    await shot(page, `take-locked-${size.name}.png`);
    await page.click("[data-testid=pending-cancel]");
    await page.waitForSelector(`[data-testid=rack] [data-tile="${top.tile}"]`, {
      state: "detached",
    });
    await plainTurn(page);

    // Your games: back in the lobby, the practice game is listed as being played; one
    // tap goes back to the seat.
    await page.click("[data-testid=leave]");
    await page.waitForSelector(`[data-testid=mine-${CSS_ESC(roomId)}]`);
    const item = page.locator(`[data-testid=mine-${CSS_ESC(roomId)}]`);
    assert.equal(await item.getAttribute("data-status"), "playing");
    assert.match(await item.textContent(), /se joacă/);
    assert.match(await item.textContent(), /antrenament/);
    await shot(page, `your-games-${size.name}.png`);
    await page.click(`[data-testid=back-${CSS_ESC(roomId)}]`);
    await page.waitForSelector("[data-testid=rack] .tile");
    assert.equal(decodeURIComponent(page.url().split("#/room/")[1]), roomId);
    assert.deepEqual(await clipped(page), []);
    assert.deepEqual(errors, []);
  });
}

/** Room ids are URL-safe: usable in a test id selector as they are. */
function CSS_ESC(id) {
  assert.match(id, /^[A-Za-z0-9_-]+$/);
  return id;
}

test("phone-360: settings of the chosen variant only; Remi 101 counts doubles; the reconnect banner under a usable header", async () => {
  test.setTimeout(180_000);
  const { server, page, errors } = await setUp(PHONE_360, { REMI_E2E_SEEDS: "e2e-101" });
  await page.goto(server.url);
  await page.fill("[data-testid=name-input]", "Ioana");
  await page.click("[data-testid=name-save]");
  await page.waitForSelector("[data-testid=create-form]");
  await page.waitForSelector("[data-testid=your-games] li");
  assert.match(
    await page.locator("[data-testid=your-games]").textContent(),
    /Nu stai la nicio masă/,
  );

  // Room settings: each variant's own options, from the catalogue (no variant list here).
  const { variants } = await page.evaluate(() => fetch("/api/variants").then((r) => r.json()));
  assert.ok(variants.length >= 3);
  // Shown as the player sees it (laid out, not only without the hidden attribute).
  const shown = (id) => page.locator(`#${id}`).isVisible();
  for (const v of variants) {
    await page.selectOption("[data-testid=s-variant]", v.id);
    assert.equal(await shown("s-joker"), v.joker_button, `${v.id}: the joker button option`);
    assert.equal(await shown("s-depth"), v.row_depth, `${v.id}: the row depth option`);
    assert.equal(await shown("s-short"), v.short_game !== null, `${v.id}: the short game option`);
  }
  await page.selectOption("[data-testid=s-variant]", "remi101");
  await page.locator("[data-testid=create-form]").scrollIntoViewIfNeeded();
  await shot(page, "room-settings-phone-360.png");

  // A Remi 101 practice game: a double on the rack counts on the lay button.
  await page.selectOption("[data-testid=practice-variant]", "remi101");
  await page.click("[data-testid=practice]");
  await page.waitForSelector("[data-testid=rack] .tile");
  const st = await waitMyTurn(page);
  assert.equal(st.hand.length, 22);
  const byFace = new Map();
  for (const t of st.hand) if (t < 104) byFace.set(t % 52, [...(byFace.get(t % 52) ?? []), t]);
  const pair = [...byFace.values()].find((x) => x.length === 2);
  assert.ok(pair, "the seeded hand holds a double");
  const start = emptyStretch(st, 2, pair);
  assert.notEqual(start, null);
  await placeTiles(page, pair, start);
  await page.waitForSelector(`[data-testid=formation-${start}] .fval`);
  assert.match(await page.locator(`[data-testid=formation-${start}]`).textContent(), /dublă/);
  await page.waitForFunction(() =>
    /duble: \d+/.test(document.querySelector("[data-testid=lay]")?.textContent ?? ""),
  );
  const doubles = await page.evaluate(
    () =>
      [...document.querySelectorAll("[data-testid=rack] .flabel.valid")].filter((el) =>
        /dublă/.test(el.textContent),
      ).length,
  );
  assert.ok(doubles >= 1);
  assert.match(
    await page.locator("[data-testid=lay]").textContent(),
    new RegExp(`duble: ${doubles}\\b`),
  );
  assert.equal(
    await page
      .locator(`[data-testid=rack] .flabel.invalid[data-testid=formation-${start}]`)
      .count(),
    0,
    "a double is never marked invalid",
  );
  assert.deepEqual(await clipped(page), []);
  assert.ok((await narrowestTile(page)) >= 32);
  await shot(page, "table-101-phone-360.png");

  // The server goes away: the banner says so under the header, which stays usable.
  await server.kill();
  await page.waitForSelector("[data-testid=conn-banner].show");
  const free = await page.evaluate(() => {
    const bar = document.querySelector(".tbar").getBoundingClientRect();
    const banner = document.querySelector("[data-testid=conn-banner]").getBoundingClientRect();
    const hit = (sel) => {
      const r = document.querySelector(sel).getBoundingClientRect();
      return (
        document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2)?.closest(sel) !== null
      );
    };
    return {
      below: banner.top >= bar.bottom - 0.5,
      back: hit("[data-testid=leave]"),
      scores: hit("[data-testid=scores-open]"),
      lang: hit("[data-testid=lang]"),
    };
  });
  assert.deepEqual(free, { below: true, back: true, scores: true, lang: true });
  await shot(page, "reconnecting-phone-360.png");
  await server.restart();
  await page.waitForSelector("[data-testid=conn-banner].show", {
    state: "detached",
    timeout: 30_000,
  });
  assert.deepEqual(
    errors.filter((e) => !/WebSocket/.test(e)),
    [],
  );
});
