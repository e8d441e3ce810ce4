// The deal anyone can check: a Remi 101 round played by bots, dealt while
// its player watched; the verify page recomputes in the browser SHA-256(seed) and the
// shuffle of the seed, and compares them with the round's record, with the commitment and
// the hand this browser was given at the deal; another player's browser, which never saw
// the deal, checks the same record; a record tampered on its way (the seed, the stock, the
// commitment) is caught by the page itself; the record downloaded passes
// `python -m server.cli verify`. At 1280×800 and 390×844.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "./fixtures.mjs";
import { DESKTOP, PHONE } from "./browser.mjs";
import { botRound, shot } from "./play.mjs";
import { REPO } from "./server.mjs";
import { browserSession } from "./session.mjs";

const session = browserSession();
const { open, named, problems } = session;

/** The verdict and each check's state ("1" ok, "0" failed, "" not known here). */
async function checks(page) {
  await page.waitForSelector("[data-testid=verify-verdict]");
  return page.evaluate(() => ({
    verdict: document.querySelector("[data-testid=verify-verdict]").dataset.ok,
    ...Object.fromEntries(
      [...document.querySelectorAll("[data-testid^=check-]")].map((el) => [
        el.dataset.testid.slice(6),
        el.dataset.ok,
      ]),
    ),
  }));
}

/** Open the verify page with the record changed on its way by `change` (or as it is). */
async function verifyWith(page, room, change = null) {
  await page.unroute("**/rounds/1/verify").catch(() => undefined);
  if (change) {
    await page.route("**/rounds/1/verify", async (route) => {
      const response = await route.fetch();
      const record = await response.json();
      change(record);
      await route.fulfill({ response, json: record });
    });
  }
  await page.goto(`${session.server.url}/#/`);
  await page.goto(`${session.server.url}/#/verify/${room}/1`);
  return checks(page);
}

test("a round's deal checked in the browser, tampering caught, the record checked by the CLI", async () => {
  test.setTimeout(300_000);
  const ana = await open(DESKTOP);
  await named(ana, "Ana");
  const room = await botRound(ana, session.server.url, { variant: "remi101", seats: 3 });
  const record = await ana.evaluate(
    (id) => fetch(`/api/rooms/${id}/rounds/1/verify`).then((r) => r.json()),
    room,
  );
  assert.equal(record.commitment, createHash("sha256").update(record.seed).digest("hex"));
  // What this browser was given at the deal, kept for this page.
  const seen = await ana.evaluate(
    (id) => JSON.parse(localStorage.getItem("remi.deals"))[`${id}/1`],
    room,
  );
  assert.equal(seen.c, record.commitment);
  assert.deepEqual(
    seen.hand,
    [...record.deal.hands[0]].sort((a, b) => a - b),
  );

  // From the score sheet to the check: every line passes, the dealt hand included.
  await ana.goto(`${session.server.url}/#/room/${room}`);
  await ana.waitForSelector("[data-testid=scores-open]");
  await ana.waitForTimeout(300);
  if (await ana.locator("[data-testid=summary-close]").count())
    await ana.click("[data-testid=summary-close]");
  await ana.click("[data-testid=scores-open]");
  const href = await ana.locator("[data-testid=scores-verify-1]").getAttribute("href");
  await ana.goto(`${session.server.url}/${href}`);
  let c = await checks(ana);
  assert.deepEqual(c, {
    verdict: "1",
    commitment: "1",
    yours: "1",
    hand: "1",
    deal: "1",
    log: "1",
    result: "1",
  });
  assert.equal(
    await ana.locator("[data-testid=verify-verdict]").textContent(),
    "✓ Împărțirea este corectă",
  );
  assert.equal(await ana.locator("[data-testid=verify-seed]").textContent(), record.seed);
  assert.equal(
    await ana.locator("[data-testid=verify-commitment]").textContent(),
    record.commitment,
  );
  assert.match(
    await ana.locator("[data-testid=check-deal]").textContent(),
    /Cele 106 piese, amestecate din sămânță/,
  );
  await shot(ana, "verify-desktop.png");
  await ana.click("[data-testid=lang]");
  assert.equal(
    await ana.locator("[data-testid=verify-verdict]").textContent(),
    "✓ The deal is fair",
  );
  await ana.click("[data-testid=lang]");

  // Tampered on its way: the page's own computation catches it.
  const other = record.seed.replace(/.$/, (x) => (x === "0" ? "1" : "0"));
  c = await verifyWith(ana, room, (r) => {
    r.seed = other;
  });
  assert.deepEqual([c.verdict, c.commitment, c.deal], ["0", "0", "0"]);
  c = await verifyWith(ana, room, (r) => {
    r.deal.stock = [...r.deal.stock].reverse();
    r.checks = r.checks.map((x) => ({ ...x, ok: true }));
  });
  assert.deepEqual([c.verdict, c.commitment, c.yours, c.deal], ["0", "1", "1", "0"]);
  c = await verifyWith(ana, room, (r) => {
    const h = r.deal.hands;
    [h[0][0], h[1][0]] = [h[1][0], h[0][0]];
  });
  assert.deepEqual([c.verdict, c.hand, c.deal], ["0", "0", "0"]);
  // A seed and commitment made up afterwards agree with each other, but not with what
  // Ana was given at the deal.
  c = await verifyWith(ana, room, (r) => {
    r.seed = other;
    r.commitment = createHash("sha256").update(other).digest("hex");
  });
  assert.deepEqual([c.verdict, c.commitment, c.yours], ["0", "1", "0"]);
  assert.match(
    await ana.locator("[data-testid=verify-verdict]").textContent(),
    /Verificarea a eșuat/,
  );
  await ana.setViewportSize({ width: 390, height: 844 });
  await shot(ana, "verify-tampered-phone.png");
  await ana.setViewportSize(DESKTOP.viewport);
  c = await verifyWith(ana, room);
  assert.equal(c.verdict, "1");

  // The record downloaded, checked on the command line with the commitment Ana was given.
  const [download] = await Promise.all([
    ana.waitForEvent("download"),
    ana.click("[data-testid=verify-download]"),
  ]);
  assert.equal(download.suggestedFilename(), `remi-${room}-round-1-record.json`);
  const file = join(tmpdir(), `remi-e2e-${room}-record.json`);
  await download.saveAs(file);
  const run = spawnSync(
    join(REPO, ".venv", "bin", "python"),
    ["-m", "server.cli", "verify", file, "--commitment", seen.c],
    {
      cwd: REPO,
      encoding: "utf8",
      env: { ...process.env, REMI_DATA_DIR: tmpdir(), REMI_LOG_LEVEL: "WARNING" },
    },
  );
  assert.equal(run.status, 0, run.stdout + run.stderr);
  assert.match(run.stdout, /VERIFIED: all 5 checks pass/);

  // Another player, on a phone, who never saw the deal: the same record checks out; what
  // she was given at the deal is not known here.
  const eve = await open(PHONE);
  await named(eve, "Eve");
  await eve.goto(`${session.server.url}/#/verify/${room}/1`);
  c = await checks(eve);
  assert.deepEqual(c, {
    verdict: "1",
    commitment: "1",
    yours: "",
    deal: "1",
    log: "1",
    result: "1",
  });
  const wide = await eve.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 390, `the page is ${wide} px wide`);
  await shot(eve, "verify-phone.png");
  await eve.click("[data-testid=verify-replay]");
  await eve.waitForSelector("[data-testid=replay-move]");
  assert.deepEqual(problems, []);
});
