// Replays: a finished round of a public table played by bots, linked from
// the player's profile (the match history) and from the score sheet; step by step (first, previous, next, last, the keyboard, play at a speed)
// with every hand, the stock in order and the atu as the server's replay has them, each
// step's move in words (Romanian and English); the link shared with another player, who
// sees the same round; the round downloaded as a scenario file that the scenario runner
// passes. At 1280×800 and 390×844.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "./fixtures.mjs";
import { DESKTOP, PHONE } from "./browser.mjs";
import { botRound, shot } from "./play.mjs";
import { REPO } from "./server.mjs";
import { browserSession } from "./session.mjs";

const session = browserSession();
const { open, named, problems } = session;

/** The step shown, and what the page draws of it. */
async function shown(page) {
  return page.evaluate(() => {
    const tiles = (el) => (el?.dataset.tiles ? el.dataset.tiles.split(" ").map(Number) : []);
    return {
      step: Number(document.querySelector("[data-testid=replay]")?.dataset.step),
      count: document.querySelector("[data-testid=replay-step]")?.textContent,
      move: document.querySelector("[data-testid=replay-move]")?.textContent,
      hands: [...document.querySelectorAll("[data-testid^=replay-hand-]")].map(tiles),
      stock: tiles(document.querySelector("[data-testid=replay-stock]")),
      row: tiles(document.querySelector("[data-testid=replay-row]")),
      atu: document.querySelector("[data-testid=replay-atu]")?.dataset.tile ?? null,
      result: !!document.querySelector("[data-testid=replay-result]"),
    };
  });
}

const stepIs = (page, n) =>
  page.waitForFunction(
    (k) => document.querySelector("[data-testid=replay]")?.dataset.step === String(k),
    n,
  );

test("a finished round, step by step, shared and downloaded as a scenario", async () => {
  test.setTimeout(300_000);
  const ana = await open(DESKTOP);
  await named(ana, "Ana");
  const room = await botRound(ana, session.server.url, { variant: "remi", seats: 3 });
  const data = await ana.evaluate(
    (id) => fetch(`/api/rooms/${id}/rounds/1/replay`).then((r) => r.json()),
    room,
  );
  assert.ok(data.steps, JSON.stringify(data));
  const last = data.steps.length - 1;
  assert.ok(last > 10, `a round of ${last} moves`);

  // The player's profile lists the finished match with its rounds' replays (the match is
  // recorded a moment after its last round: the page is opened again until it is).
  const me = await ana.evaluate(() => fetch("/api/me").then((r) => r.json()));
  const fromProfile = ana.locator(`[data-testid=match-replay-${room}-1]`);
  for (let i = 0; i < 20 && !(await fromProfile.count()); i++) {
    await ana.goto(`${session.server.url}/#/`);
    await ana.goto(`${session.server.url}/#/player/${me.id}`);
    await ana.waitForSelector("[data-testid=profile-matches] li");
  }
  assert.equal(await fromProfile.getAttribute("href"), `#/replay/${room}/1`);

  // The score sheet of the finished match links to the round's replay and its check.
  await ana.goto(`${session.server.url}/#/room/${room}`);
  await ana.waitForSelector("[data-testid=scores-open]");
  await ana.waitForTimeout(300);
  if (await ana.locator("[data-testid=summary-close]").count())
    await ana.click("[data-testid=summary-close]");
  await ana.click("[data-testid=scores-open]");
  const link = ana.locator("[data-testid=scores-replay-1]");
  assert.equal(await link.getAttribute("href"), `#/replay/${room}/1`);
  assert.equal(await link.getAttribute("target"), "_blank");
  assert.equal(
    await ana.locator("[data-testid=scores-verify-1]").getAttribute("href"),
    `#/verify/${room}/1`,
  );
  await ana.goto(`${session.server.url}/#/replay/${room}/1`);
  await ana.waitForSelector("[data-testid=replay-move]");

  // Step 0: the deal, every hand, the whole stock top first, the atu.
  let st = await shown(ana);
  assert.equal(st.step, 0);
  assert.equal(st.count, `Pasul 0 din ${last}`);
  assert.deepEqual(st.hands, data.steps[0].hands);
  assert.deepEqual(st.stock, data.steps[0].stock);
  assert.equal(Number(st.atu), data.steps[0].atu);
  assert.match(st.move, /^Runda 1 a fost împărțită: începe Ana$/);
  assert.ok(await ana.locator("[data-testid=replay-prev]").isDisabled());
  await shot(ana, "replay-desktop.png");

  // Next: the first move (the first player discards), in words, and the table after it.
  await ana.click("[data-testid=replay-next]");
  await stepIs(ana, 1);
  st = await shown(ana);
  assert.equal(data.steps[1].event.do, "discard");
  assert.match(st.move, /^Ana a aruncat \S+$/);
  assert.deepEqual(st.row, data.steps[1].row);
  assert.deepEqual(st.hands, data.steps[1].hands);
  // A stock draw shows the tile drawn: all is revealed in a replay.
  const draw = data.steps.findIndex(
    (s) => s.event?.do === "draw" && typeof s.event.tile === "number",
  );
  assert.ok(draw > 0);
  await ana.fill("[data-testid=replay-slider]", String(draw));
  await stepIs(ana, draw);
  assert.match((await shown(ana)).move, / a tras \S+ din talon$/);
  assert.deepEqual((await shown(ana)).stock, data.steps[draw].stock);

  // The keyboard: arrows, Home, End; previous; last shows the result as stored.
  await ana.keyboard.press("ArrowRight");
  await stepIs(ana, draw + 1);
  await ana.keyboard.press("ArrowLeft");
  await stepIs(ana, draw);
  await ana.click("[data-testid=replay-prev]");
  await stepIs(ana, draw - 1);
  await ana.click("[data-testid=replay-last]");
  await stepIs(ana, last);
  st = await shown(ana);
  assert.ok(st.result);
  const scores = await ana.evaluate(
    (id) => fetch(`/api/rooms/${id}/scores`).then((r) => r.json()),
    room,
  );
  for (const [seat, x] of scores.rounds[0].scores.entries()) {
    assert.equal(
      await ana.locator(`[data-testid=replay-score-${seat}] strong`).textContent(),
      x > 0 ? `+${x}` : String(x),
    );
  }
  assert.deepEqual(st.hands, data.steps[last].hands);
  assert.ok(await ana.locator("[data-testid=replay-next]").isDisabled());
  await ana.keyboard.press("Home");
  await stepIs(ana, 0);
  assert.ok(await ana.locator("[data-testid=replay-first]").isDisabled());

  // Play at a speed: 2 steps a second (slow enough that a loaded machine's pause still
  // comes before the last step, where "play" would start again from the first); pause
  // stops it where it is.
  await ana.selectOption("[data-testid=replay-speed]", "2");
  await ana.click("[data-testid=replay-play]");
  await ana.waitForFunction(
    () => Number(document.querySelector("[data-testid=replay]")?.dataset.step) >= 2,
    null,
    { timeout: 10_000 },
  );
  await ana.click("[data-testid=replay-play]");
  const paused = (await shown(ana)).step;
  await ana.waitForTimeout(600);
  assert.equal((await shown(ana)).step, paused);
  assert.equal(await ana.locator("[data-testid=replay-play]").getAttribute("aria-label"), "Redă");

  // In English.
  await ana.click("[data-testid=lang]");
  if (!(await ana.locator("[data-testid=replay-first]").isDisabled()))
    await ana.click("[data-testid=replay-first]");
  await stepIs(ana, 0);
  assert.match((await shown(ana)).move, /^Round 1 dealt: Ana starts$/);
  await ana.click("[data-testid=replay-next]");
  assert.match((await shown(ana)).move, /^Ana discarded \S+$/);
  assert.equal((await shown(ana)).count, `Step 1 of ${last}`);
  await ana.click("[data-testid=lang]");

  // The link to share; the scenario file, which the scenario runner passes.
  const shared = await ana.locator("[data-testid=replay-link]").inputValue();
  assert.equal(shared, `${session.server.url}/#/replay/${room}/1`);
  const [download] = await Promise.all([
    ana.waitForEvent("download"),
    ana.click("[data-testid=replay-download]"),
  ]);
  assert.equal(download.suggestedFilename(), `remi-${room}-round-1.json`);
  const file = join(tmpdir(), `remi-e2e-${room}-round-1.json`);
  await download.saveAs(file);
  const run = spawnSync(
    join(REPO, ".venv", "bin", "python"),
    ["-m", "server.rules.scenario", file],
    { cwd: REPO, encoding: "utf8" },
  );
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /^PASS .*\n1 passed, 0 failed\n$/);
  assert.equal(
    await ana.locator("[data-testid=replay-verify]").getAttribute("href"),
    `#/verify/${room}/1`,
  );

  // Another player opens the shared link on a phone: the same round, the same steps.
  const eve = await open(PHONE);
  await named(eve, "Eve");
  await eve.goto(shared);
  await eve.waitForSelector("[data-testid=replay-move]");
  st = await shown(eve);
  assert.deepEqual(st.hands, data.steps[0].hands);
  await shot(eve, "replay-phone.png");
  await eve.click("[data-testid=replay-next]");
  await eve.click("[data-testid=replay-next]");
  await stepIs(eve, 2);
  assert.deepEqual((await shown(eve)).hands, data.steps[2].hands);
  // Nothing wider than the phone's screen.
  const wide = await eve.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 390, `the page is ${wide} px wide`);
  await shot(eve, "replay-step-phone.png");

  // A round that does not exist says so.
  await eve.goto(`${session.server.url}/#/replay/${room}/7`);
  await eve.waitForSelector("[data-testid=round-error]");
  assert.match(await eve.locator("[data-testid=round-error]").textContent(), /nu are o rundă/);
  assert.deepEqual(problems, []);
});
