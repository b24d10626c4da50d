import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

// The Promise API's public declarations must not pull Effect, fast-check (through Effect) or kysely into a
// consumer's type-check: emit the declarations of this package and the ones it depends on, then follow every import
// from `index.d.ts` the way a consumer's tsc would.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
// Inside the workspace so the generated tsconfig finds `@types/node` like the packages' own configs do.
const work = fs.mkdtempSync(path.join(root, "packages/runtime/.tmp-dts-"));
const out = path.join(work, "dts");
afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

/** Each package's public entry is a root file, so its declarations are emitted too (not read as a library). */
const entries = ["runtime", "core", "select", "checkpoint", "errors"].map((p) =>
  path.join(root, "packages", p, "src/index.ts"),
);

/** Workspace packages (and subpaths) as emitted declaration files. */
const workspace: Record<string, string> = {
  "@graph/errors": "packages/errors/src/index.d.ts",
  "@graph/core": "packages/core/src/index.d.ts",
  "@graph/select": "packages/select/src/index.d.ts",
  "@graph/checkpoint": "packages/checkpoint/src/index.d.ts",
  "@graph/checkpoint/effect": "packages/checkpoint/src/effect.d.ts",
  "@graph/checkpoint/kysely": "packages/checkpoint/src/kysely.d.ts",
};
const forbidden = /^(effect|kysely|fast-check)(\/|$)|^@graph\/checkpoint\/(effect|kysely)$/;

function reachable(entry: string): Map<string, string[]> {
  const seen = new Map<string, string[]>();
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (seen.has(file)) continue;
    const source = fs.readFileSync(file, "utf8");
    const specifiers = [...source.matchAll(/(?:from|import)\s*\(?\s*"([^"]+)"/g)].map((m) => m[1]!);
    seen.set(file, specifiers);
    for (const s of specifiers) {
      if (s.startsWith(".")) queue.push(path.resolve(path.dirname(file), s.replace(/\.js$/, ".d.ts")));
      else if (workspace[s] !== undefined && !forbidden.test(s)) queue.push(path.join(out, workspace[s]));
    }
  }
  return seen;
}

describe("public declarations", () => {
  it("@graph/runtime's Promise API loads no Effect, fast-check or kysely types", () => {
    const config = path.join(work, "tsconfig.json");
    fs.writeFileSync(
      config,
      JSON.stringify({
        extends: path.join(root, "tsconfig.base.json"),
        compilerOptions: {
          rootDir: root,
          outDir: out,
          noEmit: false,
          emitDeclarationOnly: true,
          declarationMap: false,
        },
        files: entries,
      }),
    );
    const result = spawnSync(process.execPath, [path.join(root, "node_modules/typescript/bin/tsc"), "-p", config], {
      encoding: "utf8",
    });
    expect(result.error).toBeUndefined();
    const entry = path.join(out, "packages/runtime/src/index.d.ts");
    expect(fs.existsSync(entry), `${result.stdout}${result.stderr}`).toBe(true);
    const files = reachable(entry);
    const offenders = [...files].flatMap(([file, specifiers]) =>
      specifiers.filter((s) => forbidden.test(s)).map((s) => `${path.relative(out, file)} imports ${s}`),
    );
    expect(offenders).toEqual([]);
    // The walk really followed the API across packages.
    expect([...files.keys()].some((f) => f.endsWith(path.join("packages/core/src/index.d.ts")))).toBe(true);
    expect([...files.keys()].some((f) => f.endsWith(path.join("packages/runtime/src/Runner.d.ts")))).toBe(true);
  }, 120_000);
});
