// An automated accessibility check: axe-core (the npm package, run in
// the page) on the lobby, the waiting room and the table (its move log, reactions and
// score sheet), at a phone size and the
// desktop, and on a finished round's replay and deal check; no violation of impact "serious" or "critical" is allowed. Each violation
// found is printed with its rule, impact and the elements it names.
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { DESKTOP, launch, PHONE, PHONE_VIEWPORT } from "./browser.mjs";
import { axeSerious as serious, botRound } from "./play.mjs";
import { startServer } from "./server.mjs";

let server;
const browsers = [];

test.beforeAll(async () => {
  server = await startServer();
});

test.afterAll(async () => {
  for (const b of browsers) await b.close();
  await server?.stop();
});

for (const [size, options] of [
  ["phone", PHONE],
  ["desktop", DESKTOP],
]) {
  test(`lobby, waiting room and table have no serious or critical violation (${size})`, async () => {
    test.setTimeout(120_000);
    const b = await launch({ ...options, bypassCSP: true }); // axe is injected as a script
    browsers.push(b);
    const page = await b.page();
    await page.goto(server.url);
    await page.waitForSelector("[data-testid=name-input]");
    assert.deepEqual(await serious(page, `${size} name`), []);
    await page.fill("[data-testid=name-input]", `Ana ${size}`);
    await page.click("[data-testid=name-save]");
    await page.waitForSelector("[data-testid=create-form]");
    assert.deepEqual(await serious(page, `${size} lobby`), []);

    await page.selectOption("[data-testid=s-variant]", "remi");
    await page.selectOption("[data-testid=s-seats]", "2");
    await page.check("[data-testid=s-bots]");
    await page.click("[data-testid=create-room]");
    await page.waitForSelector("[data-testid=waiting-room]");
    assert.deepEqual(await serious(page, `${size} waiting room`), []);

    await page.click("[data-testid=start]");
    await page.waitForSelector("[data-testid=rack] .tile");
    assert.deepEqual(await serious(page, `${size} table`), []);
    await page.click("[data-testid=moves-open]");
    await page.waitForSelector("[data-testid=moves-panel]");
    assert.deepEqual(await serious(page, `${size} move log`), []);
    await page.click("[data-testid=moves-close]");
    await page.click("[data-testid=react-open]");
    await page.waitForSelector("[data-testid=react-panel]");
    assert.deepEqual(await serious(page, `${size} reactions`), []);
    await page.keyboard.press("Escape");
    await page.click("[data-testid=scores-open]");
    await page.waitForSelector("[data-testid=scores]");
    assert.deepEqual(await serious(page, `${size} score sheet`), []);
  });
}

test("a finished round's replay and deal check have no serious or critical violation", async () => {
  test.setTimeout(240_000);
  const b = await launch({ ...DESKTOP, bypassCSP: true });
  browsers.push(b);
  const page = await b.page();
  await page.goto(server.url);
  await page.fill("[data-testid=name-input]", "Ana");
  await page.click("[data-testid=name-save]");
  await page.waitForSelector("[data-testid=create-form]");
  const room = await botRound(page, server.url, { variant: "remi", seats: 2 });
  for (const [size, viewport] of [
    ["desktop", DESKTOP.viewport],
    ["phone", PHONE_VIEWPORT],
  ]) {
    await page.setViewportSize(viewport);
    await page.goto(`${server.url}/#/replay/${room}/1`);
    await page.waitForSelector("[data-testid=replay-move]");
    assert.deepEqual(await serious(page, `${size} replay, the deal`), []);
    await page.goto(`${server.url}/#/replay/${room}/1/9`);
    await page.waitForFunction(
      () => document.querySelector("[data-testid=replay]")?.dataset.step === "9",
    );
    assert.deepEqual(await serious(page, `${size} replay, a move`), []);
    await page.goto(`${server.url}/#/verify/${room}/1`);
    await page.waitForSelector("[data-testid=verify-verdict]");
    assert.deepEqual(await serious(page, `${size} deal check`), []);
  }
});
