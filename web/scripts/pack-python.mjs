// The Python sources the offline practice runs under Pyodide, packed from the repository
// at build time (vite.config.ts writes them to dist/pyodide/remi-python.json): the rule
// engine (server/rules), the bots (server/bots), the practice room (server/practice) and
// the pure rack helpers it shares with the server's rooms (server/rooms/rack.py). Nothing
// is copied by hand; web/e2e/pyodide.test.mjs compares the pack with the repository.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** Packages packed whole (every .py file directly in them). */
export const PACKAGES = ["server/rules", "server/bots", "server/practice"];
/** Single files packed besides them (package markers and the shared pure helper). */
export const FILES = ["server/__init__.py", "server/rooms/__init__.py", "server/rooms/rack.py"];

/** Every packed path (relative to the repository, `/`-separated), sorted. */
export function packedPaths(repo = REPO) {
  const paths = [...FILES];
  for (const pkg of PACKAGES) {
    for (const name of readdirSync(join(repo, pkg))) if (name.endsWith(".py")) paths.push(`${pkg}/${name}`);
  }
  return paths.sort();
}

/** The pack: `{ files: { path: source } }`. */
export function packPython(repo = REPO) {
  const files = {};
  for (const p of packedPaths(repo)) files[p] = readFileSync(join(repo, p), "utf8");
  return { files };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  process.stdout.write(JSON.stringify(packPython()));
}
