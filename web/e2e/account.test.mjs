// Accounts in the browser: a guest sees the balance and joker
// credits, claims an account (username and password), and signs in with it from a second
// browser context: the same player, the same balance, in Romanian and in English.
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { DESKTOP, launch, PHONE } from "./browser.mjs";
import { shot } from "./play.mjs";
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

test("sign up as a guest's account, sign in on a second context", async () => {
  test.setTimeout(120_000);
  const a = await launch(DESKTOP);
  browsers.push(a);
  const first = await a.page();
  watch(first);
  await first.goto(server.url);
  await first.fill("[data-testid=name-input]", "Ana");
  await first.click("[data-testid=name-save]");
  await first.waitForSelector("[data-testid=hello]:has-text('Ana')");
  await first.waitForFunction(() =>
    /^\d+$/.test(document.querySelector("[data-testid=balance]")?.textContent ?? ""),
  );
  const balance = await first.locator("[data-testid=balance]").textContent();
  assert.ok(Number(balance) > 0, "a new player has its starting balance");
  assert.match(
    await first.locator("[data-testid=account]").textContent(),
    /Cont:.*Jokeri:.*invitat/,
  );

  // A joker credit bought with the balance: both change at once.
  const credits = Number(await first.locator("[data-testid=joker-credits]").textContent());
  await first.click("[data-testid=buy-joker]");
  await first.waitForFunction(
    (n) => document.querySelector("[data-testid=joker-credits]")?.textContent === String(n + 1),
    credits,
  );
  const after = await first.locator("[data-testid=balance]").textContent();
  assert.ok(Number(after) < Number(balance));
  // The top bar's chip follows at once, without a reload.
  assert.equal(await first.locator("[data-testid=chip-balance]").textContent(), after);
  assert.equal(
    await first.locator("[data-testid=chip-credits]").textContent(),
    String(credits + 1),
  );

  // Sign up: the guest claims a username and a password.
  await first.fill("[data-testid=claim-username]", "ana.m");
  await first.fill("[data-testid=claim-password]", "o parola lunga");
  await first.click("[data-testid=claim-submit]");
  await first.waitForSelector("[data-testid=account-username]:has-text('ana.m')");
  await shot(first, "account-desktop.png");

  // A second browser context (another device): a wrong password is told, then signed in.
  const b = await launch(PHONE);
  browsers.push(b);
  const other = await b.page();
  watch(other);
  await other.goto(server.url);
  await other.click("[data-testid=lang]"); // English
  await other.waitForSelector("[data-testid=login-form]:has-text('Sign in')");
  await other.fill("[data-testid=login-username]", "Ana.M");
  await other.fill("[data-testid=login-password]", "wrong password");
  await other.click("[data-testid=login-submit]");
  await other.waitForSelector(".toast:has-text('Wrong username or password')");
  await other.fill("[data-testid=login-password]", "o parola lunga");
  await other.click("[data-testid=login-submit]");
  await other.waitForSelector("[data-testid=hello]:has-text('Ana')");
  await other.waitForFunction(
    (n) => document.querySelector("[data-testid=balance]")?.textContent === n,
    after,
  );
  assert.match(
    await other.locator("[data-testid=account]").textContent(),
    /Balance:.*Jokers:.*account ana\.m/,
  );
  assert.equal(
    await other.locator("[data-testid=joker-credits]").textContent(),
    String(credits + 1),
  );
  assert.ok(await other.evaluate(() => localStorage.getItem("remi.token")));
  await shot(other, "account-phone.png");
  assert.deepEqual(problems, []);
});
