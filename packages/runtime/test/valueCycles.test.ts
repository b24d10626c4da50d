// No import cycle between the runtime's modules at run time (type-only imports are erased and don't count): a cycle
// makes the load order decide which module sees the other half-initialised. The checker itself is checked on a
// fixture with a value cycle, a type-only one and an inline-`type` one (which still loads the module).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const here = path.dirname(fileURLToPath(import.meta.url));
const script = path.resolve(here, "../../../tools/scripts/value-cycles.mjs");

function check(dir: string): { status: number | null; lines: string[] } {
  const r = spawnSync(process.execPath, [script, dir], { cwd: dir, encoding: "utf8" });
  return { status: r.status, lines: `${r.stdout}${r.stderr}`.split("\n").filter((l) => l !== "") };
}

describe("value import cycles", () => {
  it("packages/runtime/src has none", () => {
    const src = path.resolve(here, "../src");
    expect(check(src)).toEqual({ status: 0, lines: [`no value import cycle in ${src}`] });
  });

  it("the check reports value cycles (an inline `type` import included) and ignores type-only ones", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "value-cycles-"));
    try {
      const files: Record<string, string> = {
        "a.ts": 'import { b } from "./b.js";\nexport const a = () => b;\n',
        "b.ts": 'import { a } from "./a.js";\nexport const b = () => a;\n',
        "c.ts": 'import type { D } from "./d.js";\nexport type C = D | 1;\n',
        "d.ts": 'export type { C } from "./c.js";\nimport type { C } from "./c.js";\nexport type D = C | 2;\n',
        "e.ts": 'import { type F } from "./sub/f.js";\nexport const e = (f: F) => f;\n',
        "sub/f.ts": 'import { e } from "../e.js";\nexport type F = typeof e;\nexport const f = e;\n',
      };
      for (const [name, text] of Object.entries(files)) {
        fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
        fs.writeFileSync(path.join(dir, name), text);
      }
      const result = check(dir);
      expect(result.status).toBe(1);
      expect(result.lines.sort()).toEqual([
        "value import cycle: a.ts → b.ts → a.ts",
        "value import cycle: e.ts → sub/f.ts → e.ts",
      ]);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
