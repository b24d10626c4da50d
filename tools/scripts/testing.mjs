// `npm test`'s steps, run quietly: each step's output is kept and shown only when that step fails, every vitest
// project prints one line (its counts and time), and the last line is the plain total `N passed, M failed, K skipped`.
// Tests run as one vitest process per project, started here (never through Nx, so never replayed from its cache);
// the type check (one tsc program) and the cached Nx targets (build, package checks, type budget) run beside them.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { stripVTControlCharacters } from "node:util";

const plain = (text) => (process.stdout.isTTY ? text : stripVTControlCharacters(text));
const seconds = (ms) => `${Math.round(ms / 1000)} s`;

/** Runs a command with its output captured; resolves with the exit code and the output (never rejects). */
function capture(cmd, args, { cwd, env }) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(cmd, args, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    const chunks = [];
    child.stdout.on("data", (chunk) => chunks.push(chunk));
    child.stderr.on("data", (chunk) => chunks.push(chunk));
    const done = (code, error) =>
      resolve({
        code,
        output: plain(Buffer.concat(chunks).toString()) + (error ? `\n${error.message}` : ""),
        ms: Date.now() - started,
      });
    child.on("error", (error) => done(1, error));
    child.on("close", (code, signal) => done(code ?? (signal ? 128 : 1)));
  });
}

/** The folders with a vitest config: every project whose tests `npm test` runs. */
function testProjects(root) {
  const projects = [];
  for (const group of ["packages", "apps", "tools"]) {
    const dir = path.join(root, group);
    if (!fs.existsSync(dir)) continue;
    for (const name of fs.readdirSync(dir).sort()) {
      const folder = path.join(dir, name);
      if (!fs.existsSync(path.join(folder, "vitest.config.ts"))) continue;
      const manifest = JSON.parse(fs.readFileSync(path.join(folder, "package.json"), "utf8"));
      projects.push({ name: manifest.name, folder, id: `${group}/${name}`, config: undefined, report: "vitest.json" });
      // A second run of the package's tests (`vitest.<part>.config.ts`, its own report) goes in its own lane.
      for (const file of fs.readdirSync(folder).sort()) {
        const part = /^vitest\.(\w+)\.config\.ts$/.exec(file)?.[1];
        if (part === undefined) continue;
        projects.push({
          name: `${manifest.name} (${part})`,
          folder,
          id: `${group}/${name}:${part}`,
          config: file,
          report: `vitest-${part}.json`,
        });
      }
    }
  }
  return projects;
}

/**
 * Last run's durations, so the longest projects start first (the run ends sooner on 2 cores). A fresh clone has
 * none yet: it starts from `test-times.json` beside this script (durations measured on a 2-core machine).
 */
function timings(root) {
  const file = path.join(root, "node_modules/.cache/graph-test-times.json");
  const read = (from) => {
    try {
      return JSON.parse(fs.readFileSync(from, "utf8"));
    } catch {
      return {};
    }
  };
  const known = { ...read(path.join(root, "tools/scripts/test-times.json")), ...read(file) };
  return {
    of: (id) => known[id] ?? 60_000,
    save: (measured) => {
      fs.mkdirSync(path.dirname(file), { recursive: true });
      fs.writeFileSync(file, JSON.stringify({ ...known, ...measured }));
    },
  };
}

/** Counts from a project's vitest JSON report, or undefined when there is none from this run. */
function counts(project, startedAt) {
  const report = path.join(project.folder, "reports", project.report);
  if (!fs.existsSync(report) || fs.statSync(report).mtimeMs < startedAt) return undefined;
  const json = JSON.parse(fs.readFileSync(report, "utf8"));
  return {
    passed: json.numPassedTests ?? 0,
    failed: (json.numFailedTests ?? 0) + (json.success === false && !json.numFailedTests ? 1 : 0),
    skipped: (json.numPendingTests ?? 0) + (json.numTodoTests ?? 0),
  };
}

async function runTests(root, env, say) {
  const projects = testProjects(root);
  const times = timings(root);
  const queue = [...projects].sort((a, b) => times.of(b.id) - times.of(a.id));
  const width = Math.max(...projects.map((p) => p.name.length));
  const total = { passed: 0, failed: 0, skipped: 0 };
  const measured = {};
  const vitest = path.join(root, "node_modules/vitest/vitest.mjs");
  // Three vitest processes at once (what Nx ran before); each has its own worker pool.
  const lanes = Math.max(1, Number(process.env.GRAPH_TEST_CONCURRENCY ?? 3));
  const lane = async () => {
    for (let project = queue.shift(); project !== undefined; project = queue.shift()) {
      const startedAt = Date.now();
      fs.rmSync(path.join(project.folder, "reports", project.report), { force: true });
      const args = project.config === undefined ? [] : ["--config", project.config];
      const result = await capture(process.execPath, [vitest, "run", ...args], { cwd: project.folder, env });
      const got = counts(project, startedAt);
      measured[project.id] = result.ms;
      const c = got ?? { passed: 0, failed: 1, skipped: 0 };
      if (got !== undefined && result.code !== 0 && c.failed === 0) c.failed = 1; // e.g. a failing globalSetup
      total.passed += c.passed;
      total.failed += c.failed;
      total.skipped += c.skipped;
      const line =
        `${c.failed > 0 ? "✗" : "✓"} ${project.name.padEnd(width)}  ${c.passed} passed, ${c.failed} failed` +
        `${c.skipped > 0 ? `, ${c.skipped} skipped` : ""}  (${seconds(result.ms)})` +
        (got === undefined ? "  no test report: the run crashed before reporting (counted as 1 failure)" : "");
      if (c.failed > 0) process.stdout.write(`\n── ${project.id}: vitest output ──\n${result.output}\n`);
      say(line);
    }
  };
  await Promise.all(Array.from({ length: Math.min(lanes, projects.length) }, lane));
  times.save(measured);
  return total;
}

/** `nx run-many`'s output for the tasks it reports as failed (the whole output if it names none). */
function failedTaskOutput(output) {
  const failed = [...output.matchAll(/^\s*-\s+(\S+:\S+)\s*$/gm)].map((m) => m[1]);
  if (failed.length === 0) return output;
  const blocks = output.split(/^(?=> nx run )/m);
  const shown = blocks.filter((block) => failed.some((task) => block.startsWith(`> nx run ${task}`)));
  return `${shown.join("\n")}\nfailed tasks: ${failed.join(", ")}\n`;
}

/**
 * Every step of `npm test`, each run even when an earlier one failed. Returns the exit code. Prints one line per
 * step and per test project, full output only for what failed, and last the plain total line.
 */
export async function testAll({ root, env, bin }) {
  const startedAt = Date.now();
  const say = (line) => process.stdout.write(`${line}\n`);
  // Children write to pipes: no colours unless this process itself writes to a terminal.
  const childEnv = { ...env, ...(process.stdout.isTTY ? { FORCE_COLOR: "1" } : { NO_COLOR: "1", FORCE_COLOR: "0" }) };
  const failedSteps = [];
  const step = async (name, cmd, args, show = (output) => output) => {
    const result = await capture(cmd, args, { cwd: root, env: childEnv });
    if (result.code !== 0) {
      failedSteps.push(name);
      process.stdout.write(`\n── ${name}: output ──\n${show(result.output)}\n`);
    }
    say(`${result.code === 0 ? "✓" : "✗"} ${name}  (${seconds(result.ms)})`);
    return result.code === 0;
  };

  await step("format and lint (biome ci)", bin("biome"), ["ci", "--colors=off", "."]);
  await step("unused files, exports and dependencies (knip)", bin("knip"), ["--no-progress"]);
  // The packages' dist is what the tarball checks pack: built first (cached by Nx, keyed on the sources).
  const nx = ["run-many", "--outputStyle=static", "--nxBail=false"];
  const cores = `--parallel=${Math.max(1, os.cpus().length)}`;
  const built = await step("build (nx, cached)", bin("nx"), [...nx, cores, "-t", "build"], failedTaskOutput);
  // The remaining Nx targets and the tests at the same time: tests spend much of their time waiting (servers,
  // child processes, timers), which the type checks fill.
  // The type check is one tsc program over every project (tsconfig.check.json): each project's own `typecheck`
  // target would check the workspace sources it imports again (they resolve through the `@graph/source`
  // condition), some fifteen times over.
  const [, tests] = await Promise.all([
    (async () => {
      await step("typecheck (tsc, every project at once)", bin("tsc"), ["-p", "tsconfig.check.json"]);
      await step(
        "package checks, type budget (nx, cached)",
        bin("nx"),
        [...nx, "--parallel=1", "-t", "check-package", "typebudget"],
        failedTaskOutput,
      );
    })(),
    runTests(root, childEnv, say),
  ]);
  if (!built) say("(the tarball checks of tools/smoke ran on a failed build)");
  // A failed step other than the tests counts as one failure in the total, so the last line never reads clean then.
  const failed = tests.failed + failedSteps.length;
  if (tests.failed > 0) failedSteps.push("tests");
  say(`${failedSteps.length > 0 ? `failed: ${failedSteps.join("; ")}; ` : ""}total ${seconds(Date.now() - startedAt)}`);
  say(`${tests.passed} passed, ${failed} failed, ${tests.skipped} skipped`);
  return failedSteps.length > 0 ? 1 : 0;
}
