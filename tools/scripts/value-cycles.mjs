#!/usr/bin/env node
// Finds import cycles between the TypeScript modules of one or more source folders that exist at run time: an import
// that survives compilation (`verbatimModuleSyntax`) is an edge; `import type` and `export type … from` are erased and
// are not. `import { type A } from "./a.js"` stays as `import {} from "./a.js"` — it still loads the module — so it
// counts. Only relative imports between the scanned files are followed.
//
// Usage: node tools/scripts/value-cycles.mjs <dir>...   (exit 1 and one line per cycle when there is one)
import fs from "node:fs";
import path from "node:path";
import ts from "typescript";

/** Every `.ts` source file under `dir` (declarations excluded). */
function sources(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return sources(file);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [file] : [];
  });
}

/** The relative module specifiers `file` loads at run time. */
function valueImports(file) {
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, false);
  const found = [];
  for (const statement of source.statements) {
    let specifier;
    if (ts.isImportDeclaration(statement)) {
      if (statement.importClause?.isTypeOnly === true) continue;
      specifier = statement.moduleSpecifier;
    } else if (ts.isExportDeclaration(statement)) {
      if (statement.isTypeOnly || statement.moduleSpecifier === undefined) continue;
      specifier = statement.moduleSpecifier;
    } else continue;
    if (ts.isStringLiteral(specifier) && specifier.text.startsWith(".")) found.push(specifier.text);
  }
  return found;
}

/** `./x.js` imported from `from` → the `.ts` file it compiles from, when it is one of `files`. */
function resolve(from, specifier, files) {
  const target = path.resolve(path.dirname(from), specifier);
  for (const candidate of [target.replace(/\.js$/, ".ts"), target, `${target}.ts`, path.join(target, "index.ts")])
    if (files.has(candidate)) return candidate;
  return undefined;
}

/** The cycles of the graph: its strongly connected components with more than one module, or a module importing itself. */
export function valueCycles(dirs) {
  const files = new Set(dirs.flatMap((d) => sources(path.resolve(d))));
  const edges = new Map();
  for (const file of files)
    edges.set(file, [...new Set(valueImports(file).flatMap((s) => resolve(file, s, files) ?? []))]);
  // Tarjan's algorithm, iterative (deep import chains must not overflow the stack).
  let counter = 0;
  const index = new Map();
  const low = new Map();
  const onStack = new Set();
  const stack = [];
  const components = [];
  for (const start of files) {
    if (index.has(start)) continue;
    const work = [[start, 0]];
    index.set(start, counter);
    low.set(start, counter++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1];
      const [node, i] = frame;
      const next = edges.get(node)[i];
      if (next !== undefined) {
        frame[1]++;
        if (!index.has(next)) {
          index.set(next, counter);
          low.set(next, counter++);
          stack.push(next);
          onStack.add(next);
          work.push([next, 0]);
        } else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)));
        continue;
      }
      work.pop();
      if (work.length > 0) {
        const parent = work[work.length - 1][0];
        low.set(parent, Math.min(low.get(parent), low.get(node)));
      }
      if (low.get(node) === index.get(node)) {
        const component = [];
        let member;
        do {
          member = stack.pop();
          onStack.delete(member);
          component.push(member);
        } while (member !== node);
        if (component.length > 1 || edges.get(node).includes(node)) components.push(component.sort());
      }
    }
  }
  return components.map((component) => cyclePath(component, edges));
}

/** One closed path through a component (`a → b → … → a`), to show a reader where to cut. */
function cyclePath(component, edges) {
  const members = new Set(component);
  const start = component[0];
  const seen = new Map([[start, undefined]]);
  const queue = [start];
  while (queue.length > 0) {
    const node = queue.shift();
    for (const next of edges.get(node)) {
      if (next === start) {
        const path = [start];
        for (let at = node; at !== undefined && at !== start; at = seen.get(at)) path.splice(1, 0, at);
        return [...path, start];
      }
      if (members.has(next) && !seen.has(next)) {
        seen.set(next, node);
        queue.push(next);
      }
    }
  }
  return [start, start];
}

if (
  process.argv[1] !== undefined &&
  path.resolve(process.argv[1]) === path.resolve(new URL(import.meta.url).pathname)
) {
  const dirs = process.argv.slice(2);
  if (dirs.length === 0) {
    console.error("usage: node tools/scripts/value-cycles.mjs <dir>...");
    process.exit(2);
  }
  const cycles = valueCycles(dirs);
  const cwd = process.cwd();
  for (const cycle of cycles) console.log(`value import cycle: ${cycle.map((f) => path.relative(cwd, f)).join(" → ")}`);
  if (cycles.length > 0) process.exit(1);
  console.log(`no value import cycle in ${dirs.join(", ")}`);
}
