// The engine the offline practice runs (issue 17 item 5), without a browser: the built
// bundle's Python sources (dist/pyodide/remi-python.json) are the repository's own files,
// byte for byte and all of them; under Pyodide in node (the same npm package the page
// bundles) they pass every scenario file of tests/scenarios (the scenario runner,
// server/rules/scenario.py) and the practice room plays a whole match through the bridge.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { before, test } from "node:test";
import { loadPyodide } from "pyodide";
import { packedPaths, REPO } from "../scripts/pack-python.mjs";

const PACK = join(REPO, "web", "dist", "pyodide", "remi-python.json");
let py;
let pack;

before(async () => {
  pack = JSON.parse(readFileSync(PACK, "utf8"));
  py = await loadPyodide();
  for (const [path, source] of Object.entries(pack.files)) {
    py.FS.mkdirTree(`/remi/${path.split("/").slice(0, -1).join("/")}`);
    py.FS.writeFile(`/remi/${path}`, source);
  }
  py.runPython("import sys\nsys.path.insert(0, '/remi')");
});

test("the bundle's Python sources are the repository's files", () => {
  const paths = packedPaths();
  assert.deepEqual(Object.keys(pack.files).sort(), paths, "every file of the packed packages, no other");
  for (const p of ["server/rules/state.py", "server/bots/planner.py", "server/practice/room.py", "server/rules/scenario.py"]) {
    assert.ok(paths.includes(p), `${p} is packed`);
  }
  for (const p of paths) assert.equal(pack.files[p], readFileSync(join(REPO, p), "utf8"), `${p} as in the repository`);
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
  const out = py.runPython(`
import io
from server.rules import scenario
buf = io.StringIO()
rc = scenario.main(["/scenarios"], out=buf)
(rc, buf.getvalue())
`).toJs();
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
