// The offline practice: the page loaded once online caches itself (service
// worker); then, with the browser offline and the server stopped, a reload opens the
// lobby, which says that online games need a connection, and a practice game on this
// device (the Python engine and bots under Pyodide in a worker) plays a whole round to
// the score sheet, resuming after a reload mid-round; the finished match is in the
// local history. Any console error or CSP violation fails it.
import assert from "node:assert/strict";
import { test } from "./fixtures.mjs";
import { launch } from "./browser.mjs";
import { plainTurn, read, shot } from "./play.mjs";
import { countingProxy } from "./proxy.mjs";
import { startServer } from "./server.mjs";

let server;
let browser;
test.beforeAll(async () => {
  server = await startServer();
  browser = await launch();
});
test.afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

test("a first visit that starts a practice at once downloads each file once", async () => {
  test.setTimeout(240_000);
  // Its own browser (a fresh profile) behind a proxy that counts what the server sends:
  // the page, then at once the practice, whose worker waits for the service worker's
  // install and reads Pyodide from its cache; what the page had already downloaded (its
  // bundle) the install only revalidates (304).
  const proxy = await countingProxy(server.url);
  const fresh = await launch();
  try {
    const page = await fresh.page();
    await page.goto(proxy.url);
    await page.click("[data-testid=local-start]");
    await page.waitForSelector("[data-testid=rack] .tile", { timeout: 120_000 });
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, {
      timeout: 60_000,
    });
    const cached = await page.evaluate(async () => {
      const c = await caches.open((await caches.keys()).find((k) => k.startsWith("remi-")));
      return (await c.keys()).map((r) => new URL(r.url).pathname);
    });
    assert.ok(
      cached.includes("/pyodide/pyodide.asm.wasm") && cached.includes("/pyodide/remi-python.zip"),
      cached.join(" "),
    );
    const sent = proxy.take();
    for (const path of cached)
      assert.equal(sent.get(path)?.full, 1, `${path} sent once: ${JSON.stringify(sent.get(path))}`);
  } finally {
    await fresh.close();
    await proxy.close();
  }
});

test("offline: lobby, a practice round to the score sheet, a reload mid-round, the history", async () => {
  test.setTimeout(300_000);
  const page = await browser.page();
  const problems = [];
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (e) =>
      console.error(`CSP violation: ${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  page.on("pageerror", (err) => problems.push(`pageerror: ${err.message}`));
  page.on("console", (msg) => {
    if (
      msg.type() === "error" &&
      !/Failed to load resource|ERR_INTERNET_DISCONNECTED|ERR_CONNECTION_REFUSED/.test(msg.text())
    )
      problems.push(`console: ${msg.text()}`);
  });

  // Online, once: the service worker caches the shell, the bundle and Pyodide's files.
  await page.goto(server.url);
  await page.waitForSelector("[data-testid=name-input]");
  await page.evaluate(() => localStorage.setItem("remi.practice.bot_delay", "0.05"));
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, {
    timeout: 60_000,
  });
  const cached = await page.evaluate(async () => {
    const c = await caches.open((await caches.keys()).find((k) => k.startsWith("remi-")));
    return (await c.keys()).map((r) => new URL(r.url).pathname);
  });
  for (const f of [
    "/pyodide/pyodide.asm.wasm",
    "/pyodide/python_stdlib.zip",
    "/pyodide/remi-python.zip",
    "/manifest.webmanifest",
  ]) {
    assert.ok(cached.includes(f), `${f} is cached on the first visit`);
  }
  // WebAssembly.instantiateStreaming (and Chromium's code cache for it) needs this type.
  const wasmType = await page.evaluate(async () =>
    (await caches.match("/pyodide/pyodide.asm.wasm", { ignoreVary: true }))?.headers.get(
      "content-type",
    ),
  );
  assert.equal(wasmType, "application/wasm");

  // Network off, and the server gone: nothing can answer but the cache.
  await browser.context.setOffline(true);
  await server.kill();
  await page.reload();
  await page.waitForSelector("[data-testid=offline]");
  await page.waitForSelector("[data-testid=local-practice]", { timeout: 60_000 });
  assert.equal(
    await page.locator("[data-testid=create-form]").count(),
    0,
    "no online form that would hang",
  );

  await page.selectOption("[data-testid=local-variant]", "remi");
  await page.selectOption("[data-testid=local-seats]", "2");
  await page.selectOption("[data-testid=local-level-1]", "easy");
  await page.selectOption("[data-testid=local-end]", "one");
  await page.click("[data-testid=local-start]");
  await page.waitForSelector("[data-testid=rack] .tile", { timeout: 60_000 });
  await shot(page, "offline-practice-desktop.png");

  let turns = 0;
  let reloaded = false;
  const deadline = Date.now() + 200_000;
  for (;;) {
    assert.ok(Date.now() < deadline, "the round ends in time");
    const st = await read(page);
    if (st.summary) break;
    if (st.mine && !st.busy) {
      const after = await plainTurn(page, []);
      turns++;
      if (turns === 3 && !after.summary && !reloaded) {
        // Mid-round: reload (offline). The match was kept after every move; it resumes.
        const hand = [...after.hand].sort((a, b) => a - b);
        await page.reload();
        await page.waitForSelector("[data-testid=rack] .tile", { timeout: 60_000 });
        const back = await read(page);
        if (!back.mine && !back.summary)
          assert.deepEqual(
            [...back.hand].sort((a, b) => a - b),
            hand,
            "the same hand after the reload",
          );
        reloaded = true;
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.ok(reloaded, "reloaded mid-round");
  await page.waitForSelector("[data-testid=summary] .winners");
  await page.click("[data-testid=summary-close]");
  await page.click("[data-testid=scores-open]");
  await page.waitForSelector("[data-testid=scores-round-1]");
  await page.waitForSelector("[data-testid=winners]");
  await page.click("[data-testid=scores-close]");

  // Back in the lobby (still offline): the match is in the local history.
  await page.click("[data-testid=leave]");
  await page.waitForSelector("[data-testid=practice-history-entry]", { timeout: 30_000 });
  assert.equal(
    await page.locator("[data-testid=local-resume]").count(),
    0,
    "a finished match is not offered to resume",
  );
  assert.deepEqual(problems, []);
});
