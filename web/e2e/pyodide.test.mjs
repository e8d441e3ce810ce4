// The engine the offline practice runs, without a browser: the built
// bundle's Python (dist/pyodide/remi-python.zip) holds the repository's own files, byte
// for byte and all of them, each with the bytecode the build compiled (hash-checked
// against it); Pyodide in node (the same npm package the page bundles), with the build's
// standard library zip, imports them from that bytecode; they pass every scenario file of
// tests/scenarios (the scenario runner, server/rules/scenario.py) and the practice room
// plays a whole match through the bridge.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { test } from "./fixtures.mjs";
import { loadPyodide } from "pyodide";
import {
  packedPaths,
  PYODIDE_DIR,
  REMI_ZIP_PATH,
  REPO,
  sourceZip,
} from "../scripts/pack-python.mjs";

const DIST = join(REPO, "web", "dist", "pyodide");
let py;

test.beforeAll(async () => {
  // As the worker does (src/practice/worker.ts), with the build's files. The package's own
  // folder is named: Pyodide would guess it from a stack trace, which the test runner's
  // source maps rewrite.
  py = await loadPyodide({
    indexURL: `${PYODIDE_DIR}/`,
    stdLibURL: join(DIST, "python_stdlib.zip"),
    lockFileURL: join(DIST, "pyodide-lock.json"),
  });
  py.FS.writeFile(REMI_ZIP_PATH, readFileSync(join(DIST, "remi-python.zip")));
  py.runPython(`import sys\nsys.path.insert(0, "${REMI_ZIP_PATH}")`);
});

/** Every entry of a zip in Pyodide's file system: [name, flags] with, for a .pyc, its
 * PEP 552 flags (3: hash-based and checked) and whether its hash is its source's. */
function entries(path) {
  return JSON.parse(
    py.runPython(`
import importlib.util, json, zipfile
z = zipfile.ZipFile("${path}")
names = set(z.namelist())
out = []
for name in sorted(names):
    if name.endswith(".pyc"):
        data = z.read(name)
        source = name[:-1]
        fresh = source in names and data[8:16] == importlib.util.source_hash(z.read(source))
        out.append([name, int.from_bytes(data[4:8], "little"), fresh])
    else:
        out.append([name, None, None])
json.dumps(out)
`),
  );
}

test("the bundle's Python is the repository's files, each with its bytecode", () => {
  const paths = packedPaths();
  for (const p of [
    "server/rules/state.py",
    "server/bots/planner.py",
    "server/practice/room.py",
    "server/rules/scenario.py",
  ]) {
    assert.ok(paths.includes(p), `${p} is packed`);
  }
  const zip = entries(REMI_ZIP_PATH);
  assert.deepEqual(
    zip.map(([n]) => n).sort(),
    [...paths, ...paths.map((p) => `${p}c`)].sort(),
    "every file of the packed packages and its .pyc, no other",
  );
  for (const p of paths) {
    const source = py.runPython(
      `import zipfile\nzipfile.ZipFile("${REMI_ZIP_PATH}").read("${p}").decode()`,
    );
    assert.equal(source, readFileSync(join(REPO, p), "utf8"), `${p} as in the repository`);
  }
  for (const [name, flags, fresh] of zip.filter(([n]) => n.endsWith(".pyc"))) {
    assert.equal(flags, 3, `${name} is checked against its source at import (PEP 552)`);
    assert.ok(fresh, `${name} is its source's bytecode`);
  }
});

test("the build's standard library is Pyodide's, with hash-checked bytecode beside what the practice imports", () => {
  const original = readFileSync(join(PYODIDE_DIR, "python_stdlib.zip"));
  py.FS.writeFile("/tmp/original-stdlib.zip", original);
  const theirs = entries("/tmp/original-stdlib.zip").map(([n]) => n);
  const ours = entries(
    py.runPython("import sys\nnext(p for p in sys.path if p.endswith('.zip') and 'python3' in p)"),
  );
  const added = ours.filter(([n]) => !theirs.includes(n));
  assert.deepEqual(
    ours.map(([n]) => n).filter((n) => theirs.includes(n)),
    theirs,
    "every entry of Pyodide's zip is kept",
  );
  assert.ok(added.length >= 50, `bytecode added for the modules imported (${added.length})`);
  for (const [name, flags, fresh] of added) {
    assert.ok(name.endsWith(".pyc"), `${name}: only bytecode is added`);
    assert.equal(flags, 3, `${name} is checked against its source at import`);
    assert.ok(fresh, `${name} is its source's bytecode`);
  }
});

test("the practice imports its modules from the build's bytecode", () => {
  const origins = JSON.parse(
    py.runPython(`
import json, sys
import server.practice.bridge
json.dumps({name: sys.modules[name].__spec__.origin for name in
            ["server.practice.bridge", "server.rules.state", "server.bots.planner", "json", "random", "dataclasses"]})
`),
  );
  for (const [name, origin] of Object.entries(origins))
    assert.ok(origin.endsWith(".pyc"), `${name} from ${origin}`);
});

test("the dev server's zip (sources alone) is the same sources", () => {
  py.FS.writeFile("/tmp/dev.zip", sourceZip());
  const same = py.runPython(`
import zipfile
dev, built = zipfile.ZipFile("/tmp/dev.zip"), zipfile.ZipFile("${REMI_ZIP_PATH}")
dev.testzip() is None and all(dev.read(n) == built.read(n) for n in dev.namelist()) and sorted(dev.namelist()) == sorted(n for n in built.namelist() if n.endswith(".py"))
`);
  assert.equal(same, true);
});

test("under Pyodide the engine passes every scenario file", () => {
  const root = join(REPO, "tests", "scenarios");
  let files = 0;
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".json")) continue;
    const rel = relative(root, join(entry.parentPath ?? entry.path, entry.name));
    py.FS.mkdirTree(`/scenarios/${rel.split("/").slice(0, -1).join("/")}`);
    py.FS.writeFile(`/scenarios/${rel}`, readFileSync(join(root, rel)));
    files++;
  }
  assert.ok(files >= 60, `the scenario files are there (${files})`);
  const out = py
    .runPython(`
import io
from server.rules import scenario
buf = io.StringIO()
rc = scenario.main(["/scenarios"], out=buf)
(rc, buf.getvalue())
`)
    .toJs();
  const [rc, text] = out;
  const failed = text.split("\n").filter((l) => l.startsWith("FAIL"));
  assert.deepEqual(failed, []);
  const passed = text.split("\n").filter((l) => l.startsWith("PASS")).length;
  assert.ok(passed >= 60, `scenarios passed: ${passed}`);
  assert.equal(rc, 0);
});

test("under Pyodide the practice room plays a match to its score sheet", () => {
  const result = py.runPython(`
import json
from server.bots.legal import fallback_action
from server.practice.room import PLAYER, PracticeRoom
from server.rules import view_for

room = PracticeRoom({"variant": "remi101", "seats": 3, "bot_levels": ["easy", "normal"],
                     "end": {"kind": "rounds", "rounds": 1}}, "node", 0.0, bot_delay=0.01)
now, seq, kinds = 0.0, 0, []
for _ in range(5000):
    if room.over:
        break
    state = room.round
    if not state.over and state.turn == PLAYER:
        seq += 1
        frames = room.message({"type": "action", "seq": seq, "base_version": room.version,
                               "action": fallback_action(view_for(state, PLAYER))}, now)
    else:
        now = max(now, room.due())
        frames = room.tick(now)
    kinds += [f["event"]["do"] for f in frames if f["type"] == "event"]
json.dumps({"kinds": kinds[-2:], "scores": room.summary()["scores"]})
`);
  const { kinds, scores } = JSON.parse(result);
  assert.deepEqual(kinds, ["round_over", "match_over"]);
  assert.equal(scores.rounds.length, 1);
  assert.ok(scores.over && scores.winners.length >= 1);
});
