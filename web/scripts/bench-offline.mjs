// Benchmark of the offline practice (not a test): `node scripts/bench-offline.mjs`
// after `npm run build`. Starts the real server on a loopback port (as the browser tests
// do) behind a small counting proxy, and Debian's chromium, then prints: the bytes the
// server sent on the first visit (every request of the page, its workers and the service
// worker, per file), the time from opening the page to a dealt practice table on the first
// visit and on warm (cached) starts with where that time goes (the performance marks of
// src/practice/local.ts and worker.ts), whether Chromium used its WebAssembly code cache,
// and the bots' decision times per level in the browser's worker (p50/p99).
// Figures go to docs/benchmarks.md.
//
// BENCH_WARM_RUNS (default 5) warm starts of each kind; BENCH_DECISIONS (default 300,
// 0 skips the bots) decisions per level; BENCH_MBPS (default: no limit) the proxy's
// bandwidth per response in MB/s, for a first visit on a slower network.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { loadavg } from "node:os";
import { join } from "node:path";
import { CHROMIUM, launch } from "../e2e/browser.mjs";
import { countingProxy } from "../e2e/proxy.mjs";
import { REPO, startServer } from "../e2e/server.mjs";

const WARM_RUNS = Number(process.env.BENCH_WARM_RUNS ?? 5);
const DECISIONS = Number(process.env.BENCH_DECISIONS ?? 300);
const DIST = join(REPO, "web", "dist");
const RATE = Number(process.env.BENCH_MBPS ?? 0) * 1e6;

const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};
const median = (xs) => (xs.length ? pct(xs, 50) : NaN);
const mb = (n) => `${(n / 1e6).toFixed(2)} MB`;
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(", ");

/** `open` (navigation, clicks), then wait for a tile in the rack; milliseconds and the
 * page's `remi:` marks (ms since its time origin). */
async function dealt(page, open) {
  const t0 = performance.now();
  await open();
  await page.waitForSelector("[data-testid=rack] .tile", { timeout: 180_000 });
  const ms = performance.now() - t0;
  const marks = await page.evaluate(() =>
    Object.fromEntries(
      performance
        .getEntriesByType("mark")
        .filter((m) => m.name.startsWith("remi:"))
        .map((m) => [m.name.slice(5), m.startTime]),
    ),
  );
  return { ms, marks };
}

/** Where a warm start's time goes, from its marks: [step, ms] (NaN when a mark is missing,
 * e.g. a build without them). `from` is the mark the start counts from (0: the page's
 * time origin, i.e. the navigation). */
function steps(m, from) {
  const t0 = from === 0 ? 0 : m[from];
  const asked = Math.min(m["practice:warm"] ?? Infinity, m["practice:open"] ?? Infinity);
  const begun = Math.max(m["worker:imported"] ?? NaN, m["worker:open"] ?? NaN);
  return [
    ["the page, until it asks the worker", asked - t0],
    ["the worker's script running", m["worker:script"] - asked],
    [
      "Pyodide's runtime (pyodide.asm.mjs, the WebAssembly module)",
      m["worker:runtime"] - m["worker:boot"],
    ],
    [
      "Python's start (standard library, interpreter, Pyodide's Python)",
      m["worker:python"] - m["worker:runtime"],
    ],
    ["unpacking and importing the packed Python", m["worker:imported"] - m["worker:python"]],
    ["the deal or the resume, kept in IndexedDB", m["worker:opened"] - begun],
    ["to the table drawn (hello, snapshot, render)", m["practice:table"] - m["worker:opened"]],
    ["total, to the table drawn", m["practice:table"] - t0],
  ];
}

function stepTable(title, runs, from) {
  const rows = runs.map((r) => steps(r.marks, from));
  const out = [
    `${title}: median ${(median(runs.map((r) => r.ms)) / 1000).toFixed(2)} s, max ${(Math.max(...runs.map((r) => r.ms)) / 1000).toFixed(2)} s over ${runs.length} (bench's clock, from ${from === 0 ? "before the navigation" : "before the click"} to a tile in the rack)`,
  ];
  out.push("| step | median ms |", "|---|---|");
  rows[0].forEach(([name], i) => {
    const ms = median(rows.map((r) => r[i][1]).filter(Number.isFinite));
    out.push(`| ${name} | ${ms < 0 ? `(${(-ms).toFixed(0)} before)` : ms.toFixed(0)} |`);
  });
  return out.join("\n");
}

const chromium = spawnSync(CHROMIUM, ["--version"], { encoding: "utf8" }).stdout.trim();
const loadBefore = load();
const server = await startServer();
const proxy = await countingProxy(server.url, { rate: RATE });
const browser = await launch();
try {
  const page = await browser.page();

  // First visit: a fresh profile, the lobby, the practice started with its defaults.
  const first = await dealt(page, async () => {
    await page.goto(proxy.url);
    await page.click("[data-testid=local-start]", { timeout: 120_000 });
  });
  // Until the service worker has cached everything (it controls the page then).
  await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, {
    timeout: 180_000,
  });
  await page.waitForTimeout(1000);
  const sent = proxy.take();
  const firstBytes = [...sent.values()].reduce((a, c) => a + c.bytes, 0);
  const files = [...sent.entries()]
    .filter(([, c]) => c.bytes > 50_000)
    .sort((a, b) => b[1].bytes - a[1].bytes);

  // Warm starts: a new tab each time (Pyodide loaded again in a new worker, from the cache).
  const warmNew = [];
  const warmResume = [];
  const warmChosen = [];
  await page.close();
  for (let i = 0; i < WARM_RUNS; i++) {
    const p = await browser.context.newPage();
    warmNew.push(
      await dealt(p, async () => {
        await p.goto(proxy.url);
        await p.click("[data-testid=local-start]", { timeout: 60_000 });
      }),
    );
    await p.close();
    const q = await browser.context.newPage();
    warmResume.push(await dealt(q, () => q.goto(`${proxy.url}/#/practice`)));
    await q.close();
    // A player who chooses a setting first (the box reached into), then presses Start 3 s later.
    const c = await browser.context.newPage();
    await c.goto(proxy.url);
    await c.selectOption("[data-testid=local-seats]", "3");
    await c.waitForTimeout(3000);
    warmChosen.push(await dealt(c, () => c.click("[data-testid=local-start]")));
    await c.close();
  }
  const warmBytes = [...proxy.take().values()].reduce((a, c) => a + c.bytes, 0);

  // One more warm start, traced: did Chromium take pyodide.asm.wasm's compiled code from
  // its code cache (kept with the service worker's cached response)?
  const chrome = browser.context.browser();
  await chrome.startTracing(undefined, { categories: ["disabled-by-default-devtools.timeline"] });
  const tp = await browser.context.newPage();
  await dealt(tp, () => tp.goto(`${proxy.url}/#/practice`));
  const trace = JSON.parse((await chrome.stopTracing()).toString()).traceEvents;
  await tp.close();
  const wasmCache = trace
    .filter((e) =>
      /^v8\.wasm\.(moduleCacheHit|moduleCacheInvalid|moduleCacheInvalidDigest|cachedModule)$/.test(
        e.name,
      ),
    )
    .map((e) => `${e.name} ${JSON.stringify(e.args)}`);

  // Bot decisions in the browser's worker (the bundle's own worker script).
  const bots = [];
  if (DECISIONS > 0) {
    const workerFile = readdirSync(join(DIST, "assets")).find((f) => f.startsWith("worker-"));
    const bp = await browser.context.newPage();
    await bp.goto(proxy.url);
    const runs = [
      ["remi", 4, "easy"],
      ["remi", 4, "normal"],
      ["remi", 4, "hard"],
      ["remi101", 4, "normal"],
      ["remi101", 4, "hard"],
    ];
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
      bots.push({
        variant,
        players,
        level,
        n: ms.length,
        p50: pct(ms, 50),
        p99: pct(ms, 99),
        max: Math.max(...ms),
      });
    }
  }

  const out = [
    `${chromium}; load average before: ${loadBefore}, after: ${load()} (1, 5, 15 min; 2 CPUs shared with other work)`,
  ];
  out.push(
    `first visit: the server sent ${mb(firstBytes)} (every request: the page, its workers, the service worker)`,
  );
  out.push("| file | requests | with a body (200) | bytes |", "|---|---|---|---|");
  for (const [path, c] of files)
    out.push(`| ${path} | ${c.requests} | ${c.full} | ${mb(c.bytes)} |`);
  out.push(
    `first visit, opening the page to a dealt practice table: ${(first.ms / 1000).toFixed(2)} s`,
  );
  out.push(`warm starts: the server sent ${mb(warmBytes)} over all of them`);
  out.push(
    stepTable("warm start (cached), lobby then Start at once, to a dealt table", warmNew, 0),
  );
  out.push(stepTable("warm start (cached), #/practice resuming the kept match", warmResume, 0));
  out.push(
    stepTable(
      "warm start (cached), a setting chosen in the box, Start 3 s later: from the click",
      warmChosen,
      "practice:start",
    ),
  );
  out.push(
    `WebAssembly code cache, one more warm start traced: ${wasmCache.length ? wasmCache.join("; ") : "no hit (pyodide.asm.wasm compiled again)"}`,
  );
  if (bots.length) {
    out.push("bot decision time in the browser's worker (bot.act on the seat's view):");
    out.push("| variant | seats | level | decisions | p50 ms | p99 ms | max ms |");
    out.push("|---|---|---|---|---|---|---|");
    for (const b of bots)
      out.push(
        `| ${b.variant} | ${b.players} | ${b.level} | ${b.n} | ${b.p50.toFixed(1)} | ${b.p99.toFixed(1)} | ${b.max.toFixed(1)} |`,
      );
  }
  process.stdout.write(`${out.join("\n")}\n`);
} finally {
  await browser.close();
  await proxy.close();
  await server.stop();
}
