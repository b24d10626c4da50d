// Sums vitest's JSON reports over every package and prints one line: `N passed, M failed`.
// With a start time (ms since epoch) as argument, a report written before it (left by an earlier run, or restored
// from a cache) does not count: that package counts as one failure instead.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../..");
const startedAt = Number(process.argv[2] ?? 0);
let passed = 0,
  failed = 0;
const missing = [];
for (const group of ["packages", "apps", "tools"]) {
  const dir = path.join(root, group);
  if (!fs.existsSync(dir)) continue;
  for (const name of fs.readdirSync(dir).sort()) {
    const pkg = path.join(dir, name);
    const manifest = path.join(pkg, "package.json");
    if (!fs.existsSync(manifest) || !JSON.parse(fs.readFileSync(manifest, "utf8")).scripts?.test) continue;
    const report = path.join(pkg, "reports/vitest.json");
    if (!fs.existsSync(report) || fs.statSync(report).mtimeMs < startedAt) {
      missing.push(`${group}/${name}`);
      continue;
    }
    const json = JSON.parse(fs.readFileSync(report, "utf8"));
    passed += json.numPassedTests ?? 0;
    failed += (json.numFailedTests ?? 0) + (json.success === false && !json.numFailedTests ? 1 : 0);
  }
}
if (missing.length > 0) {
  console.log(
    `no test report from: ${missing.join(", ")} (their test run crashed before reporting, or the report is older than this run; counted as 1 failure each)`,
  );
  failed += missing.length;
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed > 0 ? 1 : 0);
