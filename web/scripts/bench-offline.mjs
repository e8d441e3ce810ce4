// Benchmark of the offline practice (issue 17 item 6; not a test): `node scripts/bench-offline.mjs`
// after `npm run build`. Starts the real server on a loopback port (as the browser tests
// do) and Debian's chromium, then prints: the bytes downloaded on the first visit (the
// page's own requests, and what the service worker caches), the time from opening the page
// to a dealt practice table on the first visit and on warm (cached) starts, and the bots'
// decision times per level in the browser's worker (p50/p99). Figures go to docs/benchmarks.md.
import { readdirSync, statSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { launch } from "../e2e/browser.mjs";
import { REPO, startServer } from "../e2e/server.mjs";

const WARM_RUNS = Number(process.env.BENCH_WARM_RUNS ?? 5);
const DECISIONS = Number(process.env.BENCH_DECISIONS ?? 300);
const DIST = join(REPO, "web", "dist");

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
const median = (xs) => pct(xs, 50);
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;

async function dealt(page, open) {
  const t0 = performance.now();
  await open();
  await page.waitForSelector("[data-testid=rack] .tile", { timeout: 120_000 });
  return performance.now() - t0;
}

const server = await startServer();
const browser = await launch();
try {
  const page = await browser.page();
  let pageBytes = 0;
  const sizes = [];
  // The context sees the page's and its worker's requests (the service worker's are counted
  // below from the files it caches: it fetches each once).
  browser.context.on("requestfinished", (req) => sizes.push(req.sizes().then((s) => s.responseBodySize + s.responseHeadersSize).catch(() => 0)));

  // First visit: a fresh profile, the lobby, the practice started with its defaults.
  const first = await dealt(page, async () => {
    await page.goto(server.url);
    await page.click("[data-testid=local-start]", { timeout: 120_000 });
  });
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: 120_000 });
  pageBytes = (await Promise.all(sizes)).reduce((a, b) => a + b, 0);
  sizes.length = 0;
  const cachedPaths = await page.evaluate(async () => {
    const c = await caches.open((await caches.keys()).find((k) => k.startsWith("remi-")));
    return (await c.keys()).map((r) => new URL(r.url).pathname);
  });
  const swBytes = cachedPaths.reduce((a, p) => a + statSync(join(DIST, p === "/" ? "index.html" : p.slice(1))).size, 0);

  // Warm starts: a new tab each time (Pyodide loaded again in a new worker, from the cache).
  const warmNew = [];
  const warmResume = [];
  await page.close();
  for (let i = 0; i < WARM_RUNS; i++) {
    const p = await browser.context.newPage();
    warmNew.push(await dealt(p, async () => {
      await p.goto(server.url);
      await p.click("[data-testid=local-start]", { timeout: 60_000 });
    }));
    await p.close();
    const q = await browser.context.newPage();
    warmResume.push(await dealt(q, () => q.goto(`${server.url}/#/practice`)));
    await q.close();
  }

  // Bot decisions in the browser's worker (the bundle's own worker script).
  const workerFile = readdirSync(join(DIST, "assets")).find((f) => f.startsWith("worker-"));
  const bp = await browser.context.newPage();
  await bp.goto(server.url);
  const runs = [
    ["remi", 4, "easy"],
    ["remi", 4, "normal"],
    ["remi", 4, "hard"],
    ["remi101", 4, "normal"],
    ["remi101", 4, "hard"],
  ];
  const bots = [];
  for (const [variant, players, level] of runs) {
    const ms = await bp.evaluate(
      ([url, m]) =>
        new Promise((resolve, reject) => {
          const w = new Worker(url, { type: "module" });
          w.onmessage = (ev) => {
            if (ev.data.kind === "bench") {
              w.terminate();
              resolve(ev.data.ms);
            } else if (ev.data.kind === "failed") reject(new Error(ev.data.message));
          };
          w.postMessage(m);
        }),
      [`/assets/${workerFile}`, { kind: "bench", variant, players, level, decisions: DECISIONS }],
    );
    bots.push({ variant, players, level, n: ms.length, p50: pct(ms, 50), p99: pct(ms, 99), max: Math.max(...ms) });
  }

  const out = [`load average at the end: ${loadavg().map((x) => x.toFixed(2)).join(", ")} (2 CPUs shared with other work)`];
  out.push(`first visit: ${mb(pageBytes)} by the page's and its worker's requests, ${mb(swBytes)} fetched by the service worker for its cache (${cachedPaths.length} files); total ${mb(pageBytes + swBytes)}`);
  out.push(`first visit, opening the page to a dealt practice table: ${(first / 1000).toFixed(2)} s`);
  out.push(`warm start (cached), lobby then Start, to a dealt table: median ${(median(warmNew) / 1000).toFixed(2)} s, max ${(Math.max(...warmNew) / 1000).toFixed(2)} s over ${warmNew.length}`);
  out.push(`warm start (cached), #/practice resuming the kept match: median ${(median(warmResume) / 1000).toFixed(2)} s, max ${(Math.max(...warmResume) / 1000).toFixed(2)} s over ${warmResume.length}`);
  out.push("bot decision time in the browser's worker (bot.act on the seat's view):");
  out.push("| variant | seats | level | decisions | p50 ms | p99 ms | max ms |");
  out.push("|---|---|---|---|---|---|---|");
  for (const b of bots) out.push(`| ${b.variant} | ${b.players} | ${b.level} | ${b.n} | ${b.p50.toFixed(1)} | ${b.p99.toFixed(1)} | ${b.max.toFixed(1)} |`);
  process.stdout.write(`${out.join("\n")}\n`);
} finally {
  await browser.close();
  await server.stop();
}
