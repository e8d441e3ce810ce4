// The coach in the replay: a finished round of a public table played by bots; its replay
// page starts a review of the player's seat, which runs in the practice worker's Pyodide
// (server/bots/coach.py): progress shows, flagged decisions appear in the list and as
// marks on the timeline, a mark and a decision's button jump to its move, and the review
// stops when asked. At 1280×800 and 390×844. In the offline practice: a hint on the
// player's turn (what the hard level would do, in words), the same review once the round
// is over; no hint at an online table.
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
  test.setTimeout(600_000);
  const ana = await open(DESKTOP);
  await named(ana, "Ana");
  const room = await botRound(ana, session.server.url, { variant: "remi", seats: 3 });
  const data = await ana.evaluate(
    (id) => fetch(`/api/rooms/${id}/rounds/1/replay`).then((r) => r.json()),
    room,
  );
  const seat = data.seats.find((s) => s.name === "Ana").seat;
  const record = await ana.evaluate(
    (id) => fetch(`/api/rooms/${id}/rounds/1/verify`).then((r) => r.json()),
    room,
  );
  const mine = record.actions.filter(([s]) => s === seat).length;

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

  // The first flagged decision appears in the list and as a mark on the timeline.
  await ana.waitForSelector("[data-testid^=coach-mark-]", { timeout: 400_000, state: "attached" });
  const mark = ana.locator("[data-testid^=coach-mark-]").first();
  const index = Number((await mark.getAttribute("data-testid")).slice("coach-mark-".length));
  assert.equal(record.actions[index][0], seat, "a flag is a decision of the reviewed seat");
  const flag = ana.locator(`[data-testid=coach-flag-${index}]`);
  assert.match(
    await flag.textContent(),
    new RegExp(`^Mutarea ${index + 1}: .+ a costat cam \\d+ puncte: era mai bine .+\\.`),
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
  if (await ana.locator("[data-testid=coach-stop]").count()) {
    await ana.click("[data-testid=coach-stop]");
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

test("the practice on this device: a hint on the player's turn, the round's review at its end; no hint online", async () => {
  test.setTimeout(600_000);
  const page = await open(PHONE);
  await named(page, "Bea");
  await page.evaluate(() => {
    localStorage.setItem("remi.practice.bot_delay", "0.05");
    localStorage.setItem("remi.coach.budget", "0.3");
  });
  await page.waitForSelector("[data-testid=local-practice]", { timeout: 60_000 });
  await page.selectOption("[data-testid=local-variant]", "remi");
  await page.selectOption("[data-testid=local-seats]", "2");
  await page.selectOption("[data-testid=local-level-1]", "easy");
  await page.selectOption("[data-testid=local-end]", "one");
  await page.click("[data-testid=local-start]");
  await page.waitForSelector("[data-testid=rack] .tile", { timeout: 90_000 });

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
  if (await page.locator("[data-testid=coach-stop]").count())
    await page.click("[data-testid=coach-stop]");
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
