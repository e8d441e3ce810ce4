// The server's own address always works, whatever its port: with
// REMI_ALLOWED_ORIGINS naming only another address, a practice game is played over the
// socket. A page whose origin the server refuses (here through a proxy that rewrites the
// Host header, as a misconfigured front proxy does: its cookie-authenticated requests and
// its socket are refused) says why instead of "reconnecting" or a bare error.
import assert from "node:assert/strict";
import { createServer, connect } from "node:net";
import { test } from "./fixtures.mjs";
import { launch, PHONE } from "./browser.mjs";
import { shot, startPractice } from "./play.mjs";
import { startServer } from "./server.mjs";

let server;
let proxy;
const browsers = [];

/** A TCP proxy to the server that rewrites every request's Host to the server's own. */
function hostRewritingProxy(target) {
  const srv = createServer((client) => {
    const upstream = connect(target, "127.0.0.1");
    client.on("data", (chunk) => {
      upstream.write(
        chunk
          .toString("latin1")
          .replace(/\r\nHost: [^\r]*\r\n/gi, `\r\nHost: 127.0.0.1:${target}\r\n`),
        "latin1",
      );
    });
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
    };
    client.on("error", end).on("close", end);
    upstream.on("error", end).on("close", end);
  });
  return new Promise((ok) => srv.listen(0, "127.0.0.1", () => ok(srv)));
}

test.beforeAll(async () => {
  server = await startServer({ REMI_ALLOWED_ORIGINS: "http://localhost:8000" });
  proxy = await hostRewritingProxy(server.port);
});

test.afterAll(async () => {
  for (const b of browsers) await b.close();
  proxy?.close();
  await server?.stop();
});

async function page() {
  const b = await launch(PHONE);
  browsers.push(b);
  return b.page();
}

test("the page's own origin is allowed on any port", async () => {
  test.setTimeout(120_000);
  assert.doesNotMatch(server.url, /:8000$/);
  const p = await page();
  await startPractice(p, server.url, "Ana", "remi");
  await p.waitForSelector("[data-testid=status]");
  assert.equal(await p.locator("[data-testid=origin-refused]").count(), 0);
});

test("a refused origin is explained on the page", async () => {
  test.setTimeout(120_000);
  const p = await page();
  const via = `http://127.0.0.1:${proxy.address().port}`;
  await p.goto(via);
  await p.fill("[data-testid=name-input]", "Bogdan");
  await p.click("[data-testid=name-save]");
  await p.selectOption("[data-testid=practice-variant]", "remi");
  await p.click("[data-testid=practice]");
  const notice = await p.waitForSelector("[data-testid=origin-refused]", { timeout: 20_000 });
  const text = await notice.textContent();
  assert.match(text, /REMI_ALLOWED_ORIGINS/);
  assert.ok(text.includes(via), "the notice names the page's origin");
  assert.equal(await p.locator(".toast.show").count(), 0, "no toast over the notice");
  await shot(p, "origin-refused-phone.png");
  // The player closes it; another refused request does not bring it back.
  await p.click("[data-testid=origin-close]");
  assert.equal(await p.locator("[data-testid=origin-refused]").count(), 0);
  await p.click("[data-testid=practice]");
  await p.waitForTimeout(1500);
  assert.equal(await p.locator("[data-testid=origin-refused]").count(), 0);
});
