// The coach in the replay: a finished round of a public table played by bots; its replay
// page starts a review of the player's seat, which runs in the practice worker's Pyodide
// (server/bots/coach.py): progress shows, flagged decisions appear in the list and as
// marks on the timeline, a mark and a decision's button jump to its move, and the review
// stops when asked. At 1280×800 and 390×844. In the offline practice: a hint on the
// player's turn (what the hard level would do, in words), the same review once the round
// is over; no hint at an online table. After a reload between two rounds of a practice
// match, its finished round is still reviewed (from the table's header and from the score
// sheet's row of that round), never showing a bot's hidden tiles; once a practice match
// is over, its rounds are reviewed from the lobby's history (its score sheet).
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { DESKTOP, PHONE } from "./browser.mjs";
import { botRound, plainTurn, read, shot } from "./play.mjs";
import { browserSession } from "./session.mjs";

const session = browserSession();
const { open, named, problems } = session;

const stepIs = (page, n) =>
  page.waitForFunction(
    (k) => document.querySelector("[data-testid=replay]")?.dataset.step === String(k),
    n,
  );

test("a replay's review fills in flagged decisions on the timeline, jumps to them and stops", async () => {
  test.setTimeout(900_000);
  const ana = await open(DESKTOP);
  await named(ana, "Ana");
  // A round of easy bots usually has several decisions that clearly cost points; when the
  // review of one ends with none, another round is played and reviewed.
  let room;
  let seat;
  let record;
  let mine;
  for (let attempt = 1; ; attempt++) {
    room = await botRound(ana, session.server.url, { variant: "remi", seats: 3 });
    const data = await ana.evaluate(
      (id) => fetch(`/api/rooms/${id}/rounds/1/replay`).then((r) => r.json()),
      room,
    );
    seat = data.seats.find((s) => s.name === "Ana").seat;
    record = await ana.evaluate(
      (id) => fetch(`/api/rooms/${id}/rounds/1/verify`).then((r) => r.json()),
      room,
    );
    mine = record.actions.filter(([s]) => s === seat).length;

    // A short budget per decision: the test waits for flags, not for a thorough review.
    await ana.evaluate(() => localStorage.setItem("remi.coach.budget", "0.4"));
    await ana.goto(`${session.server.url}/#/replay/${room}/1`);
    await ana.waitForSelector("[data-testid=coach-start]");
    assert.equal(
      await ana.locator("[data-testid=coach-seat]").inputValue(),
      String(seat),
      "Ana's own seat is reviewed",
    );
    assert.equal(await ana.locator("[data-testid^=coach-mark-]").count(), 0);
    await ana.click("[data-testid=coach-start]");
    await ana.waitForSelector("[data-testid=coach-stop]");

    // Progress: "k din N decizii analizate", N the seat's actions in the round's log.
    await ana.waitForFunction(
      () =>
        /^[1-9]\d* din \d+ decizii analizate$/.test(
          document.querySelector("[data-testid=coach-status]")?.textContent ?? "",
        ),
      null,
      { timeout: 240_000 },
    );
    const status = await ana.locator("[data-testid=coach-status]").textContent();
    assert.equal(Number(status.split(" ")[2]), mine);

    // The first flagged decision appears in the list and as a mark on the timeline (or the
    // review ends with none).
    await ana.waitForFunction(
      () =>
        document.querySelector("[data-testid^=coach-mark-]") !== null ||
        /^Gata: nicio decizie/.test(
          document.querySelector("[data-testid=coach-status]")?.textContent ?? "",
        ),
      null,
      { timeout: 400_000 },
    );
    if (await ana.locator("[data-testid^=coach-mark-]").count()) break;
    assert.ok(attempt < 3, "three rounds reviewed, not one decision flagged");
  }
  const mark = ana.locator("[data-testid^=coach-mark-]").first();
  const index = Number((await mark.getAttribute("data-testid")).slice("coach-mark-".length));
  assert.equal(record.actions[index][0], seat, "a flag is a decision of the reviewed seat");
  const flag = ana.locator(`[data-testid=coach-flag-${index}]`);
  assert.match(
    await flag.textContent(),
    new RegExp(`^Mutarea ${index + 1}: .+ a costat cam \\d+ (de )?punct(e)?: era mai bine .+\\.`),
  );
  assert.equal(await mark.getAttribute("data-step"), String(index + 1));

  // A mark and the flag's button both show the move.
  await mark.click();
  await stepIs(ana, index + 1);
  await ana.click("[data-testid=replay-first]");
  await stepIs(ana, 0);
  await ana.click(`[data-testid=coach-go-${index}]`);
  await stepIs(ana, index + 1);
  // The page's redraws keep the marks and the panel.
  assert.ok(await ana.locator(`[data-testid=coach-mark-${index}]`).count());
  await shot(ana, "coach-replay-desktop.png");

  // Stopped: the review ends after the decision it is valuing.
  if (await stopIfRunning(ana)) {
    await ana.waitForFunction(
      () =>
        /^(Oprit după|Gata)/.test(
          document.querySelector("[data-testid=coach-status]")?.textContent ?? "",
        ),
      null,
      { timeout: 120_000 },
    );
    const done = await ana.locator("[data-testid=coach-status]").textContent();
    if (done.startsWith("Oprit")) assert.ok(Number(done.split(" ")[2]) < mine, done);
  }
  await ana.waitForSelector("[data-testid=coach-start]");
  assert.ok((await ana.locator("[data-testid^=coach-flag-]").count()) >= 1);

  // On a phone: the panel and the marks fit the width.
  const phone = await open(PHONE);
  await phone.goto(`${session.server.url}/#/replay/${room}/1`);
  await phone.evaluate(() => localStorage.setItem("remi.coach.budget", "0.2"));
  await phone.waitForSelector("[data-testid=coach-start]");
  const wide = await phone.evaluate(
    () => document.documentElement.scrollWidth <= window.innerWidth,
  );
  assert.ok(wide, "no sideways scroll on a phone");
  await shot(phone, "coach-replay-phone.png");
  assert.deepEqual(problems, []);
});

/** A practice match on this device against one easy bot, `rounds` long (1: one round),
 * the bots quick and the coach's budget short; once its deal shows. */
async function practiceMatch(page, rounds) {
  await page.evaluate(() => {
    localStorage.setItem("remi.practice.bot_delay", "0.05");
    localStorage.setItem("remi.coach.budget", "0.3");
  });
  await page.waitForSelector("[data-testid=local-practice]", { timeout: 60_000 });
  await page.selectOption("[data-testid=local-variant]", "remi");
  await page.selectOption("[data-testid=local-seats]", "2");
  await page.selectOption("[data-testid=local-level-1]", "easy");
  if (rounds === 1) await page.selectOption("[data-testid=local-end]", "one");
  else {
    await page.selectOption("[data-testid=local-end]", "rounds");
    await page.fill("[data-testid=local-end-value]", String(rounds));
  }
  await page.click("[data-testid=local-start]");
  await page.waitForSelector("[data-testid=rack] .tile", { timeout: 90_000 });
}

/** The player's turns played plainly until the round's summary shows. */
/** Stops the review if it is still running; true when it was. The review may end between
 * the look and the click (its panel is drawn again after each decision): then there is
 * nothing to stop. */
async function stopIfRunning(page) {
  const stop = page.locator("[data-testid=coach-stop]");
  if (!(await stop.count())) return false;
  try {
    await stop.click({ timeout: 10_000 });
  } catch (err) {
    if (await stop.count()) throw err; // still there, and not clickable
  }
  return true;
}

async function playToTheSummary(page, ms) {
  const deadline = Date.now() + ms;
  for (;;) {
    assert.ok(Date.now() < deadline, "the round ends in time");
    const st = await read(page);
    if (st.summary) break;
    if (st.mine && !st.busy) await plainTurn(page, []);
    await new Promise((r) => setTimeout(r, 50));
  }
}

test("the practice on this device: a hint on the player's turn, the round's review at its end; no hint online", async () => {
  test.setTimeout(600_000);
  const page = await open(PHONE);
  await named(page, "Bea");
  await practiceMatch(page, 1);

  // The hint: on the player's turn only, in words, from the hard level.
  let hinted = false;
  const deadline = Date.now() + 400_000;
  for (;;) {
    assert.ok(Date.now() < deadline, "the round ends in time");
    const st = await read(page);
    if (st.summary) break;
    if (st.mine && !st.busy) {
      if (!hinted) {
        await page.click("[data-testid=coach-hint]");
        await page.waitForFunction(
          () =>
            /^(Aruncarea|Tragerea|Așezarea|Luarea|Lipirea|Răscumpărarea|Apăsarea)/.test(
              document.querySelector("[data-testid=coach-hint-text]")?.textContent ?? "",
            ),
          null,
          { timeout: 120_000 },
        );
        await shot(page, "coach-hint-phone.png");
        await page.click("[data-testid=coach-hint-box-close]");
        hinted = true;
      }
      await plainTurn(page, []);
    } else {
      // Read at once (the bots play fast): the status and the header of one drawing.
      const stray = await page.evaluate(
        () =>
          !document.querySelector("[data-testid=status].mine") &&
          !!document.querySelector("[data-testid=coach-hint]"),
      );
      assert.equal(stray, false, "no hint on a bot's turn");
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(hinted);

  // The round is over: its review, in the worker, from the player's seat.
  if (await page.locator("[data-testid=summary-close]").count())
    await page.click("[data-testid=summary-close]");
  await page.click("[data-testid=coach-review]");
  await page.click("[data-testid=coach-start]");
  // A few decisions valued (the whole round takes minutes on a loaded machine), then stop.
  await page.waitForFunction(
    () =>
      /^([3-9]|\d\d+) din \d+ decizii analizate$/.test(
        document.querySelector("[data-testid=coach-status]")?.textContent ?? "",
      ) || /^Gata/.test(document.querySelector("[data-testid=coach-status]")?.textContent ?? ""),
    null,
    { timeout: 300_000 },
  );
  await stopIfRunning(page);
  await page.waitForFunction(
    () =>
      /^(Gata|Oprit)/.test(document.querySelector("[data-testid=coach-status]")?.textContent ?? ""),
    null,
    { timeout: 300_000 },
  );
  const flags = await page.locator("[data-testid^=coach-flag-]").count();
  assert.equal(await page.locator("[data-testid^=coach-mark-]").count(), flags);
  if (flags) {
    // A flag shows the player's own hand and the row then, nothing of the bot's hand.
    const first = page.locator("[data-testid^=coach-flag-]").first();
    assert.ok((await first.locator(".coach-position .tile").count()) > 0);
    await page.locator("[data-testid^=coach-mark-]").first().click();
  }
  await shot(page, "coach-practice-review-phone.png");
  await page.click("[data-testid=coach-review-box-close]");

  // Online, at a table of the server: no hint, no coach button.
  const room = await page.evaluate(async () => {
    const r = await fetch("/api/rooms", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({
        variant: "remi",
        seats: 2,
        fill_with_bots: true,
        bot_level: "easy",
        end: { kind: "rounds", rounds: 1 },
      }),
    });
    return (await r.json()).id;
  });
  await page.goto(`${session.server.url}/#/room/${encodeURIComponent(room)}`);
  await page.click("[data-testid=start]");
  await page.waitForSelector("[data-testid=rack] .tile");
  for (let i = 0; i < 40; i++) {
    const st = await read(page);
    if (st.mine) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(
    await page.locator("[data-testid=coach-hint], [data-testid=coach-review]").count(),
    0,
    "no coach online",
  );
  assert.deepEqual(problems, []);
});

/** What this browser's IndexedDB of the practice (practice/store.ts) holds in `store`:
 * the value under `key`, or every value when no key is given. */
const practiceStore = (page, store, key = null) =>
  page.evaluate(
    ([name, k]) =>
      new Promise((resolve, reject) => {
        const req = indexedDB.open("remi-practice");
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const db = req.result;
          const all = db.transaction(name).objectStore(name);
          const get = k === null ? all.getAll() : all.get(k);
          get.onsuccess = () => {
            db.close();
            resolve(get.result ?? null);
          };
          get.onerror = () => reject(get.error);
        };
      }),
    [store, key],
  );

/** The practice match kept on this device: the worker's state, as the Python room keeps
 * it (null: none). */
const keptPractice = async (page) => {
  const kept = await practiceStore(page, "game", "current");
  return kept ? JSON.parse(kept.state) : null;
};

/** The finished practice matches kept on this device. */
const practiceHistory = (page) => practiceStore(page, "history");

/** Tile ids named in actions (their tile, tiles and melds fields). */
function tilesIn(x, tiles = false) {
  if (Array.isArray(x)) return x.flatMap((v) => tilesIn(v, tiles));
  if (x && typeof x === "object")
    return Object.entries(x).flatMap(([k, v]) =>
      tilesIn(v, ["tile", "tiles", "melds"].includes(k)),
    );
  return tiles && Number.isInteger(x) ? [x] : [];
}

/** The bot's (seat 1's) hidden tiles before move `i` of a kept practice round: those dealt
 * to it or drawn by it from the stock (the k-th draw of the round takes the deal's k-th
 * stock tile) that it had not played yet. */
function hiddenAt(round, deal, i) {
  const held = new Set(deal.hands[1]);
  let drawn = 0;
  for (const [seat, action] of round.log.slice(0, i)) {
    if (action.do === "draw") {
      if (seat === 1) held.add(deal.stock[drawn]);
      drawn += 1;
    } else if (seat === 1) for (const x of tilesIn(action)) held.delete(x);
  }
  return [...held];
}

/** Start the open review dialog's review: its progress counts the `mine` moves of the
 * player (unless it is already over). */
async function startReview(page, mine) {
  await page.click("[data-testid=coach-start]");
  await page.waitForFunction(
    () =>
      /^[1-9]\d* din \d+ decizii analizate$|^Gata/.test(
        document.querySelector("[data-testid=coach-status]")?.textContent ?? "",
      ),
    null,
    { timeout: 300_000 },
  );
  const status = await page.locator("[data-testid=coach-status]").textContent();
  if (!status.startsWith("Gata")) assert.equal(Number(status.split(" ")[2]), mine, status);
}

/** Review a kept practice round in the open dialog (`mine`: the player's moves in it),
 * to its end: the progress, the flags as marks, each flag a move of the
 * player's seat showing the player's hand and the row then and never a tile the bot held
 * hidden (`deal`: the round's deal); with no flag, no tile at all. Returns the flags. */
async function reviewToTheEnd(page, round, deal, mine) {
  await startReview(page, mine);
  // The whole review, to its end: flags, or "no decision clearly cost points".
  await page.waitForFunction(
    () => /^Gata/.test(document.querySelector("[data-testid=coach-status]")?.textContent ?? ""),
    null,
    { timeout: 400_000 },
  );
  const flags = await page.locator("[data-testid^=coach-flag-]").count();
  assert.equal(await page.locator("[data-testid^=coach-mark-]").count(), flags);
  const done = await page.locator("[data-testid=coach-status]").textContent();
  if (flags) {
    assert.match(done, new RegExp(`^Gata: ${flags} (de )?decizi(e a|i au) costat puncte\\.$`));
    const first = page.locator("[data-testid^=coach-flag-]").first();
    assert.ok((await first.locator(".coach-position .tile").count()) > 0);
    const index = Number((await first.getAttribute("data-testid")).slice("coach-flag-".length));
    assert.equal(round.log[index][0], 0, "a flag is a decision of the player's seat");
    await page.locator("[data-testid^=coach-mark-]").first().click();
  } else {
    assert.equal(done, "Gata: nicio decizie nu a costat clar puncte.");
    assert.equal(await page.locator("[data-testid=coach-review-box] [data-tile]").count(), 0);
  }
  const positions = await page.$$eval("[data-testid^=coach-flag-]", (els) =>
    els.map((el) => [
      Number(el.dataset.testid.slice("coach-flag-".length)),
      [...el.querySelectorAll(".coach-position [data-tile]")].map((t) => Number(t.dataset.tile)),
    ]),
  );
  for (const [i, tiles] of positions) {
    const hidden = hiddenAt(round, deal, i);
    assert.ok(hidden.length > 0, `the bot held tiles at move ${i + 1}`);
    assert.deepEqual(
      tiles.filter((x) => hidden.includes(x)),
      [],
      `no hidden tile of the bot at move ${i + 1}`,
    );
  }
  const wide = await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
  assert.ok(wide, "no sideways scroll on a phone");
  return flags;
}

test("a practice round is reviewed after a reload: from the header and from the score sheet", async () => {
  test.setTimeout(600_000);
  const page = await open(PHONE);
  await named(page, "Cora");
  await practiceMatch(page, 2);
  await playToTheSummary(page, 400_000);

  // Round 1 is over, round 2 not dealt: the page is reloaded. The finished round is kept
  // with the match on this device.
  await page.reload();
  await page.waitForSelector("[data-testid=scores-open]", { timeout: 90_000 });
  const kept = await keptPractice(page);
  assert.deepEqual(
    kept.finished.map((r) => r.number),
    [1],
  );
  const round = kept.finished[0];
  const mine = round.log.filter(([s]) => s === 0).length;
  const deal = round.options.deal;

  // The table's header offers the last finished round's review; the score sheet, one per
  // finished round.
  await page.waitForSelector("[data-testid=coach-review]");
  await page.click("[data-testid=scores-open]");
  await page.click("[data-testid=scores-review-1]");
  await page.waitForSelector("[data-testid=coach-review-box]");
  assert.equal(await page.locator("#scores-modal").count(), 0, "the score sheet made way");
  await reviewToTheEnd(page, round, deal, mine);
  await shot(page, "coach-practice-reload-phone.png");
  await page.click("[data-testid=coach-review-box-close]");

  // The header's button reviews the same round (the last finished one).
  await page.click("[data-testid=coach-review]");
  await startReview(page, mine);
  await stopIfRunning(page);
  await page.click("[data-testid=coach-review-box-close]");
  assert.deepEqual(problems, []);
});

test("a finished practice match's round is reviewed from the lobby's history after a reload", async () => {
  test.setTimeout(600_000);
  const page = await open(PHONE);
  await named(page, "Dan");
  // A full history already (HISTORY_KEPT, 20 matches kept before rounds were): the
  // oldest goes when this match comes.
  await page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const req = indexedDB.open("remi-practice", 1);
        req.onupgradeneeded = () => {
          req.result.createObjectStore("game");
          req.result.createObjectStore("history", { keyPath: "id", autoIncrement: true });
        };
        req.onerror = () => reject(req.error);
        req.onsuccess = () => {
          const db = req.result;
          const tx = db.transaction("history", "readwrite");
          for (let i = 0; i < 20; i++)
            tx.objectStore("history").add({
              finished_at: Date.now() - (20 - i) * 60_000,
              settings: { variant: "remi", seats: 2, bot_levels: ["easy"], turn_seconds: null },
              scores: { rounds: [[i, -i]], totals: [i, -i], over: true, winners: [0] },
              name: "Dan",
            });
          tx.oncomplete = () => {
            db.close();
            resolve();
          };
          tx.onerror = () => reject(tx.error);
        };
      }),
  );
  await practiceMatch(page, 1);
  await playToTheSummary(page, 300_000);

  // The match is over: it goes into the history with its round (the oldest of the 20
  // before it gone), the kept game goes.
  let past = [];
  for (let i = 0; i < 100 && !past.some((e) => e.rounds); i++) {
    past = await practiceHistory(page);
    if (!past.some((e) => e.rounds)) await new Promise((r) => setTimeout(r, 100));
  }
  assert.equal(past.length, 20, "the history keeps 20 matches");
  assert.deepEqual(
    past.map((e) => e.scores.totals[0]).slice(0, 19),
    Array.from({ length: 19 }, (_, i) => i + 1),
    "the oldest match went",
  );
  assert.equal(await keptPractice(page), null, "no kept game left");
  const ours = past[19];
  const round = ours.rounds?.[0];
  assert.ok(round, "the match's round is kept with its history entry");
  assert.deepEqual(
    ours.rounds.map((r) => r.number),
    [1],
  );
  const mine = round.log.filter(([s]) => s === 0).length;

  // From the lobby, after a reload: the history's score sheet, its round's 🔍.
  await page.goto(`${session.server.url}/#/`);
  await page.reload();
  await page.waitForSelector("[data-testid=practice-history-entry]", { timeout: 60_000 });
  assert.equal(await page.locator("[data-testid=local-resume]").count(), 0);
  assert.equal(await page.locator("[data-testid=practice-history-entry]").count(), 20);
  // A match kept before rounds were: its score sheet, no review.
  await page.locator("[data-testid=practice-history-scores]").nth(1).click();
  await page.waitForSelector("[data-testid=scores] [data-testid=scores-round-1]");
  assert.equal(await page.locator("[data-testid=scores] [data-testid^=scores-review-]").count(), 0);
  await page.click("[data-testid=scores-close]");
  // The newest, this match: its round's review.
  await page.locator("[data-testid=practice-history-scores]").first().click();
  await page.waitForSelector("[data-testid=scores] [data-testid=scores-round-1]");
  assert.equal(await page.locator("[data-testid=scores] [data-testid^=scores-review-]").count(), 1);
  await page.click("[data-testid=scores-review-1]");
  await page.waitForSelector("[data-testid=coach-review-box]");
  assert.equal(await page.locator("#scores-modal").count(), 0, "the score sheet made way");
  await reviewToTheEnd(page, round, round.deal, mine);
  // The dialog from its title: the round named, then the review.
  await page.evaluate(() => {
    const box = document.querySelector("[data-testid=coach-review-box]");
    for (const el of [box, ...box.querySelectorAll("*")]) el.scrollTop = 0;
    window.scrollTo(0, 0);
  });
  await shot(page, "coach-practice-history-phone.png");
  await page.click("[data-testid=coach-review-box-close]");
  assert.deepEqual(problems, []);
});
