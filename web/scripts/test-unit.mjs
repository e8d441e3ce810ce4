// `npm run test:unit`: the unit tests of web/test (the table's reducer and what it uses),
// compiled by the project's own tsc into a temporary directory as CommonJS, then run by
// node's built-in test runner, which also reports their coverage (of the compiled
// JavaScript the tests load, by file: lines, branches, functions). No browser and no
// other tool.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const WEB = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const out = mkdtempSync(join(tmpdir(), "remi-web-unit-"));
const run = (cmd, args) => spawnSync(cmd, args, { cwd: WEB, stdio: "inherit" }).status ?? 1;
let status;
try {
  status = run(process.execPath, [
    join(WEB, "node_modules", "typescript", "bin", "tsc"),
    "-p",
    "tsconfig.unit.json",
    "--outDir",
    out,
  ]);
  if (status === 0) {
    // web/package.json says "module"; the compiled files are CommonJS.
    writeFileSync(join(out, "package.json"), '{ "type": "commonjs" }\n');
    // The test files by name: node 20 takes a directory, node 22 only files or patterns.
    const tests = readdirSync(join(out, "test")).filter((name) => name.endsWith(".test.js"));
    // Node 22 leaves the test files themselves out of the coverage (node 20 cannot).
    const only =
      Number(process.versions.node.split(".")[0]) >= 22
        ? ["--test-coverage-exclude=**/test/**"]
        : [];
    status = run(process.execPath, [
      "--test",
      "--experimental-test-coverage",
      ...only,
      ...tests.map((name) => join(out, "test", name)),
    ]);
  }
} finally {
  rmSync(out, { recursive: true, force: true });
}
process.exit(status);
