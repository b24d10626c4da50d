import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import type { Checkpointer } from "@graph/checkpoint";
import { Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { isUpgradeBlockedError, upgrades } from "../../src/index.js";
import { v1, v2Changed, v2Renamed } from "./post.js";
import { pausedOnV1, resume } from "./scenarios.js";

/** A backend for these tests: how a child process opens the same store, and its raw stored bytes. */
export interface LeaseBackend {
  readonly open: () => Checkpointer;
  /** The store URL (and Redis prefix) a child process opens; undefined for memory (the holder is in-process). */
  readonly location?: (checkpointer: Checkpointer) => { readonly store: string; readonly prefix?: string };
  /** Everything the store holds, as raw rows / bytes (undefined: compared through the API only). */
  readonly raw?: (checkpointer: Checkpointer) => Promise<unknown>;
}

const holderScript = fileURLToPath(new URL("../fixtures/holdLease.ts", import.meta.url));
const packageDir = fileURLToPath(new URL("../..", import.meta.url));
const HOLD_MS = 3_000;

/** Takes the workflow's lease in another process (SIGKILLed once it holds it); in memory, another owner here. */
async function deadHolder(backend: LeaseBackend, cp: Checkpointer, workflowId: string) {
  if (backend.location === undefined) {
    const lease = await cp.claimWorkflow(workflowId, { owner: "holder-in-memory", ttlMs: HOLD_MS });
    return { expiresAt: lease.expiresAt.getTime(), owner: lease.owner };
  }
  const { store, prefix } = backend.location(cp);
  const child = spawn(
    process.execPath,
    ["--conditions=@graph/source", "--import", "tsx", holderScript, store, prefix ?? "", workflowId, String(HOLD_MS)],
    { cwd: packageDir, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stderr?.on("data", (chunk: Buffer) => void (err += chunk.toString()));
  const said = await new Promise<{ expiresAt: number; owner: string }>((resolve, reject) => {
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString();
      if (out.includes("\n")) resolve(JSON.parse(out.split("\n")[0]!) as { expiresAt: number; owner: string });
    });
    child.once("exit", (code) => reject(new Error(`the holder exited (${code}) before holding: ${err}`)));
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGKILL");
  await exited;
  return said;
}

/**
 * An upgrade and the workflow's lease: a refused upgrade writes nothing (raw stored bytes identical: no claim, no
 * structure record), and `waitForLease` waits out a dead holder's lease before an upgrade as before a plain resume.
 */
export function describeUpgradeUnderLease(name: string, backend: LeaseBackend): void {
  describe(`upgrades and the workflow's lease (${name})`, () => {
    it("a refused upgrade (UpgradeBlockedError) writes nothing: the stored workflow, its lease epoch and the structure records are as before", async () => {
      const cp = backend.open();
      try {
        await pausedOnV1(cp, "refused");
        const before = await cp.getWorkflow("refused");
        const rawBefore = await backend.raw?.(cp);
        const bare = v2Renamed(false);
        const refused = await resume(cp, bare, "refused", { decision: "ok" }).catch((e: unknown) => e);
        expect(isUpgradeBlockedError(refused)).toBe(true);
        expect((refused as Error).message).toContain("Nothing was written");
        expect(await cp.getWorkflow("refused")).toEqual(before);
        expect(await cp.getGraphStructure?.(bare.definitionHash)).toBeUndefined();
        if (backend.raw !== undefined) expect(await backend.raw(cp)).toEqual(rawBefore);
        // The lease epoch did not move: the next claim is the one after the pause's run.
        const lease = await cp.claimWorkflow("refused", { owner: "probe", ttlMs: 1_000 });
        expect(lease.epoch).toBe(2);
      } finally {
        await cp.close();
      }
    });

    it("waitForLease: true waits out a dead holder's lease for an upgrade, then upgrades and resumes (a plain resume waits the same)", {
      timeout: 60_000,
    }, async () => {
      const cp = backend.open();
      const runner = new Runner({ checkpointer: cp, upgrade: upgrades(), closeCheckpointer: false });
      try {
        for (const [id, graph] of [
          ["held-same", v1()],
          ["held-upgrade", v2Changed()],
        ] as const) {
          await pausedOnV1(cp, id);
          const held = await deadHolder(backend, cp, id);
          await expect(runner.run(graph, { workflowId: id, values: { decision: "ok" } })).rejects.toMatchObject({
            _tag: "WorkflowConflictError",
            reason: "lease-held",
            heldBy: held.owner,
          });
          const done = await runner.run(graph, { workflowId: id, values: { decision: "ok" }, waitForLease: true });
          expect(Date.now()).toBeGreaterThanOrEqual(held.expiresAt);
          expect(done.status).toBe("completed");
          expect(done.values["decision"]).toBe("ok");
          expect((await cp.getWorkflow(id))?.graphHash).toBe(graph.definitionHash);
        }
      } finally {
        await runner.close();
        await cp.close();
      }
    });
  });
}
