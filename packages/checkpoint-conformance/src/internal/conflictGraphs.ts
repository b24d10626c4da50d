/**
 * The workflows of the conflict matrix (`conflictMatrix.ts`), and how to put one into each state a losing caller
 * can meet: held by a live run, completed, failed, or paused. Exported through `src/conflicts.ts` so packages that
 * start runs some other way (a queue's `RemoteRunner`) check their own entry against the same states.
 */
import type { Checkpointer } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import { Graph as GraphClass, interrupt, node } from "@graph/core";
import { Runner } from "@graph/runtime";
import { ANSWER, asyncTrampoline, trampoline } from "./engineGraph.js";
import { borrowed } from "./handles.js";
import { settledTree } from "./tree.js";

/** The states of a workflow a losing caller meets. */
export type ConflictState = "live holder" | "completed" | "failed" | "paused";

/** Every {@link ConflictState}, in the order the matrix runs them. */
export const CONFLICT_STATES: readonly ConflictState[] = ["live holder", "completed", "failed", "paused"];

/** The values of a run from the start to the end (the interrupt's answer given up front). */
export const CONFLICT_VALUES: Readonly<Record<string, unknown>> = { topic: "conflicts", decision: ANSWER };

/**
 * The conflict workflow: `draft` → `approval` (interrupt) → `finalize`, whose function awaits `hold()` first (a
 * live holder waits there; a rejecting `hold` makes the run fail). `variant` builds the same workflow with another
 * `definitionHash` (and a name of its own): `"other-version"` adds a node, `"needs-input"` adds a node reading an
 * input nobody stored (run it with `force: true` to get past the version check to the missing input).
 */
export function conflictGraph(
  hold: () => Promise<void> = async () => undefined,
  variant: "base" | "other-version" | "needs-input" = "base",
): Graph {
  const draft = node(
    { name: "draft", inputs: ["topic"], output: "draft" },
    trampoline(({ topic }: { topic: string }) => `about ${topic}`),
  );
  const approval = interrupt({ name: "approval", input: "draft", response: "decision" });
  const finalize = node(
    { name: "finalize", inputs: ["draft", "decision"], output: "final" },
    asyncTrampoline(async ({ draft, decision }: { draft: string; decision: string }) => {
      await hold();
      return `${draft}: ${decision}`;
    }),
  );
  const extra =
    variant === "other-version"
      ? [
          node(
            { name: "note", inputs: ["final"], output: "note" },
            trampoline(({ final }: { final: string }) => final),
          ),
        ]
      : variant === "needs-input"
        ? [
            node(
              { name: "stamp", inputs: ["final", "stampedBy"], output: "stamp" },
              trampoline(({ final, stampedBy }: { final: string; stampedBy: string }) => `${final} (${stampedBy})`),
            ),
          ]
        : [];
  // Another version is another graph of the queue's registry too (a worker knows graphs by name).
  const name = variant === "base" ? "conformance-conflict" : `conformance-conflict-${variant}`;
  return new GraphClass([draft, approval, finalize, ...extra], { name });
}

/** A workflow put into a {@link ConflictState}; `finish()` lets a live holder complete (no-op otherwise). */
export interface ConflictWorkflow {
  readonly workflowId: string;
  readonly state: ConflictState;
  /** Ends the live holder's run (it must complete) and closes its runner. */
  finish(): Promise<void>;
}

/** A lease the holder keeps without renewing during the test (a renewal would change the stored record). */
const HOLDER_TIMING = { leaseTtlMs: 120_000, leaseRenewIntervalMs: 60_000 } as const;

/**
 * Runs {@link conflictGraph} on `checkpointer` (a Runner of its own; the checkpointer stays open) until the
 * workflow is in `state`. A live holder waits inside `finalize` until `finish()`, and is returned once what it
 * stored before that has stopped changing.
 */
export async function prepareConflictWorkflow(
  checkpointer: Checkpointer,
  state: ConflictState,
  workflowId: string,
): Promise<ConflictWorkflow> {
  const runner = new Runner({ checkpointer: borrowed(checkpointer), owner: `holder-${workflowId}`, ...HOLDER_TIMING });
  const done = { workflowId, state, finish: async () => undefined };
  if (state === "live holder") {
    let holding!: () => void;
    const held = new Promise<void>((resolve) => (holding = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const graph = conflictGraph(() => {
      holding();
      return released;
    });
    const running = runner.run(graph, { workflowId, values: CONFLICT_VALUES });
    running.catch(() => undefined);
    await Promise.race([held, running]);
    // Under `async` durability the steps before the hold may still be on their way: a test comparing the stored
    // workflow before and after a losing call must start from what the holder has finished writing.
    await settledTree(checkpointer, workflowId);
    return {
      workflowId,
      state,
      finish: async () => {
        release();
        try {
          const result = await running;
          if (result.status !== "completed")
            throw new Error(`the live holder of '${workflowId}' ended ${result.status}, not completed`);
        } finally {
          await runner.close();
        }
      },
    };
  }
  try {
    if (state === "paused") {
      const result = await runner.run(conflictGraph(), { workflowId, values: { topic: CONFLICT_VALUES["topic"] } });
      if (result.status !== "paused") throw new Error(`'${workflowId}' was to pause, it ended ${result.status}`);
    } else if (state === "completed") {
      const result = await runner.run(conflictGraph(), { workflowId, values: CONFLICT_VALUES });
      if (result.status !== "completed") throw new Error(`'${workflowId}' was to complete, it ended ${result.status}`);
    } else {
      const failing = conflictGraph(() => Promise.reject(new Error("finalize fails on purpose")));
      const result = await runner.run(failing, { workflowId, values: CONFLICT_VALUES, errorHandling: "continue" });
      if (result.status !== "failed") throw new Error(`'${workflowId}' was to fail, it ended ${result.status}`);
    }
  } finally {
    await runner.close();
  }
  return done;
}
