// A practice game against bots in a real browser: the first turn's locked lay button, a
// refused move with the server's reason, a draw by drag, a drag-and-drop lay (the opening),
// lay-offs by drag and by tap, a lay-off refused, a row break with its preview, the English
// toggle and the keyboard.
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { DESKTOP, launch } from "./browser.mjs";
import {
  clickThrough,
  closeToast,
  drag,
  emptyStretch,
  face,
  findMeld,
  findRun,
  fits,
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
  watchTurnEnd,
  waitToastText,
} from "./play.mjs";
import { startServer } from "./server.mjs";

// Round 1's deal: seat 0 (the player, first to play) holds a natural run of five.
const SEED = "e2e-54";

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

test("moves on the table: lay, lay-off, refusals, row break with preview", async () => {
  test.setTimeout(240_000);
  const page = await player.page();
  const errors = [];
  page.on("pageerror", (e) => errors.push(e.message));
  await startPractice(page, server.url, "Ana", "remi");

  // Turn 1: the first player's first turn: the lay button is locked and says why.
  let st = await waitMyTurn(page);
  assert.equal(st.phase, "build");
  assert.ok(st.firstTurn);
  assert.ok(await page.locator("[data-testid=lay]").isDisabled());
  assert.match(await page.locator("[data-testid=lay-reason]").textContent(), /primul rând/);
  const run = findRun(st.hand, 5);
  assert.ok(run, `the seeded hand holds a run of five: ${st.hand}`);
  // Discard by drag onto the discard box, keeping the run.
  const spare = st.hand.find((t) => !run.includes(t) && !face(t).joker);
  await watchTurnEnd(page);
  await drag(page, slotSel(slotOf(st, spare)), "[data-testid=discard]");
  await waitNotMyTurn(page);
  st = await read(page);
  assert.ok(
    st.row.some((r) => r.tile === spare),
    "the discard is on the row",
  );

  // Turn 2, take phase: discarding before drawing is refused with the server's reason,
  // and nothing on the table changes.
  st = await waitMyTurn(page);
  assert.equal(st.phase, "take");
  const before = await read(page);
  const victim = before.hand.find((t) => !run.includes(t));
  await drag(page, slotSel(slotOf(before, victim)), "[data-testid=discard]");
  assert.equal(
    await waitToastText(page),
    "Nu acum: întâi trage (sau ia din rând), apoi construiește și aruncă.",
  );
  let now = await read(page);
  assert.deepEqual(now.row, before.row);
  assert.deepEqual(now.hand, before.hand);
  assert.deepEqual(now.melds, before.melds);
  await closeToast(page);

  // Draw by dragging the stock onto an empty slot: the new tile lands there.
  const target = now.rack.find((s) => s.tile === null).slot;
  await drag(page, "[data-testid=stock]", slotSel(target));
  await page.waitForFunction(
    (slot) =>
      document.querySelector(`[data-testid=rack] [data-slot="${slot}"]`)?.dataset.tile !==
      undefined,
    target,
  );
  st = await read(page);
  assert.equal(st.hand.length, before.hand.length + 1);
  assert.equal(st.phase, "build");

  // A drag-and-drop lay: three tiles of the run side by side, the server writes the
  // value above them and unlocks the button, which opens with them.
  const meld = await layFormation(page, run.slice(0, 3));
  assert.ok(meld >= 0, "the run is on the table");
  st = await read(page);
  assert.ok(st.opened);
  await shot(page, "table-opened-desktop.png");

  // A lay-off by drag onto the meld, then one by tap (tile, then meld).
  await drag(page, slotSel(slotOf(st, run[3])), `[data-testid=meld-${meld}]`);
  await page.waitForFunction(
    ([k, t]) => !!document.querySelector(`[data-testid=meld-${k}] [data-tile="${t}"]`),
    [meld, run[3]],
  );
  st = await read(page);
  await page.click(slotSel(slotOf(st, run[4])));
  await page.click(`[data-testid=meld-${meld}]`);
  await page.waitForFunction(
    ([k, t]) => !!document.querySelector(`[data-testid=meld-${k}] [data-tile="${t}"]`),
    [meld, run[4]],
  );

  // A lay-off that does not fit is refused with the reason; nothing moves.
  st = await read(page);
  const runSuit = face(run[0]).suit;
  const misfit = st.hand.find((t) => !face(t).joker && face(t).suit !== runSuit);
  await drag(page, slotSel(slotOf(st, misfit)), `[data-testid=meld-${meld}]`);
  assert.equal(await waitToastText(page), "Piesa nu se potrivește la formația aceasta.");
  now = await read(page);
  assert.deepEqual(now.melds, st.melds);
  assert.deepEqual(now.hand, st.hand);
  await closeToast(page);

  // Keyboard: focus a rack tile, Enter selects it, arrows move the focus, Enter on an
  // empty slot moves it there.
  st = await read(page);
  const kTile = st.hand[0];
  const kFrom = slotOf(st, kTile);
  await page.focus(slotSel(kFrom));
  await page.keyboard.press("Enter");
  await page.waitForSelector(`${slotSel(kFrom)}.selected`);
  const empties = st.rack.filter((s) => s.tile === null).map((s) => s.slot);
  const kTo = empties.find((s) => Math.floor(s / 14) === Math.floor(kFrom / 14)) ?? empties[0];
  const dr = Math.floor(kTo / 14) - Math.floor(kFrom / 14);
  const dc = (kTo % 14) - (kFrom % 14);
  for (let i = 0; i < Math.abs(dr); i++)
    await page.keyboard.press(dr > 0 ? "ArrowDown" : "ArrowUp");
  for (let i = 0; i < Math.abs(dc); i++)
    await page.keyboard.press(dc > 0 ? "ArrowRight" : "ArrowLeft");
  await page.waitForFunction((s) => document.activeElement?.dataset.slot === String(s), kTo);
  await page.keyboard.press("Enter");
  await page.waitForFunction(
    ([s, t]) =>
      document.querySelector(`[data-testid=rack] [data-slot="${s}"]`)?.dataset.tile === String(t),
    [kTo, kTile],
  );

  // Dropping a tile on another tile inserts it there: that tile (and those after it up to
  // the next gap) shift one slot on.
  st = await read(page);
  const bSlot = st.rack.find(
    (s) => s.tile !== null && s.slot % 14 < 13 && st.rack[s.slot + 1].tile === null,
  )?.slot;
  const bTile = st.rack[bSlot].tile;
  const aTile = st.hand.find((t) => t !== bTile && Math.abs(slotOf(st, t) - bSlot) > 1);
  await drag(page, slotSel(slotOf(st, aTile)), slotSel(bSlot));
  await page.waitForFunction(
    ([s, t]) =>
      document.querySelector(`[data-testid=rack] [data-slot="${s}"]`)?.dataset.tile === String(t),
    [bSlot, aTile],
  );
  now = await read(page);
  assert.equal(slotOf(now, bTile), bSlot + 1, "the tile dropped on moved one slot on");

  // Finish the turn.
  st = await plainTurn(page);

  // A row break with its preview: on a later turn, take a row tile (deeper than the top
  // when possible) that makes a new meld with the hand; the tiles above it come along.
  let broke = false;
  for (let turn = 0; turn < 40 && !broke; turn++) {
    st = await waitMyTurn(page, 90_000);
    if (st.summary) {
      await page.click("[data-testid=summary-close]");
      continue;
    }
    if (st.phase === "take" && st.opened && st.row.length) {
      const top = st.row[st.row.length - 1].index;
      const options = st.row
        .map((r) => ({ ...r, meld: findMeld([...st.hand, r.tile], r.tile) }))
        .filter((r) => r.meld)
        .sort((a, b) => (a.index === top) - (b.index === top) || b.index - a.index);
      if (options.length) {
        const pick = options[0];
        const along = st.row.filter((r) => r.index > pick.index).map((r) => r.tile);
        // The preview: the chosen tile and the ones that would come along, before anything moves.
        await page.click(`[data-testid=row-${pick.index}]`);
        await page.waitForSelector("[data-testid=row-preview]");
        assert.equal(
          await page.locator(".rtile.chosen").getAttribute("data-tile"),
          String(pick.tile),
        );
        assert.equal(await page.locator(".rtile.come-along").count(), along.length);
        assert.deepEqual((await read(page)).hand, st.hand, "nothing moved yet");
        await shot(page, "row-break-preview-desktop.png");
        await page.click("[data-testid=preview-take]");
        await page.waitForSelector("[data-testid=rack] .tile.pending");
        assert.match(await page.locator("[data-testid=lay]").textContent(), /Rupe rândul/);
        // The move goes only with a real formation holding the taken tile.
        const tiles = pick.meld.tiles;
        let cur = await read(page);
        const start = emptyStretch(cur, tiles.length, tiles);
        assert.notEqual(start, null);
        await placeTiles(page, tiles, start);
        await page.waitForSelector(`[data-testid=formation-${start}] .fval`);
        await page.waitForSelector("[data-testid=lay]:not([disabled])");
        await page.click("[data-testid=lay]");
        await page.waitForFunction(
          (n) => document.querySelectorAll(".row-tiles .rtile").length === n,
          pick.index - (st.row[0]?.index ?? 0),
        );
        cur = await read(page);
        for (const t of along)
          assert.ok(cur.hand.includes(t), `tile ${t} came along into the hand`);
        assert.ok(
          cur.melds.some((m) => tiles.every((t) => m.includes(t))),
          "the new meld is on the table",
        );
        broke = true;
        await plainTurn(page);
        break;
      }
    }
    // Otherwise a plain turn; open again after a new round when a run allows it.
    if (st.phase === "take") {
      await page.click("[data-testid=stock]");
      await page.waitForFunction(
        () =>
          document.querySelector("[data-testid=status]")?.dataset.phase === "build" ||
          document.querySelector("[data-testid=summary]"),
      );
      st = await read(page);
      if (st.summary) continue;
    }
    if (!st.opened && !st.firstTurn) {
      const r3 = findRun(st.hand, 3);
      if (r3) await layFormation(page, r3);
    } else if (st.opened) {
      // Lay off whatever fits, by tap.
      for (const t of st.hand) {
        const k = st.melds.findIndex((m) => fits(t, m));
        if (k >= 0 && st.hand.length > 2) {
          await page.click(slotSel(slotOf(st, t)));
          await page.click(`[data-testid=meld-${k}]`);
          await page.waitForFunction(
            ([k2, t2]) =>
              !!document.querySelector(`[data-testid=meld-${k2}] [data-tile="${t2}"]`) ||
              !!document.querySelector("#toast.show"),
            [k, t],
          );
          await closeToast(page);
          break;
        }
      }
    }
    await plainTurn(page);
  }
  assert.ok(broke, "found a row break within the turns played");

  // English is one toggle away.
  await clickThrough(page, "[data-testid=lang]");
  await page.waitForSelector("[data-testid=scores-open]:has-text('Scores')");
  await clickThrough(page, "[data-testid=lang]");
  await page.waitForSelector("[data-testid=scores-open]:has-text('Scoruri')");
  assert.deepEqual(errors, []);
});
