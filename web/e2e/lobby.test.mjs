// The lobby: English toggle, a refused setting with the server's words, a public room
// listed and joined from another browser, a private room joined by its code typed in.
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { DESKTOP, launch, PHONE } from "./browser.mjs";
import { shot } from "./play.mjs";
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

async function player(name, options) {
  const b = await launch(options);
  browsers.push(b);
  const page = await b.page();
  await page.goto(server.url);
  await page.fill("[data-testid=name-input]", name);
  await page.click("[data-testid=name-save]");
  await page.waitForSelector("[data-testid=create-form]");
  return page;
}

test("lobby: language, settings errors, public rooms, invite codes", async () => {
  test.setTimeout(120_000);
  const ana = await player("Ana", DESKTOP);

  // Romanian by default; English one click away, and back.
  assert.match(await ana.locator("[data-testid=create-room]").textContent(), /Creează camera/);
  await ana.click("[data-testid=lang]");
  await ana.waitForSelector("[data-testid=create-room]:has-text('Create the room')");
  await shot(ana, "lobby-english-desktop.png");
  await ana.click("[data-testid=lang]");
  await ana.waitForSelector("[data-testid=create-room]:has-text('Creează camera')");

  // A setting the server refuses comes back in words (target points must be ≥ 1).
  await ana.selectOption("[data-testid=s-end]", "target");
  await ana.fill("[data-testid=s-target]", "0");
  await ana.click("[data-testid=create-room]");
  await ana.waitForSelector("#toast.show");
  assert.match(await ana.locator("#toast").textContent(), /end\.points/);
  await ana.evaluate(() => document.getElementById("toast")?.classList.remove("show"));

  // A public room of two, no bots: listed in another player's lobby, joined from there.
  await ana.selectOption("[data-testid=s-end]", "rounds");
  await ana.fill("[data-testid=s-rounds]", "3");
  await ana.selectOption("[data-testid=s-variant]", "remi45");
  await ana.selectOption("[data-testid=s-seats]", "2");
  await ana.selectOption("[data-testid=s-vis]", "public");
  await ana.uncheck("[data-testid=s-bots]");
  // Bogdan's lobby is already open: the new room reaches it through the lobby event
  // stream, well before the 15 s fallback poll could.
  const bogdan = await player("Bogdan", PHONE);
  await bogdan.waitForSelector("[data-testid=public-rooms]");
  await ana.click("[data-testid=create-room]");
  await ana.waitForSelector("[data-testid=waiting-room]");
  const roomId = decodeURIComponent(ana.url().split("#/room/")[1]);

  await bogdan.waitForSelector(`[data-testid=join-${roomId}]`, { timeout: 5_000 });
  assert.match(
    await bogdan.locator("[data-testid=public-rooms]").textContent(),
    /Remi 45.*Ana.*1\/2/s,
  );
  await bogdan.click(`[data-testid=join-${roomId}]`);
  await bogdan.waitForSelector("[data-testid=wait-seat-1]:has-text('Bogdan')");
  await ana.waitForSelector("[data-testid=wait-seat-1]:has-text('Bogdan')", { timeout: 10_000 });
  await ana.click("[data-testid=start]");
  await ana.waitForSelector("[data-testid=rack] .tile");
  await bogdan.waitForSelector("[data-testid=rack] .tile");
  assert.equal(await ana.locator("[data-testid=seat-1] .nm").textContent(), "Bogdan");

  // A private room joined by typing its code.
  const chris = await player("Cristina", DESKTOP);
  await chris.selectOption("[data-testid=s-vis]", "private");
  await chris.selectOption("[data-testid=s-seats]", "3");
  await chris.click("[data-testid=create-room]");
  await chris.waitForSelector("[data-testid=waiting-room]");
  const link = await chris.locator("[data-testid=invite-link]").inputValue();
  const code = decodeURIComponent(link.split("#/join/")[1]);
  const dan = await player("Dan", DESKTOP);
  // A private room is not listed.
  assert.doesNotMatch(await dan.locator("[data-testid=public-rooms]").textContent(), /Cristina/);
  await dan.fill("[data-testid=code-input]", code);
  await dan.click("form.join button[type=submit]");
  await dan.waitForSelector("[data-testid=wait-seat-1]:has-text('Dan')");
});

test("a name typed while the variant catalogue is still on its way is kept and saved", async () => {
  test.setTimeout(60_000);
  const b = await launch(DESKTOP);
  browsers.push(b);
  const page = await b.page();
  // The catalogue is held back until the name is typed, as on a slow line: its arrival
  // must not redraw the name form away (it once did, and Save then sent nothing).
  let release;
  const held = new Promise((resolve) => (release = resolve));
  await page.route("**/api/variants", async (route) => {
    await held;
    await route.continue();
  });
  await page.goto(server.url);
  await page.fill("[data-testid=name-input]", "Elena");
  const arrived = page.waitForResponse("**/api/variants");
  release();
  await arrived;
  // The page is drawn again with the practice on this device, which needs the catalogue;
  // the name form is the same, with its text and its focus.
  await page.waitForSelector("[data-testid=local-start]");
  assert.equal(await page.locator("[data-testid=name-input]").inputValue(), "Elena");
  assert.equal(
    await page.evaluate(() => document.activeElement?.getAttribute("data-testid")),
    "name-input",
  );
  await page.click("[data-testid=name-save]");
  await page.waitForSelector("[data-testid=create-form]");
  assert.match(await page.locator("[data-testid=hello]").textContent(), /Elena/);
});

test("the practice button opens a practice room, and your games shows the server's kind", async () => {
  test.setTimeout(90_000);
  const elena = await player("Elena", DESKTOP);
  await elena.click("[data-testid=practice]");
  await elena.waitForSelector("[data-testid=rack] .tile");
  const practiceId = decodeURIComponent(elena.url().split("#/room/")[1]);
  const api = (method, path, body) =>
    elena.evaluate(
      async ([m, p, b]) => {
        const r = await fetch(p, {
          method: m,
          headers: { "Content-Type": "application/json" },
          body: b ? JSON.stringify(b) : undefined,
        });
        return { status: r.status, body: await r.json() };
      },
      [method, path, body],
    );
  const got = await api("GET", `/api/rooms/${encodeURIComponent(practiceId)}`);
  assert.equal(got.body.kind, "practice");
  // A private room of bots is a normal room (it settles): never badged practice.
  const bots = await api("POST", "/api/rooms", { seats: 2, public: false, fill_with_bots: true });
  assert.equal(bots.status, 201);
  assert.equal(bots.body.kind, "normal");
  assert.equal(
    (await api("POST", `/api/rooms/${encodeURIComponent(bots.body.id)}/start`)).status,
    200,
  );
  await elena.goto(server.url);
  await elena.waitForSelector(`[data-testid=mine-${bots.body.id}]`);
  await elena.waitForSelector(`[data-testid=kind-${practiceId}]`);
  assert.equal(await elena.locator(`[data-testid=kind-${bots.body.id}]`).count(), 0);
});
