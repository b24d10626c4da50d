// Project lint, run per package: rules tsc cannot check.
// - no deep imports of another package's internals (`@graph/x/internal/...` or `../../x/src/...`)
// - every `export` in a public module (src/*.ts, not src/internal) carries a TSDoc comment
// - no stray `console.log` / `debugger` in library code (apps and tools may log)
import fs from "node:fs";
import path from "node:path";

const cwd = process.cwd();
const isLibrary = cwd.includes(`${path.sep}packages${path.sep}`);
const problems = [];

function walk(dir) {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? walk(path.join(dir, e.name)) : e.name.endsWith(".ts") ? [path.join(dir, e.name)] : [],
    );
}

for (const file of walk(path.join(cwd, "src"))) {
  const rel = path.relative(cwd, file);
  const text = fs.readFileSync(file, "utf8");
  const lines = text.split("\n");
  lines.forEach((line, i) => {
    if (/from\s+["']@graph\/[^"']+\/internal\//.test(line) || /from\s+["']\.\.\/\.\.\/[^"']+\/src\//.test(line)) {
      problems.push(`${rel}:${i + 1} imports another package's internals; import its public entry instead`);
    }
    if (isLibrary && /^\s*(console\.log|debugger)\b/.test(line)) {
      problems.push(`${rel}:${i + 1} console.log/debugger in library code; emit an event or remove it`);
    }
  });
  const isPublic = isLibrary && !rel.split(path.sep).includes("internal");
  if (!isPublic) continue;
  lines.forEach((line, i) => {
    if (
      !/^export\s+(declare\s+)?(async\s+)?(function|class|const|interface|type|abstract class)\s/.test(line) ||
      /^export\s+type\s*\{/.test(line)
    )
      return;
    let j = i - 1;
    while (j >= 0 && lines[j].trim() === "") j--;
    if (j < 0 || !lines[j].trim().endsWith("*/")) {
      problems.push(`${rel}:${i + 1} public export without a TSDoc comment: ${line.trim().slice(0, 80)}`);
    }
  });
}

if (problems.length > 0) {
  console.error(problems.join("\n"));
  console.error(`\n${problems.length} lint problem(s) in ${path.basename(cwd)}`);
  process.exit(1);
}
console.log(`lint: ${path.basename(cwd)} ok`);
