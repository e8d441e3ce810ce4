// What a test player reads from the table and does on it, through the page only
// (taps, drags, the DOM). The tests know the card rules to pick their moves; the client
// under test does not.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO } from "./server.mjs";

// `npm run screenshots` (REMI_SCREENSHOTS=1) writes them to docs/screenshots/ for the
// repository; otherwise (CI, scripts/test) they go to a temporary directory.
export const SHOTS = process.env.REMI_SCREENSHOTS
  ? join(REPO, "docs", "screenshots")
  : join(tmpdir(), "remi-screenshots");
mkdirSync(SHOTS, { recursive: true });

export async function shot(page, name) {
  await page.screenshot({ path: join(SHOTS, name) });
}

// ---------------------------------------------------------------- faces (family A)

export function face(id) {
  if (id >= 104) return { joker: true, rank: 0, suit: -1 };
  const f = id % 52;
  return { joker: false, rank: (f % 13) + 1, suit: Math.floor(f / 13) };
}

/** Three natural tiles of `tiles` forming a run or a set, with `must` inside (if given). */
export function findMeld(tiles, must = null) {
  const nat = tiles.filter((t) => !face(t).joker);
  const pool = must === null ? nat : nat.filter((t) => t !== must);
  const mustList = must === null ? nat : [must];
  for (const a of mustList) {
    const fa = face(a);
    // runs holding a (an ace low or high), written low to high
    const ranksOfA = fa.rank === 1 ? [1, 14] : [fa.rank];
    for (const ra of ranksOfA) {
      for (let s0 = ra - 2; s0 <= ra; s0++) {
        if (s0 < 1 || s0 + 2 > 14) continue;
        const picked = [];
        let ok = true;
        for (let r = s0; r <= s0 + 2; r++) {
          if (r === ra) {
            picked.push(a);
            continue;
          }
          const rr = r === 14 ? 1 : r;
          const t = pool.find(
            (x) =>
              x !== a && !picked.includes(x) && face(x).suit === fa.suit && face(x).rank === rr,
          );
          if (t === undefined) {
            ok = false;
            break;
          }
          picked.push(t);
        }
        if (ok) return { kind: "run", tiles: picked };
      }
    }
    // sets: same rank, different suits
    const others = pool.filter(
      (x) => x !== a && face(x).rank === fa.rank && face(x).suit !== fa.suit,
    );
    const suits = new Map();
    for (const o of others) if (!suits.has(face(o).suit)) suits.set(face(o).suit, o);
    if (suits.size >= 2) return { kind: "set", tiles: [a, ...[...suits.values()].slice(0, 2)] };
  }
  return null;
}

/** A natural run of `len` in the hand, as tile ids low to high. */
export function findRun(tiles, len) {
  const nat = tiles.filter((t) => !face(t).joker);
  for (let suit = 0; suit < 4; suit++) {
    const byRank = new Map();
    for (const t of nat)
      if (face(t).suit === suit && !byRank.has(face(t).rank)) byRank.set(face(t).rank, t);
    for (let start = 1; start + len - 1 <= 13; start++) {
      const run = [];
      for (let r = start; r < start + len; r++) if (byRank.has(r)) run.push(byRank.get(r));
      if (run.length === len) return run;
    }
  }
  return null;
}

/** Does tile `t` fit table meld `m` (natural tiles only, as the test needs)? */
export function fits(t, meld) {
  const f = face(t);
  if (f.joker) return false;
  const nat = meld.filter((x) => !face(x).joker).map(face);
  if (!nat.length || meld.some((x) => face(x).joker)) return false;
  const isSet = nat.every((x) => x.rank === nat[0].rank) && meld.length <= 4;
  if (isSet && nat.length > 1)
    return meld.length < 4 && f.rank === nat[0].rank && !nat.some((x) => x.suit === f.suit);
  if (nat.some((x) => x.suit !== f.suit)) return false;
  const ranks = nat.map((x) => x.rank).sort((a, b) => a - b);
  return f.rank === ranks[0] - 1 || f.rank === ranks[ranks.length - 1] + 1;
}

// ---------------------------------------------------------------- reading the page

export async function read(page) {
  return page.evaluate(() => {
    const status = document.querySelector("[data-testid=status]");
    const rack = [...document.querySelectorAll("[data-testid=rack] [data-slot]")].map((el) => ({
      slot: Number(el.dataset.slot),
      tile: el.dataset.tile !== undefined ? Number(el.dataset.tile) : null,
      pending: el.classList.contains("pending"),
    }));
    const row = [...document.querySelectorAll(".row-tiles .rtile")].map((el) => ({
      index: Number(el.dataset.testid.slice(4)),
      tile: Number(el.dataset.tile),
    }));
    const melds = [...document.querySelectorAll("[data-testid=melds] .meld")].map((el) =>
      [...el.querySelectorAll(".tile")].map((x) => Number(x.dataset.tile)),
    );
    return {
      mine: !!document.querySelector("[data-testid=status].mine"),
      phase: status?.dataset.phase ?? null,
      firstTurn: status?.dataset.firstTurn === "1",
      opened: status?.dataset.opened === "1",
      busy: status?.dataset.busy === "1",
      rack,
      hand: rack.filter((s) => s.tile !== null && !s.pending).map((s) => s.tile),
      row,
      melds,
      summary: !!document.querySelector("[data-testid=summary]"),
      cols: Number(document.querySelector("[data-testid=rack]")?.dataset.cols ?? 14),
    };
  });
}

export function slotOf(state, tile) {
  return state.rack.find((s) => s.tile === tile)?.slot ?? null;
}

/** `n` empty slots in a row, bounded by empty slots or the row's ends, on one rack row. */
export function emptyStretch(state, n, avoid = []) {
  const cols = state.cols;
  const isEmpty = (i) => {
    const s = state.rack[i];
    return s && (s.tile === null || avoid.includes(s.tile));
  };
  const rows = Math.ceil(state.rack.length / cols);
  for (let r = rows - 1; r >= 0; r--) {
    for (let c = 0; c + n <= cols; c++) {
      const start = r * cols + c;
      let ok = true;
      for (let k = 0; k < n; k++) if (!isEmpty(start + k)) ok = false;
      if (!ok) continue;
      const leftOk = c === 0 || isEmpty(start - 1);
      const rightOk = c + n === cols || isEmpty(start + n);
      if (leftOk && rightOk) return start;
    }
  }
  return null;
}

// ---------------------------------------------------------------- doing

/** A pointer drag from one element's centre to another's, in small steps. */
async function box(page, sel) {
  for (let i = 0; i < 20; i++) {
    const r = await page
      .locator(sel)
      .boundingBox({ timeout: 5000 })
      .catch(() => null);
    if (r) return r;
    await page.waitForTimeout(100);
  }
  const dump = await read(page);
  throw new Error(`drag: no ${sel} on the page: ${JSON.stringify(dump.rack)}`);
}

/** On a narrow screen the rack scrolls sideways (tiles stay 32 px or wider): before a drag,
 * scroll it so that both ends show when they can, else the source. */
async function showEnds(page, from, to) {
  await page.evaluate(
    ([f, t]) => {
      const rack = document.querySelector(".rack-box");
      if (!rack || rack.scrollWidth <= rack.clientWidth) return;
      const a = document.querySelector(f);
      const b = document.querySelector(t);
      const left = (el) =>
        el.getBoundingClientRect().left - rack.getBoundingClientRect().left + rack.scrollLeft;
      const inRack = (el) => el && rack.contains(el);
      const ends = [a, b].filter(inRack);
      if (!ends.length) return;
      const lo = Math.min(...ends.map(left));
      const hi = Math.max(...ends.map((el) => left(el) + el.offsetWidth));
      const anchor =
        hi - lo <= rack.clientWidth - 16
          ? (lo + hi) / 2
          : inRack(a)
            ? left(a) + a.offsetWidth / 2
            : left(b) + b.offsetWidth / 2;
      rack.scrollLeft = anchor - rack.clientWidth / 2;
    },
    [from, to],
  );
}

/** Where the pointer goes to drop on `to`: its centre once it shows in the rack; until
 * then the rack's edge on its side (the rack scrolls by itself while a tile is held there). */
async function dropPoint(page, to) {
  return page.evaluate((t) => {
    const el = document.querySelector(t);
    if (!el) return null;
    const r = el.getBoundingClientRect();
    const rack = document.querySelector(".rack-box");
    const mid = { x: r.left + r.width / 2, y: r.top + r.height / 2, ready: true };
    if (!rack || !rack.contains(el)) return mid;
    const b = rack.getBoundingClientRect();
    if (r.left >= b.left + 40 && r.right <= b.right - 40) return mid;
    if (r.left >= b.left && r.right <= b.right && rack.scrollLeft <= 0 && r.right <= b.right - 40)
      return mid;
    if (
      r.left >= b.left + 40 &&
      r.right <= b.right &&
      rack.scrollLeft + rack.clientWidth >= rack.scrollWidth - 1
    )
      return mid;
    return { x: r.left < b.left + 40 ? b.left + 8 : b.right - 8, y: mid.y, ready: false };
  }, to);
}

/** A drag by `step(x, y)` moves from `from` to `to`, following a scrolling rack. */
async function dragWith(page, from, to, step) {
  await showEnds(page, from, to);
  const a = await box(page, from);
  let x = a.x + a.width / 2;
  let y = a.y + a.height / 2;
  const glide = async (bx, by, n = 10) => {
    for (let i = 1; i <= n; i++) await step(x + ((bx - x) * i) / n, y + ((by - y) * i) / n);
    x = bx;
    y = by;
  };
  await glide(x + 8, y - 8, 3);
  for (let i = 0; i < 80; i++) {
    const p = await dropPoint(page, to);
    if (!p) throw new Error(`drag: no ${to} on the page`);
    // Arrived over the target, and it stays there (the rack no longer scrolls under it).
    if (p.ready && Math.abs(p.x - x) < 2 && Math.abs(p.y - y) < 2) return;
    await glide(p.x, p.y, p.ready ? 10 : 4);
    await page.waitForTimeout(60);
  }
}

/** Wait until no tile glides (src/table/motion.ts): a glide moves a tile's box for up to
 * 300 ms, so positions read during one point beside the slot a player sees settle. */
export async function settled(page) {
  await page.waitForFunction(() =>
    document.getAnimations().every((a) => a.id !== "glide" || a.playState !== "running"),
  );
}

export async function drag(page, from, to) {
  await settled(page);
  await box(page, from);
  await box(page, to);
  await showEnds(page, from, to);
  const a = await box(page, from);
  await page.mouse.move(a.x + a.width / 2, a.y + a.height / 2);
  await page.mouse.down();
  await dragWith(page, from, to, (x, y) => page.mouse.move(x, y));
  await page.mouse.up();
}

export const slotSel = (i) => `[data-testid=rack] [data-slot="${i}"]`;

/** Move rack tiles (by id) into consecutive slots from `start`, by drag. */
export async function placeTiles(page, tiles, start) {
  for (let k = 0; k < tiles.length; k++) {
    const st = await read(page);
    const from = slotOf(st, tiles[k]);
    if (from === start + k) continue;
    await drag(page, slotSel(from), slotSel(start + k));
    await page
      .waitForFunction(
        ([tile, slot]) =>
          document.querySelector(`[data-testid=rack] [data-slot="${slot}"]`)?.dataset.tile ===
          String(tile),
        [tiles[k], start + k],
        { timeout: 10_000 },
      )
      .catch(async (err) => {
        const scroll = await page.evaluate(() => {
          const r = document.querySelector(".rack-box");
          return [r.scrollLeft, r.clientWidth, r.scrollWidth];
        });
        throw new Error(
          `${err.message}: tile ${tiles[k]} from ${from} to ${start + k}; rack scroll ${scroll}; ${JSON.stringify((await read(page)).rack.filter((x) => x.tile !== null))}`,
        );
      });
  }
}

/** A new guest named `name` starts a one-click practice game of `variant` against bots. */
export async function startPractice(page, url, name, variant) {
  await page.goto(url);
  await page.fill("[data-testid=name-input]", name);
  await page.click("[data-testid=name-save]");
  await page.selectOption("[data-testid=practice-variant]", variant);
  await page.click("[data-testid=practice]");
  await page.waitForSelector("[data-testid=rack] .tile");
}

export async function waitMyTurn(page, timeout = 60_000) {
  await page.waitForFunction(
    () => {
      const st = document.querySelector("[data-testid=status]");
      return (
        (st?.classList.contains("mine") && st.dataset.busy !== "1") ||
        document.querySelector("[data-testid=summary]")
      );
    },
    null,
    { timeout },
  );
  return read(page);
}

/** From now on, note when this seat's turn ends (the status loses "mine", or the round's
 * summary shows), however fast the bots play after it: with a bot delay of 50 ms the turn
 * can come back before a poll of the page sees it gone. */
export async function watchTurnEnd(page) {
  await page.evaluate(() => {
    window.__remiTurnEnded = false;
    const ended = () => {
      const st = document.querySelector("[data-testid=status]");
      return (
        (st && !st.classList.contains("mine")) || !!document.querySelector("[data-testid=summary]")
      );
    };
    const obs = new MutationObserver(() => {
      if (!ended()) return;
      window.__remiTurnEnded = true;
      obs.disconnect();
    });
    obs.observe(document.body, { childList: true, subtree: true, attributes: true });
  });
}

/** The turn ended since `watchTurnEnd` (or it is not this seat's turn now). */
export async function waitNotMyTurn(page, timeout = 30_000) {
  await page.waitForFunction(
    () => window.__remiTurnEnded || !document.querySelector("[data-testid=status].mine"),
    null,
    { timeout },
  );
}

/** A plain turn: draw (unless it is the first player's first turn), discard a tile by tap. */
export async function plainTurn(page, keep = [], { open = false } = {}) {
  let st = await read(page);
  if (st.phase === "take") {
    const before = st.hand.length;
    await page.click("[data-testid=stock]");
    await page.waitForFunction(
      (n) =>
        document.querySelectorAll("[data-testid=rack] .tile").length > n ||
        document.querySelector("[data-testid=summary]"),
      before,
    );
    st = await read(page);
    if (st.summary) return st;
  }
  if (open && !st.opened && !st.firstTurn) {
    // Open with a natural run of three when the hand has one (classic Remi: a run is enough).
    const run = findRun(st.hand, 3);
    if (run && st.hand.length > 4) {
      await layFormation(page, run);
      st = await read(page);
    }
  }
  const pick =
    [...st.hand].reverse().find((t) => !keep.includes(t) && !face(t).joker) ??
    st.hand[st.hand.length - 1];
  await page.click(slotSel(slotOf(st, pick)));
  await watchTurnEnd(page);
  await page.click("[data-testid=discard]");
  await waitNotMyTurn(page);
  return read(page);
}

export async function waitToastText(page) {
  await page.waitForSelector("#toast.show");
  return page.locator("#toast .toast-text").textContent();
}

export async function closeToast(page) {
  await page.evaluate(() => document.getElementById("toast")?.classList.remove("show"));
}

/** Put `tiles` side by side in a free stretch of the rack (by drag), wait for the server's
 * value above them, and lay with the button; returns the new meld's index. */
export async function layFormation(page, tiles) {
  const wanted = [...tiles];
  let st = await read(page);
  let start = emptyStretch(st, tiles.length, tiles);
  if (start === null) {
    // No room: sorting by suit puts runs apart, each bounded by gaps.
    await page.click("[data-testid=sort-suit]");
    st = await read(page);
    start = emptyStretch(st, tiles.length, tiles);
    if (start === null) {
      const slots = tiles.map((t) => slotOf(st, t)).sort((a, b) => a - b);
      const together =
        slots.every((x, i) => i === 0 || x === slots[i - 1] + 1) &&
        Math.floor(slots[0] / st.cols) === Math.floor(slots[slots.length - 1] / st.cols);
      if (together) {
        // The formation starts at the first tile of its group.
        let first = slots[0];
        while (first % st.cols > 0 && st.rack[first - 1].tile !== null) first--;
        start = first;
        tiles = [];
      }
    }
  }
  if (start === null) {
    // Still no room: clear the first slots of the last rack row (the formation and the gap
    // after it), moving whatever else sits there to empty slots elsewhere.
    const rows = Math.ceil(st.rack.length / st.cols);
    const base = (rows - 1) * st.cols;
    const zone = new Set(Array.from({ length: tiles.length + 1 }, (_, k) => base + k));
    for (const i of zone) {
      st = await read(page);
      const t = st.rack[i].tile;
      if (t === null || tiles.includes(t)) continue;
      const free = st.rack.find((x) => x.tile === null && !zone.has(x.slot));
      assert.ok(free, "an empty slot outside the formation's stretch");
      await drag(page, slotSel(i), slotSel(free.slot));
      await page.waitForFunction(
        ([tile, slot]) =>
          document.querySelector(`[data-testid=rack] [data-slot="${slot}"]`)?.dataset.tile ===
          String(tile),
        [t, free.slot],
      );
    }
    start = base;
  }
  assert.notEqual(start, null, "room on the rack for a formation");
  await placeTiles(page, tiles, start);
  // The server's answer: the formation's value written above it, the lay button unlocked.
  await page.waitForSelector(`[data-testid=formation-${start}] .fval`);
  await page.waitForSelector("[data-testid=lay]:not([disabled])");
  const melds = (await read(page)).melds.length;
  await page.click("[data-testid=lay]");
  await page.waitForFunction(
    (n) => document.querySelectorAll("[data-testid=melds] .meld").length > n,
    melds,
  );
  st = await read(page);
  return st.melds.findIndex((m) => wanted.every((t) => m.includes(t)));
}

/** A finger drag (Chrome DevTools touch events: what a phone sends). */
export async function touchDrag(page, from, to) {
  await box(page, from);
  await box(page, to);
  await showEnds(page, from, to);
  const a = await box(page, from);
  const cdp = await page.context().newCDPSession(page);
  const at = (x, y) => [{ x, y, id: 1, radiusX: 4, radiusY: 4, force: 1 }];
  await cdp.send("Input.dispatchTouchEvent", {
    type: "touchStart",
    touchPoints: at(a.x + a.width / 2, a.y + a.height / 2),
  });
  await dragWith(page, from, to, (x, y) =>
    cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: at(x, y) }),
  );
  await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
  await cdp.detach();
}

/** Click, closing the round summary first if it pops up over the table meanwhile. */
export async function clickThrough(page, sel) {
  for (let i = 0; i < 5; i++) {
    if ((await read(page)).summary)
      await page.click("[data-testid=summary-close]").catch(() => undefined);
    try {
      await page.click(sel, { timeout: 3000 });
      return;
    } catch {
      /* covered: try again */
    }
  }
  await page.click(sel);
}

// ---------------------------------------------------------------- finished rounds

/** A room of `variant` filled with bots and one round long, made by the page's player
 * through the HTTP API; the player starts it from the waiting room (so this browser sees
 * the deal), then leaves the seat to a bot. Resolves with the room's id once the round is
 * over. */
export async function botRound(page, url, { variant = "remi", seats = 3, isPublic = true } = {}) {
  const body = {
    variant,
    seats,
    public: isPublic,
    fill_with_bots: true,
    bot_level: "easy",
    end: { kind: "rounds", rounds: 1 },
  };
  const room = await page.evaluate(async (b) => {
    const r = await fetch("/api/rooms", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(b),
    });
    if (!r.ok) throw new Error(await r.text());
    return (await r.json()).id;
  }, body);
  // The room's socket answers its hello before the start: this browser gets the deal itself.
  const answered = new Promise((ok) =>
    page.on("websocket", (ws) => ws.on("framereceived", () => ok())),
  );
  await page.goto(`${url}/#/room/${encodeURIComponent(room)}`);
  await answered;
  await page.click("[data-testid=start]");
  await page.waitForSelector("[data-testid=rack] .tile");
  await page.click("[data-testid=leave]");
  // The round's record is stored a moment after the round ends: wait for it, not the scores.
  const deadline = Date.now() + 150_000;
  const stored = (id) =>
    fetch(`/api/rooms/${encodeURIComponent(id)}/rounds/1/verify`).then((r) => r.ok);
  while (!(await page.evaluate(stored, room))) {
    assert.ok(Date.now() < deadline, "the bots did not finish the round");
    await page.waitForTimeout(500);
  }
  return room;
}

// ---------------------------------------------------------------- checks of a whole page

const AXE = createRequire(import.meta.url).resolve("axe-core/axe.min.js");

/** axe's violations of impact serious or critical on the page as it is now, or within the
 * element `selector` names (each one found printed); the page's browser needs `bypassCSP`
 * (axe is injected as a script). */
export async function axeSerious(page, where, selector = null) {
  await page.addScriptTag({ path: AXE });
  const found = await page.evaluate(async (sel) => {
    const r = await window.axe.run(sel ? document.querySelector(sel) : document, {
      runOnly: {
        type: "tag",
        values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"],
      },
    });
    return r.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
    }));
  }, selector);
  for (const v of found)
    console.log(`# ${where}: ${v.impact} ${v.id} (${v.help}): ${v.nodes.join(", ")}`);
  return found.filter((v) => v.impact === "serious" || v.impact === "critical");
}

/** Elements that stick out of the screen sideways, unless a box of theirs scrolls or clips
 * them within the screen. */
export async function overflowing(page) {
  return page.evaluate(() => {
    const vw = window.innerWidth;
    const out = [];
    for (const el of document.querySelectorAll("body *")) {
      const r = el.getBoundingClientRect();
      if (!r.width || (r.right <= vw + 0.5 && r.left >= -0.5)) continue;
      let held = false;
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) {
        const ox = getComputedStyle(a).overflowX;
        if (ox !== "visible") {
          const b = a.getBoundingClientRect();
          if (b.right <= vw + 0.5 && b.left >= -0.5) held = true;
          break;
        }
      }
      if (!held)
        out.push(
          `${el.tagName.toLowerCase()}.${[...el.classList].join(".")} "${(el.textContent ?? "").trim().slice(0, 30)}" ${Math.round(r.left)}..${Math.round(r.right)}`,
        );
    }
    if (document.documentElement.scrollWidth > vw)
      out.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${vw})`);
    return out.slice(0, 10);
  });
}
