// The same workloads as Mastra workflows (@mastra/core `createWorkflow` / `createStep`, zod schemas, default
// options: each step's input is validated, as a Mastra user gets it). Loaded with a dynamic import by the workloads
// that use it: importing @mastra/core takes seconds, which no other workload should pay.
import { AGENT_ITERATIONS } from "./graphs.js";

/** What the bench calls on a committed Mastra workflow. */
export interface MastraWorkflow {
  createRun(): Promise<{ start(args: { inputData: unknown }): Promise<{ status: string; result?: unknown }> }>;
}

// Mastra's builder types track every step added; workflows built in a loop need a looser view.
interface LooseWorkflow extends MastraWorkflow {
  then(step: unknown): LooseWorkflow;
  dountil(step: unknown, condition: (params: { inputData: any }) => Promise<boolean>): LooseWorkflow;
  foreach(step: unknown): LooseWorkflow;
  commit(): LooseWorkflow;
}

export interface MastraKit {
  /** `length` steps `{ v } → { v: v + 1 }`. */
  chain(length: number, id?: string): MastraWorkflow;
  /** `increment({ count }) → { count: count + 1 }` in a `.dountil` loop until count reaches 20. */
  agentLoop(): MastraWorkflow;
  /** `.foreach(square)` over an array input, then a step that sums the array. */
  map(): MastraWorkflow;
  /** A Mastra instance over a LibSQL file holding `workflow` (its runs then persist snapshots there). */
  durable(file: string, workflow: MastraWorkflow): Promise<{ workflow: MastraWorkflow; close(): Promise<void> }>;
}

/** Runs a workflow to completion and returns its result; any other status is a failure. */
export async function runMastra(workflow: MastraWorkflow, inputData: unknown): Promise<unknown> {
  const result = await (await workflow.createRun()).start({ inputData });
  if (result.status !== "success") throw new Error(`Mastra workflow ended with status ${result.status}`);
  return result.result;
}

export async function loadMastra(): Promise<MastraKit> {
  const { createStep, createWorkflow } = await import("@mastra/core/workflows");
  const { z } = await import("zod");
  const loose = (workflow: unknown): LooseWorkflow => workflow as LooseWorkflow;
  const Value = z.object({ v: z.number() });
  const Count = z.object({ count: z.number() });

  const chain = (length: number, id = `chain${length}`): MastraWorkflow => {
    let workflow = loose(createWorkflow({ id, inputSchema: Value, outputSchema: Value }));
    for (let i = 0; i < length; i++)
      workflow = workflow.then(
        createStep({
          id: `n${i}`,
          inputSchema: Value,
          outputSchema: Value,
          execute: async ({ inputData }) => ({ v: inputData.v + 1 }),
        }),
      );
    return workflow.commit();
  };

  const agentLoop = (): MastraWorkflow => {
    const increment = createStep({
      id: "increment",
      inputSchema: Count,
      outputSchema: Count,
      execute: async ({ inputData }) => ({ count: inputData.count + 1 }),
    });
    return loose(createWorkflow({ id: "agent", inputSchema: Count, outputSchema: Count }))
      .dountil(increment, async ({ inputData }) => inputData.count >= AGENT_ITERATIONS)
      .commit();
  };

  const map = (): MastraWorkflow => {
    const square = createStep({
      id: "square",
      inputSchema: z.number(),
      outputSchema: z.number(),
      execute: async ({ inputData }) => inputData * inputData,
    });
    const total = createStep({
      id: "sum",
      inputSchema: z.array(z.number()),
      outputSchema: z.number(),
      execute: async ({ inputData }) => inputData.reduce((a, b) => a + b, 0),
    });
    return loose(createWorkflow({ id: "mapReduce", inputSchema: z.array(z.number()), outputSchema: z.number() }))
      .foreach(square)
      .then(total)
      .commit();
  };

  const durable = async (file: string, workflow: MastraWorkflow) => {
    const [{ Mastra }, { LibSQLStore }] = await Promise.all([import("@mastra/core"), import("@mastra/libsql")]);
    const storage = new LibSQLStore({ id: "bench", url: `file:${file}` });
    await storage.init();
    const mastra = new Mastra({ workflows: { durable: workflow as never }, storage, logger: false });
    return {
      workflow: mastra.getWorkflow("durable") as unknown as MastraWorkflow,
      close: () => storage.close(),
    };
  };

  return { chain, agentLoop, map, durable };
}
