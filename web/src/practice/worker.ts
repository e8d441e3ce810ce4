// The offline practice's Web Worker: the repository's rule engine, bots and practice
// room (server/rules, server/bots, server/practice, packed at build time with their
// bytecode into pyodide/remi-python.zip) run here under Pyodide, whose files the app
// serves itself (pyodide/, from the npm package, written by the build; no CDN). The page
// speaks to it with the server socket's messages (local.ts); it answers with the same
// frames (server/practice/room.py), runs the room's timers (bot moves, the turn clock,
// the next deal) and keeps the match in IndexedDB after every change (store.ts). The
// page may ask it to `boot` (load Pyodide and import the packed Python) before a table
// needs it (local.ts warmPractice).

import { loadPyodide, type PyodideAPI } from "pyodide";
import { finishGame, loadGame, saveGame, type HistoryEntry, type PracticeSettings } from "./store";
import { coachMessage, type CoachFromWorker, type CoachToWorker } from "../coach-worker";

/** From the page. */
export type ToWorker =
  | { kind: "boot" }
  | {
      kind: "open";
      settings: PracticeSettings | null;
      name: string | null;
      seed: string;
      botDelay: number;
    }
  | { kind: "client"; msg: unknown }
  | { kind: "close" }
  | { kind: "bench"; variant: string; players: number; level: string; decisions: number }
  | { kind: "catalogue" }
  | CoachToWorker;

/** To the page. */
export type FromWorker =
  | { kind: "ready"; settings: PracticeSettings; loadMs: number; marks: Mark[] }
  | { kind: "frame"; frame: unknown }
  | { kind: "catalogue"; body: unknown }
  | { kind: "bench"; ms: number[] }
  | { kind: "failed"; code: string; message: string }
  | CoachFromWorker;

interface Session {
  start(settings: string, seed: string, now: number, name: string | null, botDelay: number): string;
  resume(state: string, now: number, botDelay: number): void;
  message(msg: string, now: number): string;
  tick(now: number): string;
  due(): number | undefined;
  over(): boolean;
  state(now: number): string;
  summary(): string;
  catalogue(): string;
  finished_round(number: number): string | undefined | null;
}

/** A step of the worker's start (`name`, epoch milliseconds: performance.timeOrigin +
 * now, comparable with the page's), sent with `ready`; the page turns them into
 * performance marks `remi:worker:<name>` (local.ts) for DevTools and the benchmark. */
export type Mark = [string, number];
const marks: Mark[] = [];
const mark = (name: string) => marks.push([name, performance.timeOrigin + performance.now()]);
mark("script");

/** Where the packed Python goes in Pyodide's file system (scripts/pack-python.mjs
 * REMI_ZIP_PATH: its bytecode names this path). */
const REMI_ZIP = "/lib/remi-python.zip";
const BASE = new URL(`${import.meta.env.BASE_URL}pyodide/`, self.location.origin).href;
const post = (m: FromWorker) => (self as unknown as Worker).postMessage(m);
const now = () => Date.now() / 1000;

let py: Promise<{ api: PyodideAPI; session: Session }> | null = null;
let session: Session | null = null;
let settings: PracticeSettings | null = null;
let name: string | null = null;
let timer = 0;
let saving: Promise<void> = Promise.resolve();

function boot(): Promise<{ api: PyodideAPI; session: Session }> {
  py ??= (async () => {
    mark("boot");
    const [api, pack] = await Promise.all([
      // fsInit (used for its mark only): Pyodide's runtime (pyodide.asm.mjs, the
      // WebAssembly module) is instantiated, Python is not started yet.
      loadPyodide({ indexURL: BASE, packages: [], fsInit: async () => void mark("runtime") }).then(
        (a) => (mark("python"), a),
      ),
      fetch(`${BASE}remi-python.zip`).then((r) => r.arrayBuffer()),
    ]);
    // The packed Python (sources and their bytecode, scripts/pack-python.mjs), imported
    // from the zip as it is.
    api.FS.writeFile(REMI_ZIP, new Uint8Array(pack));
    api.runPython(`import sys\nsys.path.insert(0, "${REMI_ZIP}")`);
    const mod = api.pyimport("server.practice.bridge");
    mark("imported");
    return { api, session: mod.Session() as Session };
  })();
  return py;
}

function deliver(framesJson: string): void {
  const frames = JSON.parse(framesJson) as { type: string; event?: { do?: string } }[];
  for (const frame of frames) post({ kind: "frame", frame });
  if (frames.some((f) => f.type === "event")) keep();
}

/** Keep the match after a change: in IndexedDB, or in the history once it is over (its
 * score sheet and its rounds, for the coach's review from the lobby). */
function keep(): void {
  const s = session;
  if (!s || !settings) return;
  const kept = settings;
  if (s.over()) {
    const summary = JSON.parse(s.summary()) as Pick<HistoryEntry, "scores" | "rounds">;
    const entry: HistoryEntry = {
      finished_at: Date.now(),
      settings: kept,
      scores: summary.scores,
      name,
      rounds: summary.rounds,
    };
    saving = saving.then(() => finishGame(entry)).catch(() => undefined);
    return;
  }
  const state = s.state(now());
  saving = saving
    .then(() => saveGame({ state, settings: kept, saved_at: Date.now() }))
    .catch(() => undefined);
}

function schedule(): void {
  self.clearTimeout(timer);
  const s = session;
  if (!s) return;
  const due = s.due();
  if (due === undefined || due === null) return;
  timer = self.setTimeout(
    () => {
      deliver(s.tick(now()));
      schedule();
    },
    Math.max(0, (due - now()) * 1000),
  );
}

async function open(m: Extract<ToWorker, { kind: "open" }>): Promise<void> {
  const t0 = performance.now();
  mark("open");
  self.clearTimeout(timer);
  session = null;
  const { session: s } = await boot();
  name = m.name;
  if (m.settings) {
    try {
      s.start(JSON.stringify(m.settings), m.seed, now(), m.name, m.botDelay);
    } catch (err) {
      post({
        kind: "failed",
        code: "bad_settings",
        message: String(err).split("\n").filter(Boolean).pop() ?? "",
      });
      return;
    }
    settings = m.settings;
  } else {
    await saving; // the last change is kept before it is read back
    const kept = await loadGame();
    if (!kept) {
      post({
        kind: "failed",
        code: "no_game",
        message: "no practice match is kept on this device",
      });
      return;
    }
    s.resume(kept.state, now(), m.botDelay);
    settings = kept.settings;
  }
  session = s;
  keep();
  mark("opened");
  for (const r of performance.getEntriesByType("resource") as PerformanceResourceTiming[]) {
    // When each of Pyodide's files and the packed Python had arrived (from the service
    // worker's cache on a warm start).
    if (r.name.startsWith(BASE))
      marks.push([`fetched:${r.name.slice(BASE.length)}`, performance.timeOrigin + r.responseEnd]);
  }
  performance.clearResourceTimings();
  post({
    kind: "ready",
    settings: settings!,
    loadMs: performance.now() - t0,
    marks: marks.splice(0),
  });
  schedule();
}

self.onmessage = async (ev: MessageEvent<ToWorker>) => {
  const m = ev.data;
  // The coach (../coach-worker.ts): round reviews and the practice's hint.
  if (coachMessage(m, { api: async () => (await boot()).api, session: () => session, post }))
    return;
  try {
    if (m.kind === "boot") await boot();
    else if (m.kind === "open") await open(m);
    else if (m.kind === "catalogue")
      post({ kind: "catalogue", body: JSON.parse((await boot()).session.catalogue()) });
    else if (m.kind === "bench") {
      // web/scripts/bench-offline.mjs: bot decision times here, in the browser's worker.
      const { api } = await boot();
      const timing = api.pyimport("server.practice.timing");
      const ms = timing.decision_times(m.variant, m.players, m.level, m.decisions, () =>
        performance.now(),
      );
      post({ kind: "bench", ms: ms.toJs() as number[] });
      ms.destroy();
    } else if (m.kind === "close") {
      // The page left the table: the match waits, kept, until it is opened again.
      self.clearTimeout(timer);
      session = null;
    } else if (m.kind === "client" && session) {
      deliver(session.message(JSON.stringify(m.msg), now()));
      schedule();
    }
  } catch (err) {
    post({ kind: "failed", code: "internal_error", message: String(err) });
  }
};
