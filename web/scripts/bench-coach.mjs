// Benchmark of the coach in the browser's worker (not a test): `node scripts/bench-coach.mjs`
// after `npm run build`. Plays BENCH_ROUNDS (default 20) deals of BENCH_VARIANT (remi) for
// BENCH_PLAYERS (2) normal bots in CPython (bench/coach.py --export, the deals its own
// figures use), starts the real server on a loopback port and Debian's chromium, and
// reviews seat 0 of each round in the bundle's practice worker (Pyodide) with
// BENCH_BUDGET (0.3) seconds per decision: prints the time per round (p50, p95, from the
// request to the review's end) and the sampled deals per valued decision, to set beside
// bench/coach.py's CPython figures.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { CHROMIUM, launch } from "../e2e/browser.mjs";
import { REPO, startServer } from "../e2e/server.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 20);
const VARIANT = process.env.BENCH_VARIANT ?? "remi";
const PLAYERS = Number(process.env.BENCH_PLAYERS ?? 2);
const BUDGET = Number(process.env.BENCH_BUDGET ?? 0.3);
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(", ");
const pct = (xs, p) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))];
};

const file = join(tmpdir(), `coach-rounds-${process.pid}.json`);
const py = spawnSync(
  join(REPO, ".venv", "bin", "python"),
  [
    join(REPO, "bench", "coach.py"),
    VARIANT,
    "--players",
    String(PLAYERS),
    "--rounds",
    String(ROUNDS),
    "--export",
    file,
  ],
  { encoding: "utf8" },
);
if (py.status !== 0) throw new Error(py.stderr);
const rounds = JSON.parse(readFileSync(file, "utf8"));

const chromium = spawnSync(CHROMIUM, ["--version"], { encoding: "utf8" }).stdout.trim();
const loadBefore = load();
const server = await startServer();
const browser = await launch();
try {
  const workerFile = readdirSync(join(REPO, "web", "dist", "assets")).find((f) =>
    f.startsWith("worker-"),
  );
  const page = await browser.context.newPage();
  await page.goto(server.url);
  const runs = await page.evaluate(
    ([url, rounds, budget]) =>
      new Promise((resolve, reject) => {
        const w = new Worker(url, { type: "module" });
        const out = [];
        let k = 0;
        let t0 = 0;
        let worlds = [];
        const next = () => {
          if (k >= rounds.length) {
            w.terminate();
            resolve(out);
            return;
          }
          worlds = [];
          t0 = performance.now();
          w.postMessage({ kind: "coach", id: k + 1, round: rounds[k], seat: 0, budget });
        };
        w.onmessage = (ev) => {
          const m = ev.data;
          if (m.kind === "coach_decision" && m.decision.candidates > 1)
            worlds.push(m.decision.worlds);
          else if (m.kind === "coach_end") {
            out.push({ ms: performance.now() - t0, worlds });
            k += 1;
            next();
          } else if (m.kind === "coach_failed" || m.kind === "failed") reject(new Error(m.message));
        };
        // The first review also loads Pyodide: boot first, then time the reviews alone.
        w.postMessage({ kind: "boot" });
        w.postMessage({ kind: "catalogue" });
        const first = w.onmessage;
        w.onmessage = (ev) => {
          if (ev.data.kind === "catalogue") {
            w.onmessage = first;
            next();
          }
        };
      }),
    [`/assets/${workerFile}`, rounds, BUDGET],
  );
  const ms = runs.map((r) => r.ms);
  const worlds = runs.flatMap((r) => r.worlds);
  console.log(
    `${chromium}; load average before: ${loadBefore}, after: ${load()} (1, 5, 15 min; 2 CPUs shared)`,
  );
  console.log(
    `${VARIANT}, ${PLAYERS} players, ${runs.length} rounds, seat 0 reviewed with ${BUDGET} s per decision in the browser's worker:`,
  );
  console.log(
    `  time per round: p50 ${(pct(ms, 50) / 1000).toFixed(1)} s, p95 ${(pct(ms, 95) / 1000).toFixed(1)} s; ${(worlds.reduce((a, b) => a + b, 0) / Math.max(1, worlds.length)).toFixed(1)} sampled deals per valued decision`,
  );
} finally {
  await browser.close();
  await server.stop();
}
