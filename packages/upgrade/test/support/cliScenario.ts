import type { Checkpointer } from "@graph/checkpoint";
import { expect } from "vitest";
import { createV1Workflows, runCli } from "./cli.js";

/**
 * The CLI against one store: v1 workflows made by another process, then `upgrade-check` with a v2 that migrates
 * (exit 0, a verdict per unfinished workflow) and a v2 that strands the paused ones (exit 1, `--json`).
 */
export async function cliScenario(
  store: string,
  storeLabel: RegExp,
  open: () => Checkpointer,
  prefix?: string,
): Promise<void> {
  const extra = prefix === undefined ? [] : ["--prefix", prefix];
  await createV1Workflows(store, prefix === undefined ? [] : [prefix]);
  // The hashes the other process stored (a graph's hash includes its functions' source as that process loaded it).
  const hashes = async () => {
    const cp = open();
    try {
      return await Promise.all(["a", "c", "s", "e"].map(async (id) => (await cp.getWorkflow(id))?.graphHash));
    } finally {
      await cp.close();
    }
  };
  const before = await hashes();
  expect(new Set(before).size).toBe(1);
  expect(before[0]).toMatch(/^[0-9a-f]{64}$/);

  const ok = await runCli(["upgrade-check", "--graph", "test/fixtures/v2-renamed.ts", "--store", store, ...extra]);
  expect(ok.stderr).toBe("");
  expect(ok.code).toBe(0);
  const lines = ok.stdout.split("\n");
  expect(lines[0]).toMatch(/^upgrade-check: graph 'post' v2 \([0-9a-f]{12}\) against /);
  expect(lines[0]).toMatch(storeLabel);
  expect(lines.filter((l) => /^ {2}\S/.test(l))).toEqual([
    "  a  paused   resumable-with-migration  (from v1)",
    "  c  paused   resumable-with-migration  (from v1)",
    "  s  stopped  resumable  (from v1)",
  ]);
  expect(ok.stdout).toContain("      → migration: rename 'draft' → 'body'");
  expect(ok.stdout).toContain(
    "      - rename 'draft' → 'body': nothing is stored under 'draft' yet, so there is nothing to move.",
  );
  expect(lines.at(-2)).toBe("3 unfinished: 1 resumable, 2 resumable with migration, 0 blocked");

  const blocked = await runCli([
    "upgrade-check",
    "--graph",
    "test/fixtures/v2-no-approval.ts",
    "--store",
    store,
    ...extra,
    "--json",
  ]);
  expect(blocked.code).toBe(1);
  const report = JSON.parse(blocked.stdout) as {
    summary: unknown;
    workflows: Array<{ workflowId: string; verdict: string; blockers: string[] }>;
  };
  expect(report.summary).toEqual({ resumable: 1, "resumable-with-migration": 0, blocked: 2 });
  expect(report.workflows.map((w) => [w.workflowId, w.verdict])).toEqual([
    ["a", "blocked"],
    ["c", "blocked"],
    ["s", "resumable"],
  ]);
  expect(report.workflows[0]?.blockers).toEqual([
    `the workflow is paused at 'approve', which the new version removed. Add a migration { from: "v1", pause: { "approve": "<new interrupt>" } } or { pause: { "approve": drop } } (continue without the answer).`,
  ]);

  // The check only reads: every workflow still belongs to v1.
  expect(await hashes()).toEqual(before);
}
