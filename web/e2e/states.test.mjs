// Clear states, a short lobby, words that read right, at 360×740, 390×844 and 1280×800:
// a first visit that logs no failed request, the phone lobby with the most used first and
// the rest folded, the practice settings remembered; an invite link that names the room
// and its host before the name form (and a code no room has, said so); the quick start's
// countdown; a finished match played again by the same two players; a wrong password
// whose answer comes late never shown after the right one signed in.
import assert from "node:assert/strict";
import { DESKTOP, launch, PHONE } from "./browser.mjs";
import { test } from "./fixtures.mjs";
import { axeSerious, overflowing, plainTurn, read, shot } from "./play.mjs";
import { startServer } from "./server.mjs";

const PHONE_360 = { ...PHONE, viewport: { width: 360, height: 740 } };
const SIZES = [
  ["phone-360", PHONE_360],
  ["phone", PHONE],
  ["desktop", DESKTOP],
];
const WAIT = 12; // the quick start's wait, long enough to watch its countdown

let server;
const browsers = [];

test.beforeAll(async () => {
  server = await startServer({ REMI_QUICK_START_WAIT_SECONDS: String(WAIT) });
});

test.afterAll(async () => {
  for (const b of browsers) await b.close();
  await server?.stop();
});

async function browser(options) {
  const b = await launch(options);
  browsers.push(b);
  return b.page();
}

/** Every console error and every answer of 400 or more the page gets, from now on, and
 * every request that failed (but those the page itself gave up: a closed event stream, a
 * reload during the service worker's download, which the console does not log). */
function watchFailures(page) {
  const seen = [];
  page.on("console", (m) => {
    if (m.type() === "error") seen.push(`console: ${m.text()}`);
  });
  page.on("pageerror", (e) => seen.push(`page: ${e.message}`));
  page.on("requestfailed", (r) => {
    const why = r.failure()?.errorText ?? "";
    if (!why.includes("ERR_ABORTED")) seen.push(`failed: ${r.url()} ${why}`);
  });
  page.on("response", (r) => {
    if (r.status() >= 400) seen.push(`${r.status()}: ${r.url()}`);
  });
  return seen;
}

async function named(page, name) {
  await page.fill("[data-testid=name-input]", name);
  await page.click("[data-testid=name-save]");
}

/** A room made through the HTTP API by the page's player. */
function createRoom(page, settings) {
  return page.evaluate(async (b) => {
    const r = await fetch("/api/rooms", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(b),
    });
    if (!r.ok) throw new Error(await r.text());
    return r.json();
  }, settings);
}

for (const [size, options] of SIZES) {
  test(`a first visit at ${size}: no failed request, the short lobby, settings remembered`, async () => {
    test.setTimeout(90_000);
    const page = await browser({ ...options, lobbyFolded: true });
    const failures = watchFailures(page);
    await page.goto(server.url);
    await page.waitForSelector("[data-testid=name-input]");
    await named(page, `Ana ${size}`);
    await page.waitForSelector("[data-testid=quick-start]");
    await page.waitForSelector("[data-testid=local-practice]");
    await page.waitForSelector("[data-testid=your-games] li");
    await page.waitForTimeout(2500); // the service worker's registration, the lobby's reads
    assert.deepEqual(failures, []);

    // The most used first, in this order; the rest folded on a phone, open on a desktop.
    const order = await page.evaluate(() =>
      ["quick-start", "local-practice", "your-games", "lobby-more"].map(
        (id) => document.querySelector(`[data-testid=${id}]`).getBoundingClientRect().top,
      ),
    );
    assert.deepEqual(
      [...order].sort((a, b) => a - b),
      order,
    );
    const phone = size !== "desktop";
    assert.equal(await page.locator("[data-testid=create-form]").isVisible(), !phone);
    assert.equal(await page.locator("[data-testid=account]").isVisible(), !phone);
    assert.deepEqual(await overflowing(page), [], "the short lobby");
    await shot(page, `lobby-short-${size}.png`);
    if (phone) {
      await page.click("[data-testid=lobby-more-toggle]");
      await page.waitForSelector("[data-testid=create-form]", { state: "visible" });
      // Opened once, it stays open on this device.
      await page.reload();
      await page.waitForSelector("[data-testid=create-form]", { state: "visible" });
      await page.click("[data-testid=lobby-more-toggle]");
      await page.reload();
      await page.waitForSelector("[data-testid=quick-start]");
      assert.equal(await page.locator("[data-testid=create-form]").isVisible(), false);
    }

    // The practice on this device: its settings are there with the lobby (no engine
    // loaded), and the last ones chosen come back.
    await page.selectOption("[data-testid=local-variant]", "remi101");
    await page.selectOption("[data-testid=local-seats]", "3");
    await page.selectOption("[data-testid=local-level-2]", "hard");
    await page.selectOption("[data-testid=local-turn]", "30");
    await page.selectOption("[data-testid=local-end]", "target");
    await page.fill("[data-testid=local-end-value]", "404");
    await page.locator("[data-testid=local-end-value]").dispatchEvent("change");
    await page.reload();
    await page.waitForSelector("[data-testid=local-practice]");
    assert.equal(await page.inputValue("[data-testid=local-variant]"), "remi101");
    assert.equal(await page.inputValue("[data-testid=local-seats]"), "3");
    assert.equal(await page.inputValue("[data-testid=local-level-1]"), "normal");
    assert.equal(await page.inputValue("[data-testid=local-level-2]"), "hard");
    assert.equal(await page.inputValue("[data-testid=local-turn]"), "30");
    assert.equal(await page.inputValue("[data-testid=local-end]"), "target");
    assert.equal(await page.inputValue("[data-testid=local-end-value]"), "404");
    assert.deepEqual(failures, []);
  });
}

test("an invite link names the room and who invites, before the name form", async () => {
  test.setTimeout(90_000);
  const ana = await browser(DESKTOP);
  await ana.goto(server.url);
  await named(ana, "Ana");
  await ana.waitForSelector("[data-testid=quick-start]");
  const room = await createRoom(ana, {
    variant: "remi101",
    seats: 3,
    public: false,
    fill_with_bots: true,
  });
  const link = `${server.url}/#/join/${encodeURIComponent(room.invite_code)}`;

  for (const [size, options] of SIZES) {
    const guest = await browser({ ...options, lobbyFolded: true });
    const failures = watchFailures(guest);
    await guest.goto(link);
    const card = guest.locator("[data-testid=invite]");
    await card.waitFor();
    const text = await card.textContent();
    assert.match(text, /Ana te invită la o masă de Remi 101/);
    // The card comes before the name form.
    const [cardTop, formTop] = await guest.evaluate(() =>
      ["invite", "name-input"].map(
        (id) => document.querySelector(`[data-testid=${id}]`).getBoundingClientRect().top,
      ),
    );
    assert.ok(cardTop < formTop, `${cardTop} < ${formTop}`);
    assert.deepEqual(await overflowing(guest), [], "the invite");
    await shot(guest, `invite-${size}.png`);
    if (size === "phone") {
      await named(guest, "Bogdan");
      await guest.waitForSelector("[data-testid=waiting-room]");
      await guest.waitForSelector("[data-testid=wait-seat-1]:has-text('Bogdan')");
    }
    assert.deepEqual(failures, []);
  }

  // A known player opening the link: the same card and "join", not a seat taken unasked.
  await ana.goto(link);
  await ana.waitForSelector("[data-testid=invite-join]");
  assert.match(await ana.locator("[data-testid=invite]").textContent(), /Ana/);

  // A code no room has: said so, and the name form still there to play.
  const lost = await browser({ ...PHONE_360, lobbyFolded: true, bypassCSP: true }); // axe
  await lost.goto(`${server.url}/#/join/nosuchcode123`);
  await lost.waitForSelector("[data-testid=invite-bad]");
  assert.match(
    await lost.locator("[data-testid=invite-bad]").textContent(),
    /nu este valid: nicio cameră nu are acest cod/,
  );
  assert.ok(await lost.locator("[data-testid=name-input]").isVisible());
  assert.deepEqual(await overflowing(lost), [], "a bad invite");
  assert.deepEqual(await axeSerious(lost, "bad invite"), []);
  await shot(lost, "invite-bad-phone-360.png");
});

for (const [size, options, variant] of [
  ["phone-360", PHONE_360, "etalat"],
  ["phone", PHONE, "remi45"],
  ["desktop", DESKTOP, "remi51"],
]) {
  test(`the quick start's wait counts down the seconds until the bots come (${size})`, async () => {
    test.setTimeout(90_000);
    const page = await browser({ ...options, bypassCSP: true }); // axe
    await page.goto(server.url);
    await named(page, `Cara ${size}`);
    await page.click(`[data-testid=quick-${variant}]`);
    const clock = page.locator("[data-testid=quick-countdown]");
    await clock.waitFor();
    const first = Number(await clock.getAttribute("data-left"));
    assert.ok(first > 0 && first <= WAIT, `${first}`);
    assert.match(
      await clock.textContent(),
      new RegExp(`Boții ocupă locurile libere în ${first} s`),
    );
    assert.deepEqual(await overflowing(page), [], "the countdown");
    assert.deepEqual(await axeSerious(page, "countdown"), []);
    await shot(page, `quick-countdown-${size}.png`);
    await page.waitForFunction(
      (n) => Number(document.querySelector("[data-testid=quick-countdown]")?.dataset.left) < n,
      first,
      { timeout: 5_000 },
    );
    // Then the bots come and the table starts.
    await page.waitForSelector("[data-testid=rack] .tile", { timeout: (WAIT + 20) * 1000 });
  });
}

test("a finished match is played again: the same settings, the other player invited", async () => {
  test.setTimeout(240_000);
  const ana = await browser(DESKTOP);
  await ana.goto(server.url);
  await named(ana, "Ana");
  await ana.waitForSelector("[data-testid=quick-start]");
  const settings = {
    variant: "remi",
    seats: 3,
    public: false,
    fill_with_bots: true,
    bot_level: "easy",
    turn_seconds: 30,
    end: { kind: "rounds", rounds: 1 },
  };
  const room = await createRoom(ana, settings);
  const bogdan = await browser({ ...PHONE, bypassCSP: true }); // axe
  await bogdan.goto(`${server.url}/#/join/${encodeURIComponent(room.invite_code)}`);
  await named(bogdan, "Bogdan");
  await bogdan.waitForSelector("[data-testid=waiting-room]");
  await ana.goto(`${server.url}/#/room/${encodeURIComponent(room.id)}`);
  await ana.waitForSelector("[data-testid=wait-seat-1]:has-text('Bogdan')");
  await ana.click("[data-testid=start]");
  for (const p of [ana, bogdan]) await p.waitForSelector("[data-testid=rack] .tile");
  // Both leave their seats to bots, which play the one round to its end.
  for (const p of [ana, bogdan]) {
    await p.click("[data-testid=leave]");
    await p.waitForSelector("[data-testid=quick-start]");
  }
  const deadline = Date.now() + 150_000;
  const over = (id) =>
    fetch(`/api/rooms/${encodeURIComponent(id)}`).then(async (r) => (await r.json()).status);
  while ((await ana.evaluate(over, room.id)) !== "finished") {
    assert.ok(Date.now() < deadline, "the bots did not finish the match");
    await ana.waitForTimeout(500);
  }

  // Back at the finished table: the match's summary offers "play again".
  for (const p of [ana, bogdan]) {
    await p.goto(`${server.url}/#/room/${encodeURIComponent(room.id)}`);
    await p.waitForSelector("[data-testid=summary] [data-testid=play-again][data-again=new]");
  }
  await shot(ana, "again-desktop.png");
  await shot(bogdan, "again-phone.png");
  await ana.click("[data-testid=summary] [data-testid=play-again]");
  await ana.waitForSelector("[data-testid=waiting-room]");
  const made = ana.url().split("#/room/")[1];
  assert.ok(made && decodeURIComponent(made) !== room.id);

  // Bogdan is told, and joins the new room with one tap.
  const join = bogdan.locator("[data-testid=summary] [data-testid=play-again][data-again=join]");
  await join.waitFor({ timeout: 15_000 });
  assert.match(
    await bogdan.locator("[data-testid=summary] [data-testid=again]").textContent(),
    /Un jucător a deschis meciul nou/,
  );
  assert.deepEqual(await overflowing(bogdan), [], "play again");
  // The whole page: the summary and, behind it, the finished table (its row's tiles carry
  // their owners' marks).
  assert.deepEqual(await axeSerious(bogdan, "play again"), []);
  await shot(bogdan, "again-join-phone.png");
  await bogdan.setViewportSize(PHONE_360.viewport);
  assert.deepEqual(await overflowing(bogdan), [], "play again at 360 px");
  await shot(bogdan, "again-join-phone-360.png");
  await bogdan.setViewportSize(PHONE.viewport);
  await join.click();
  await bogdan.waitForSelector("[data-testid=waiting-room]");
  assert.equal(bogdan.url().split("#/room/")[1], made);
  await ana.waitForSelector("[data-testid=wait-seat-1]:has-text('Bogdan')", { timeout: 10_000 });
  const again = await ana.evaluate(
    (id) => fetch(`/api/rooms/${id}`).then((r) => r.json()),
    decodeURIComponent(made),
  );
  for (const k of ["variant", "seats", "fill_with_bots", "bot_level", "turn_seconds", "end"])
    assert.deepEqual(again.settings[k], settings[k], k);
  assert.equal(again.owner.display_name, "Ana");
  await shot(ana, "again-waiting-desktop.png");
});

test("a wrong password answered late is never shown after the right one signed in", async () => {
  test.setTimeout(60_000);
  const owner = await browser(DESKTOP);
  await owner.goto(server.url);
  await named(owner, "Dana");
  await owner.waitForSelector("[data-testid=quick-start]");
  await owner.evaluate(async () => {
    const r = await fetch("/api/account", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ username: "dana", password: "a-long-password" }),
    });
    if (!r.ok) throw new Error(await r.text());
  });

  const page = await browser({ ...PHONE, lobbyFolded: true });
  // The first press (the wrong password) is answered 1.5 s late, after the second.
  let presses = 0;
  await page.route("**/api/account/login", async (route) => {
    presses += 1;
    if (presses === 1) await new Promise((ok) => setTimeout(ok, 1500));
    await route.continue();
  });
  await page.goto(server.url);
  await page.waitForSelector("[data-testid=login-form]");
  await page.fill("#login-username", "dana");
  await page.fill("#login-password", "wrong-password");
  await page.click("[data-testid=login-submit]");
  await page.fill("#login-password", "a-long-password");
  await page.click("[data-testid=login-submit]");
  await page.waitForSelector("[data-testid=hello]:has-text('Dana')");
  await page.waitForTimeout(2500); // the late refusal has arrived by now
  assert.equal(presses, 2);
  assert.equal(await page.locator(".toast.error").count(), 0);
});

test("a tournament's fee shows in the balance at once; its page by link names the variant", async () => {
  test.setTimeout(90_000);
  const page = await browser(DESKTOP);
  await page.goto(server.url);
  await named(page, "Eva");
  const { tournaments } = await page.evaluate(() =>
    fetch("/api/tournaments").then((r) => r.json()),
  );
  const tour = tournaments.find((x) => x.status === "registering" && x.fee > 0);
  assert.ok(tour, "a tournament with a fee takes registrations");
  const chip = page.locator("[data-testid=chip-balance]");
  await page.waitForFunction(() =>
    /^\d+$/.test(document.querySelector("[data-testid=chip-balance]")?.textContent ?? ""),
  );
  const before = Number(await chip.textContent());
  await page.click(`[data-testid=register-${tour.id}]`);
  // The top bar's chip and the account card, without a reload.
  await page.waitForFunction(
    (n) => document.querySelector("[data-testid=chip-balance]")?.textContent === String(n),
    before - tour.fee,
    { timeout: 5_000 },
  );
  assert.equal(
    await page.locator("[data-testid=balance]").textContent(),
    String(before - tour.fee),
  );

  // The tournament's page opened by its link in a new browser: the variant by its name.
  const { variants } = await page.evaluate(() => fetch("/api/variants").then((r) => r.json()));
  const name = variants.find((v) => v.id === tour.variant).names.ro;
  for (const [size, options] of SIZES.slice(0, 2)) {
    const phone = await browser(options);
    await phone.goto(`${server.url}/#/tournament/${encodeURIComponent(tour.id)}`);
    await phone.waitForSelector("[data-testid=tour-facts]");
    const text = await phone.locator("[data-testid=tournament-page]").textContent();
    assert.ok(text.includes(name), `${name} in ${text}`);
    assert.ok(!new RegExp(`\\b${tour.variant}\\b`).test(text), text);
    await shot(phone, `tournament-link-${size}.png`);
  }
});

test("the practice on this device is played again with the same settings", async () => {
  test.setTimeout(480_000);
  const page = await browser(PHONE);
  await page.goto(server.url);
  await named(page, "Ilie");
  await page.evaluate(() => localStorage.setItem("remi.practice.bot_delay", "0.05"));
  await page.waitForSelector("[data-testid=local-practice]");
  await page.selectOption("[data-testid=local-variant]", "remi");
  await page.selectOption("[data-testid=local-seats]", "2");
  await page.selectOption("[data-testid=local-level-1]", "easy");
  await page.selectOption("[data-testid=local-end]", "one");
  await page.click("[data-testid=local-start]");
  await page.waitForSelector("[data-testid=rack] .tile", { timeout: 120_000 });
  const deadline = Date.now() + 400_000;
  for (;;) {
    assert.ok(Date.now() < deadline, "the round ends in time");
    const st = await read(page);
    if (st.summary) break;
    if (st.mine && !st.busy) await plainTurn(page, [], { open: true });
    else await page.waitForTimeout(50);
  }
  const again = page.locator("[data-testid=summary] [data-testid=play-again][data-again=solo]");
  await again.waitFor();
  assert.match(
    await page.locator("[data-testid=summary] [data-testid=again]").textContent(),
    /Un meci nou, cu aceleași setări/,
  );
  await shot(page, "again-practice-phone.png");
  const moves = async () =>
    Number(/\((\d+)\)/.exec(await page.locator("[data-testid=moves-open]").textContent())?.[1]);
  const before = await moves();
  await again.click();
  // A new match of the same settings: a fresh deal, the log of its first round only.
  await page.waitForSelector("[data-testid=summary]", { state: "detached", timeout: 60_000 });
  await page.waitForSelector("[data-testid=rack] .tile", { timeout: 60_000 });
  // The new match's log holds its deal and a few moves, not the finished round's.
  const after = await moves();
  assert.ok(after < before && after <= 6, `${after} moves after ${before}`);
  const kept = await page.evaluate(() => JSON.parse(localStorage.getItem("remi.practice.last")));
  assert.equal(kept.variant, "remi");
  assert.equal(kept.seats, 2);
  assert.deepEqual(kept.bot_levels, ["easy"]);
  assert.deepEqual(kept.end, { kind: "rounds", rounds: 1 });
});
