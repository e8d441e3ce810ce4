// The real server for a test: a free loopback port, a temporary SQLite database, the built
// client (web/dist) served at /. Started by the test, stopped by it.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO = resolve(HERE, "..", "..");
const PYTHON = process.env.REMI_PYTHON ?? join(REPO, ".venv", "bin", "python");

function freePort() {
  return new Promise((ok, fail) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", fail);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

/** Start the server; resolves when /healthz answers. `env` adds REMI_* settings. */
export async function startServer(env = {}) {
  if (!existsSync(join(REPO, "web", "dist", "index.html"))) {
    throw new Error("web/dist is missing: run `npm run build` in web/ first");
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "remi-e2e-"));
  const url = `http://127.0.0.1:${port}`;
  const fullEnv = {
    ...process.env,
    REMI_HOST: "127.0.0.1",
    REMI_PORT: String(port),
    REMI_DATA_DIR: dir,
    REMI_DATABASE_URL: "",
    REMI_REDIS_URL: "",
    REMI_ALLOWED_ORIGINS: url,
    REMI_LOG_LEVEL: "WARNING",
    REMI_LOG_FORMAT: "text",
    REMI_BOT_DELAY_SECONDS: "0.05",
    // The summary waits for its players (next_round) as at a real table: no test waits out
    // this pause, so a summary never closes under a test's click.
    REMI_ROUND_PAUSE_SECONDS: "120",
    ...env,
  };
  let log = "";
  const keep = (chunk) => {
    log += chunk.toString();
    if (log.length > 200_000) log = log.slice(-100_000);
  };
  let child = null;
  let exited = null;

  const spawnServer = async (extraEnv = {}) => {
    child = spawn(PYTHON, [join(HERE, "serve.py")], {
      cwd: REPO,
      env: { ...fullEnv, ...extraEnv },
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const me = child;
    exited = new Promise((ok) => me.on("exit", (code) => ok(code)));
    // Two test files start their servers at once on a loaded machine: a minute to answer.
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (me.exitCode !== null) throw new Error(`server exited (${me.exitCode}):\n${log}`);
      try {
        const res = await fetch(`${url}/healthz`);
        if (res.ok) return;
      } catch {
        /* not yet */
      }
      if (Date.now() > deadline) {
        me.kill("SIGKILL");
        throw new Error(`server did not start:\n${log}`);
      }
      await new Promise((r) => setTimeout(r, 150));
    }
  };
  const kill = async () => {
    if (child && child.exitCode === null) {
      child.kill("SIGTERM");
      const timer = setTimeout(() => child.kill("SIGKILL"), 8000);
      await exited;
      clearTimeout(timer);
    }
  };

  await spawnServer();
  return {
    url,
    port,
    log: () => log,
    /** Stop the server process (the database stays), for a restart. */
    kill,
    /** Start it again on the same port and database (no scripted seeds this time). */
    async restart() {
      await kill();
      await spawnServer({ REMI_E2E_SEEDS: "" });
    },
    async stop() {
      await kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
