// Tournaments and the Arena: a player registers for a sit-and-go of 4 in the
// lobby (the fee leaves the balance), three others register (through the API; they never
// come: bots play their seats), the tournament starts, the player opens its page, goes to
// the final table and plays it to its end, and the page shows the standings and the
// prizes. Then, for the screenshots, a sit-and-go of 8 played by bots alone through both of
// its stages, and an Arena table in the lobby.
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { DESKTOP, launch, PHONE } from "./browser.mjs";
import { axeSerious, plainTurn, read, shot } from "./play.mjs";
import { startServer } from "./server.mjs";

let server;
const browsers = [];
const problems = [];

const SERIES = [
  { kind: "sitngo", players: 4, fee: 50, rounds: 1, turn_seconds: 60 },
  { kind: "sitngo", players: 8, fee: 100, rounds: 1, turn_seconds: 60 },
  { kind: "scheduled", players: 16, fee: 100, at: "19:00" },
];

test.beforeAll(async () => {
  server = await startServer({
    REMI_TOURNAMENT_SERIES: JSON.stringify(SERIES),
    REMI_TOURNAMENT_TICK_SECONDS: "0.3",
    REMI_TOURNAMENT_BOT_WAIT_SECONDS: "0",
  });
});

test.afterAll(async () => {
  for (const b of browsers) await b.close();
  await server?.stop();
});

async function open(options) {
  const b = await launch({ ...options, bypassCSP: true }); // axe is injected as a script
  browsers.push(b);
  const page = await b.page();
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  return page;
}

async function named(page, name) {
  await page.goto(server.url);
  await page.fill("[data-testid=name-input]", name);
  await page.click("[data-testid=name-save]");
  await page.waitForSelector("[data-testid=tournaments] .tour-item");
}

/** A player made through the API who registers for `tid` (and never comes to the table). */
async function apiPlayer(name, tid) {
  const made = await fetch(`${server.url}/api/players`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ display_name: name }),
  });
  assert.equal(made.status, 201);
  const { token } = await made.json();
  const reg = await fetch(`${server.url}/api/tournaments/${tid}/register`, {
    method: "POST",
    headers: { Authorization: `Bearer ${token}` },
  });
  assert.equal(reg.status, 200, await reg.text());
}

async function openTournaments() {
  const res = await fetch(`${server.url}/api/tournaments`);
  return (await res.json()).tournaments.filter((x) => x.status === "registering");
}

async function balance(page) {
  return page.evaluate(async () => (await (await fetch("/api/account")).json()).balance);
}

test("a player registers for a sit-and-go and plays its table to the prizes", async () => {
  test.setTimeout(300_000);
  const ana = await open(PHONE);
  await named(ana, "Ana");
  const sng = (await openTournaments()).find((x) => x.kind === "sitngo" && x.players === 4);
  assert.ok(sng, "a sit-and-go of 4 is open");
  const item = ana.locator(`[data-testid=tournament-${sng.id}]`);
  assert.match(await item.textContent(), /Sit & Go · 4 jucători/);
  assert.match(await item.textContent(), /taxă 50/);
  const before = await balance(ana);
  await ana.click(`[data-testid=register-${sng.id}]`);
  await ana.waitForSelector(`[data-testid=withdraw-${sng.id}]`);
  assert.equal(await balance(ana), before - 50);
  assert.match(await item.textContent(), /1\/4 înscriși/);
  await shot(ana, "tournament-lobby-phone.png");

  for (const name of ["Bob", "Cip", "Dan"]) await apiPlayer(name, sng.id);
  await ana.click(`[data-testid=open-${sng.id}]`);
  await ana.waitForSelector("[data-testid=tournament-page] [data-testid=stage-1]");
  const go = ana.locator("[data-testid=stage-1] button.primary");
  assert.equal(await go.textContent(), "Joacă");
  await go.click();
  await ana.waitForSelector("[data-testid=rack] .tile", { timeout: 60_000 });
  const room = decodeURIComponent(new URL(ana.url()).hash.split("/").pop());

  // Ana plays her turns until the round (the whole match: one round) is over.
  const deadline = Date.now() + 200_000;
  for (;;) {
    assert.ok(Date.now() < deadline, "the table ends in time");
    const st = await read(ana);
    if (st.summary) break;
    if (st.mine && !st.busy) await plainTurn(ana, [], { open: true });
    else await new Promise((r) => setTimeout(r, 150));
  }

  await ana.goto(`${server.url}/#/tournament/${sng.id}`);
  await ana.waitForSelector("[data-testid=tournament-page][data-status=finished]", {
    timeout: 30_000,
  });
  const rows = ana.locator(`[data-testid^=standing-${room}-]`);
  assert.equal(await rows.count(), 4);
  const prizes = await ana
    .locator(`[data-testid^=standing-${room}-] td:last-child`)
    .allTextContents();
  assert.equal(
    prizes.reduce((a, x) => a + Number(x || 0), 0),
    200,
  );
  const mine = await ana.locator("tr.me td:last-child").textContent();
  assert.equal(await balance(ana), before - 50 + Number(mine || 0));
  await shot(ana, "tournament-final-phone.png");
  assert.deepEqual(await axeSerious(ana, "tournament"), []);
  assert.deepEqual(problems, []);
});

test("a sit-and-go of 8 through both stages, and an Arena table, as they look", async () => {
  test.setTimeout(300_000);
  const eve = await open(DESKTOP);
  await named(eve, "Eve");
  const sng = (await openTournaments()).find((x) => x.kind === "sitngo" && x.players === 8);
  assert.ok(sng);
  await eve.click(`[data-testid=register-${sng.id}]`);
  await eve.waitForSelector(`[data-testid=withdraw-${sng.id}]`);
  // An Arena table: Eve opens one at a stake of 50.
  await eve.selectOption("[data-testid=a-stake]", "50");
  await eve.selectOption("[data-testid=a-seats]", "3");
  await eve.click("[data-testid=arena-create]");
  await eve.waitForSelector("[data-testid=waiting-room]");
  assert.match(await eve.locator("[data-testid=waiting-room]").textContent(), /Miză 50 · pot 150/);
  await eve.goto(`${server.url}/#/`);
  await eve.waitForSelector("[data-testid=arena-rooms] [data-testid^=arena-]");
  await eve.waitForSelector(`[data-testid=tournament-${sng.id}]`);
  await eve.locator("[data-testid=tournaments]").scrollIntoViewIfNeeded();
  await shot(eve, "tournament-lobby-desktop.png");
  assert.deepEqual(await axeSerious(eve, "tournament"), []);

  const phone = await open(PHONE);
  await named(phone, "Fay");
  await phone.locator("[data-testid=arena-rooms]").scrollIntoViewIfNeeded();
  await shot(phone, "arena-lobby-phone.png");

  for (const name of ["Gus", "Hal", "Ida", "Jon", "Kim", "Lia", "Max"])
    await apiPlayer(name, sng.id);
  await eve.goto(`${server.url}/#/tournament/${sng.id}`);
  await eve.waitForSelector("[data-testid=stage-1] [data-testid=table-1-1]");
  // Eve does not come to her table: a bot plays it. Every stage is played out.
  await eve.waitForSelector("[data-testid=tournament-page][data-status=finished]", {
    timeout: 240_000,
  });
  await eve.waitForSelector("[data-testid=stage-2] [data-testid=table-2-0][data-status=finished]");
  const goOn = await eve.locator("[data-testid=stage-1] .tour-on").count();
  assert.equal(goOn, 4);
  await shot(eve, "tournament-page-desktop.png");
  assert.deepEqual(await axeSerious(eve, "tournament"), []);
  await phone.goto(`${server.url}/#/tournament/${sng.id}`);
  await phone.waitForSelector("[data-testid=tournament-page][data-status=finished]");
  await shot(phone, "tournament-page-phone.png");
  assert.deepEqual(problems, []);
});
