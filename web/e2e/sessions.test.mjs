// Sessions in the browser: a second tab of the same player opening the
// same table takes the seat, and the first tab shows plainly that the seat is played
// elsewhere, with a button that takes it back. Then another device, signed in with a token
// of its own, signs the other devices out: the first browser's table is closed and it is
// back in the lobby, signed out.
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { DESKTOP, launch, PHONE } from "./browser.mjs";
import { shot, startPractice } from "./play.mjs";
import { startServer } from "./server.mjs";

let server;
const browsers = [];
const problems = [];

test.beforeAll(async () => {
  server = await startServer();
});

test.afterAll(async () => {
  for (const b of browsers) await b.close();
  await server?.stop();
});

function watch(page) {
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
}

test("played elsewhere, take it back, signed out by another device", async () => {
  test.setTimeout(120_000);
  const a = await launch(DESKTOP);
  browsers.push(a);
  const first = await a.page();
  watch(first);
  await startPractice(first, server.url, "Ana", "remi");
  const roomUrl = first.url();

  // A second tab of the same browser (the same cookie, a device id of its own).
  const second = await a.context.newPage();
  watch(second);
  await second.goto(roomUrl);
  await second.waitForSelector("[data-testid=rack] .tile");
  await first.waitForSelector("[data-testid=played-elsewhere]");
  assert.match(
    await first.locator("[data-testid=played-elsewhere]").textContent(),
    /alt dispozitiv sau în alt tab/,
  );
  await shot(first, "played-elsewhere-desktop.png");
  assert.equal(await second.locator("[data-testid=played-elsewhere]").count(), 0);

  // "Play here": the first tab takes the seat back, the second is told.
  await first.click("[data-testid=play-here]");
  await second.waitForSelector("[data-testid=played-elsewhere]");
  await first.waitForSelector("[data-testid=played-elsewhere]", { state: "detached" });
  await first.waitForSelector("[data-testid=rack] .tile");

  // Another device signs in with the token, gets one of its own, signs the others out.
  const token = await first.evaluate(() => localStorage.getItem("remi.token"));
  const b = await launch(PHONE);
  browsers.push(b);
  const other = await b.page();
  watch(other);
  await other.goto(server.url);
  await other.waitForSelector("[data-testid=name-input]");
  await other.click("summary:has-text('Același jucător')");
  await other.fill("details.identity input", token);
  await other.click("details.identity form button");
  await other.waitForSelector("[data-testid=hello]:has-text('Ana')");
  assert.notEqual(await other.evaluate(() => localStorage.getItem("remi.token")), token);
  await other.click("summary:has-text('Același jucător')");
  await other.click("[data-testid=sessions-show]");
  await other.waitForSelector("[data-testid=session-current]");
  assert.equal(
    await other.locator("[data-testid=session]").count(),
    1,
    "the first browser is listed",
  );
  await other.click("[data-testid=sign-out-others]");

  // The first browser's table is closed: back in the lobby, signed out, token forgotten.
  await first.waitForSelector("[data-testid=name-input]", { timeout: 15_000 });
  assert.equal(await first.evaluate(() => localStorage.getItem("remi.token")), null);
  await other.waitForFunction(
    () => document.querySelectorAll("[data-testid=session]").length === 0,
  );

  // Signing out on this device: the token is refused from then on.
  const kept = await other.evaluate(() => localStorage.getItem("remi.token"));
  await other.click("[data-testid=sign-out]");
  await other.waitForSelector("[data-testid=name-input]");
  const me = await fetch(`${server.url}/api/me`, { headers: { Authorization: `Bearer ${kept}` } });
  assert.equal(me.status, 401);
  assert.deepEqual(problems, []);
});
