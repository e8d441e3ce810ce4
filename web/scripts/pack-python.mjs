// The Python the offline practice runs under Pyodide, packed from the repository at
// build time (vite.config.ts writes it under dist/pyodide/): the rule engine
// (server/rules), the bots (server/bots), the room core the practice shares with the
// server's rooms (server/rooms/core), the practice's shell (server/practice) and the
// error codes (server/errors.py). Nothing is
// copied by hand; web/e2e/pyodide.test.mjs compares the pack with the repository.
//
// The build compiles their bytecode once, with the same Pyodide under node
// (bytecode.py): `remi-python.zip` holds the sources and a hash-checked `.pyc` beside
// each, and `python_stdlib.zip` is Pyodide's own with a `.pyc` added beside every module
// the practice imports. The browser then compiles no Python at a start. The dev server
// serves the sources alone (`sourceZip`): Python compiles them as it imports them.
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const require = createRequire(import.meta.url);
export const PYODIDE_DIR = dirname(require.resolve("pyodide/package.json"));

/** Packages packed whole (every .py file directly in them). */
export const PACKAGES = ["server/rules", "server/bots", "server/practice", "server/rooms/core"];
/** Single files packed besides them (package markers and the error codes). */
export const FILES = ["server/__init__.py", "server/rooms/__init__.py", "server/errors.py"];
/** Where the worker puts remi-python.zip in Pyodide's file system (on sys.path). */
export const REMI_ZIP_PATH = "/lib/remi-python.zip";

/** Every packed path (relative to the repository, `/`-separated), sorted. */
export function packedPaths(repo = REPO) {
  const paths = [...FILES];
  for (const pkg of PACKAGES) {
    for (const name of readdirSync(join(repo, pkg)))
      if (name.endsWith(".py")) paths.push(`${pkg}/${name}`);
  }
  return paths.sort();
}

/** The packed sources: `{ path: contents }`. */
export function packPython(repo = REPO) {
  const files = {};
  for (const p of packedPaths(repo)) files[p] = readFileSync(join(repo, p));
  return files;
}

/** Both zips of the build, bytecode included: `{ "remi-python.zip": Buffer,
 * "python_stdlib.zip": Buffer, summary }`. Runs Pyodide in node (a few seconds). */
export async function pythonBundle(repo = REPO) {
  const { loadPyodide } = await import("pyodide");
  const py = await loadPyodide({ indexURL: `${PYODIDE_DIR}/` });
  const files = packPython(repo);
  for (const [path, source] of Object.entries(files)) {
    py.FS.mkdirTree(`/src/${path.split("/").slice(0, -1).join("/")}`);
    py.FS.writeFile(`/src/${path}`, source);
  }
  py.FS.writeFile(
    "/tmp/bytecode_build.py",
    readFileSync(join(REPO, "web", "scripts", "bytecode.py")),
  );
  py.runPython("import sys\nsys.path.insert(0, '/tmp')");
  const build = py.pyimport("bytecode_build").build;
  const summary = JSON.parse(
    build(
      "/src",
      JSON.stringify(Object.keys(files)),
      "/tmp/remi-python.zip",
      REMI_ZIP_PATH,
      "/tmp/python_stdlib.zip",
    ),
  );
  return {
    "remi-python.zip": Buffer.from(py.FS.readFile("/tmp/remi-python.zip")),
    "python_stdlib.zip": Buffer.from(py.FS.readFile("/tmp/python_stdlib.zip")),
    summary,
  };
}

// ---------------------------------------------------------------- a zip of the sources alone

/** remi-python.zip without bytecode (the dev server's): the packed sources, deflated by
 * Python's zipfile (bytecode.py run by the machine's python3, or $PYTHON). */
export function sourceZip(repo = REPO) {
  const python = process.env.PYTHON ?? "python3";
  const script = join(REPO, "web", "scripts", "bytecode.py");
  const done = spawnSync(python, [script, repo, ...packedPaths(repo)], { maxBuffer: 64 << 20 });
  if (done.status !== 0) throw new Error(`${python} ${script}: ${done.error ?? done.stderr}`);
  return done.stdout;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const out = await pythonBundle();
  process.stdout.write(`${JSON.stringify(out.summary)}\n`);
}
