/**
 * The conflict matrix (every adapter, in-process): each public entry of the runtime that can fail before it holds
 * the workflow — `run`, a resume (`run` with a workflow id), `start`, `fork` (`run` with a checkpoint), `stop` and
 * `runMapItem` — is called as a loser against a workflow in each state it can meet: held by a live run, completed,
 * failed, paused. A loser fails in one of these ways:
 *
 * - `conflict`: another run holds the lease (`WorkflowConflictError`) — live holder only;
 * - `other-version`: the graph's `definitionHash` differs from the stored one (`VersionMismatchError`);
 * - `missing-input`: `force: true` gets past the version check to an input nobody stored (`MissingInputError`);
 * - `unstorable` (`stop`): the stop's `info` cannot be stored (`CheckpointError`);
 * - `stale-fence` (`runMapItem`): the item carries a fence older than the root's lease.
 *
 * Whatever the way, the stored tree (the workflow record, its steps and inputs, and any child workflow record) must
 * be exactly what it was before the call, read after the loser's runner closed (so a late write is caught), and a
 * live holder must still complete afterwards.
 */
import type { Checkpoint, Checkpointer } from "@graph/checkpoint";
import { Graph, node } from "@graph/core";
import { Runner } from "@graph/runtime";
import { runMapItem } from "@graph/runtime/worker";
import { describe, expect, it } from "vitest";
import type { ConflictState } from "./conflictGraphs.js";
import { CONFLICT_STATES, CONFLICT_VALUES, conflictGraph, prepareConflictWorkflow } from "./conflictGraphs.js";
import { closeQuietly, SLOW, tagOf } from "./engineCommon.js";
import { ANSWER, trampoline } from "./engineGraph.js";
import { ids } from "./fixtures.js";
import { openStorage } from "./handles.js";
import type { DescribeCheckpointerOptions } from "./options.js";
import { storedTree, treeChanges } from "./tree.js";

type Kind = "conflict" | "other-version" | "missing-input" | "unstorable" | "stale-fence";

const EXPECTED_TAG: Readonly<Record<Kind, readonly string[]>> = {
  conflict: ["WorkflowConflictError"],
  "other-version": ["VersionMismatchError"],
  "missing-input": ["MissingInputError"],
  unstorable: ["CheckpointError"],
  "stale-fence": ["LeaseLostError", "WorkflowConflictError"],
};

interface Loser {
  readonly runner: Runner;
  readonly workflowId: string;
  readonly kind: Kind;
  /** A checkpoint of another, completed workflow (for `fork`). */
  readonly checkpoint: () => Promise<Checkpoint>;
}

/** The graph for each way of losing (the base graph for `conflict`). */
function graphOf(kind: Kind) {
  return conflictGraph(
    async () => undefined,
    kind === "other-version" ? "other-version" : kind === "missing-input" ? "needs-input" : "base",
  );
}

/** Options that get past the version check to the missing input. */
const forced = (kind: Kind) => (kind === "missing-input" ? { force: true } : {});

const itemGraph = new Graph(
  [
    node(
      { name: "work", inputs: ["x"], output: "y" },
      trampoline(({ x }: { x: number }) => x * 2),
    ),
  ],
  { name: "conformance-conflict-item" },
);

interface Entry {
  readonly name: string;
  readonly kinds: (state: ConflictState) => readonly Kind[];
  readonly call: (loser: Loser) => Promise<unknown>;
}

const runKinds = (state: ConflictState): readonly Kind[] =>
  state === "live holder" ? ["conflict", "other-version", "missing-input"] : ["other-version", "missing-input"];

const ENTRIES: readonly Entry[] = [
  {
    name: "run",
    kinds: runKinds,
    call: ({ runner, workflowId, kind }) =>
      runner.run(graphOf(kind), { workflowId, values: CONFLICT_VALUES, ...forced(kind) }),
  },
  {
    name: "resume",
    kinds: runKinds,
    call: ({ runner, workflowId, kind }) =>
      runner.run(graphOf(kind), {
        workflowId,
        ...(kind === "conflict" ? { values: { decision: ANSWER } } : {}),
        ...forced(kind),
      }),
  },
  {
    name: "start",
    kinds: runKinds,
    call: ({ runner, workflowId, kind }) =>
      runner.start(graphOf(kind), { workflowId, values: CONFLICT_VALUES, ...forced(kind) }).result,
  },
  {
    name: "fork",
    kinds: runKinds,
    call: async ({ runner, workflowId, kind, checkpoint }) =>
      runner.run(graphOf(kind), { workflowId, checkpoint: await checkpoint(), ...forced(kind) }),
  },
  {
    name: "stop",
    kinds: () => ["unstorable"],
    call: ({ runner, workflowId }) => runner.stop(workflowId, { reason: "unstorable", callback: () => "a function" }),
  },
  {
    name: "runMapItem",
    kinds: () => ["stale-fence"],
    call: ({ runner, workflowId }) =>
      runMapItem(runner, itemGraph, {
        workflowId: `${workflowId}/items/0`,
        parentWorkflowId: workflowId,
        values: { x: 21 },
        parentVersions: {},
        // Epochs start at 0 and every claim raises them: 0 is older than any lease the root ever had.
        fence: { epoch: 0, workflowId },
        completeOnStop: false,
        maxIterations: 10,
      }),
  },
];

/** Registers the conflict matrix: one test per entry and state (every way of losing inside it). */
export function describeConflictMatrix(options: DescribeCheckpointerOptions): void {
  let source: Promise<Checkpoint> | undefined;
  const checkpointOf = (checkpointer: Checkpointer) =>
    (source ??= (async () => {
      const id = ids("conflict-fork-source")();
      const prepared = await prepareConflictWorkflow(checkpointer, "completed", id);
      await prepared.finish();
      const checkpoint = await checkpointer.getCheckpoint(id);
      if (checkpoint === undefined) throw new Error(`no checkpoint of the completed workflow '${id}'`);
      return checkpoint;
    })());

  describe("conflict matrix: a caller that fails before holding the workflow writes nothing", () => {
    for (const entry of ENTRIES) {
      for (const state of CONFLICT_STATES) {
        it(`${entry.name} × ${state} (${entry.kinds(state).join(", ")}): the stored tree is unchanged`, {
          timeout: SLOW,
        }, async () => {
          const storage = await openStorage(options);
          // Every way of losing runs, and the test reports all that went wrong (not only the first).
          const problems: string[] = [];
          try {
            const probe = await storage.open("sync");
            for (const kind of entry.kinds(state)) {
              const where = `${entry.name} × ${state} × ${kind}`;
              const workflowId = ids(`conflict-${entry.name}-${state.replace(" ", "-")}-${kind}`)();
              const prepared = await prepareConflictWorkflow(await storage.open("sync"), state, workflowId);
              try {
                const before = await storedTree(probe, workflowId);
                const runner = new Runner({ checkpointer: await storage.open("sync"), owner: "loser" });
                const outcome = await entry
                  .call({ runner, workflowId, kind, checkpoint: () => checkpointOf(probe) })
                  .then(
                    (value) => ({ resolved: value }),
                    (error: unknown) => ({ error }),
                  );
                await closeQuietly(runner);
                if ("resolved" in outcome) {
                  // A stop of a finished workflow has nothing to do: it resolves false (and must write nothing).
                  const finished = kind === "unstorable" && (state === "completed" || state === "failed");
                  if (!finished || outcome.resolved !== false)
                    problems.push(
                      `${where}: the loser's call was to fail, it resolved with ${String(outcome.resolved)}`,
                    );
                } else {
                  const tag = tagOf(outcome.error) ?? String(outcome.error);
                  if (!EXPECTED_TAG[kind].includes(tag))
                    problems.push(
                      `${where}: expected ${EXPECTED_TAG[kind].join(" or ")}, got ${String(outcome.error)}`,
                    );
                }
                const after = await storedTree(probe, workflowId);
                const changes = treeChanges(before, after);
                problems.push(...changes.map((change) => `${where}: the loser changed ${change}`));
                if (changes.length === 0)
                  expect(after, `${where}: the stored tree after the loser's call`).toStrictEqual(before);
              } finally {
                await prepared.finish();
              }
              if (state === "live holder") {
                const finished = await probe.getWorkflow(workflowId);
                if (finished?.status !== "completed")
                  problems.push(`${where}: the live holder's workflow ended ${finished?.status}, not completed`);
                const finals = (await probe.getSteps(workflowId)).filter((s) => s.nodeName === "finalize");
                expect(
                  finals.map((s) => s.values),
                  `${where}: one finalize step`,
                ).toStrictEqual([{ final: "about conflicts: approved" }]);
              }
            }
          } finally {
            await storage.close();
          }
          expect(problems.join("\n"), "what went wrong").toBe("");
        });
      }
    }
  });
}
