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
  const child = spawn(PYTHON, [join(HERE, "serve.py")], {
    cwd: REPO,
    env: {
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
      REMI_ROUND_PAUSE_SECONDS: "3",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let log = "";
  const keep = (chunk) => {
    log += chunk.toString();
    if (log.length > 200_000) log = log.slice(-100_000);
  };
  child.stdout.on("data", keep);
  child.stderr.on("data", keep);
  const exited = new Promise((ok) => child.on("exit", (code) => ok(code)));
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`server exited (${child.exitCode}):\n${log}`);
    try {
      const res = await fetch(`${url}/healthz`);
      if (res.ok) break;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`server did not start:\n${log}`);
    }
    await new Promise((r) => setTimeout(r, 150));
  }
  return {
    url,
    port,
    log: () => log,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), 8000);
        await exited;
        clearTimeout(timer);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
