// How to play, per variant, in Romanian and English: reached from the lobby and from the
// table, built from the catalogue (the threshold, the atu, the row, the doubles), within a
// 360 px screen, and with no serious or critical axe violation.
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { DESKTOP, launch, PHONE } from "./browser.mjs";
import { axeSerious, shot, startPractice } from "./play.mjs";
import { startServer } from "./server.mjs";

const PHONE_360 = {
  viewport: { width: 360, height: 740 },
  deviceScaleFactor: 2,
  isMobile: true,
  hasTouch: true,
};
const running = [];
test.afterAll(async () => {
  for (const x of running.reverse()) await x.close?.().catch?.(() => undefined);
});

for (const [name, opts] of [
  ["phone-360", PHONE_360],
  ["phone", PHONE],
  ["desktop", DESKTOP],
]) {
  test(`${name}: how to play from the lobby and from the table, each variant's facts, both languages`, async () => {
    test.setTimeout(180_000);
    const server = await startServer();
    const player = await launch({ ...opts, bypassCSP: true }); // axe is injected as a script
    running.push(player, { close: () => server.stop() });
    const page = await player.page();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await startPractice(page, server.url, "Ana", "remi45");
    // From the table: a link to this variant's page.
    assert.equal(
      await page.locator("[data-testid=howto-link]").getAttribute("href"),
      "#/howto/remi45",
    );
    await page.goto(`${server.url}/#/`);
    await page.click("[data-testid=howto-lobby]");
    await page.waitForSelector("[data-testid=howto][data-variant=remi]");
    await page.goto(`${server.url}/#/howto/remi45`);
    await page.waitForSelector("[data-testid=howto][data-variant=remi45]");
    const text = await page.locator("[data-testid=howto]").textContent();
    assert.match(text, /cel puțin 45 de puncte/);
    assert.match(text, /o scară/);
    assert.match(text, /Atuul/);
    assert.match(text, /Rândul aruncărilor/);
    assert.match(text, /A\.8/);
    const wide = await page.evaluate(
      () => document.documentElement.scrollWidth > window.innerWidth,
    );
    assert.equal(wide, false, "no sideways scroll");
    assert.deepEqual(await axeSerious(page, "how to play"), []);
    await shot(page, `howto-${name}.png`);
    await page.goto(`${server.url}/#/howto/remi101`);
    await page.waitForSelector("[data-testid=howto][data-variant=remi101]");
    const b = await page.locator("[data-testid=howto]").textContent();
    assert.match(b, /cel puțin 101 de puncte/);
    assert.match(b, /sau 5 duble/);
    assert.doesNotMatch(b, /Atuul/);
    assert.match(b, /dublă: 2 piese identice/);
    await page.click("[data-testid=lang]");
    await page.waitForFunction(() =>
      /How to play: /.test(document.querySelector("[data-testid=howto] h1")?.textContent ?? ""),
    );
    assert.match(await page.locator("[data-testid=howto]").textContent(), /at least 101 points/);
    await shot(page, `howto-101-english-${name}.png`);
    assert.deepEqual(errors, []);
  });
}
