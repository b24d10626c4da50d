import type { Checkpointer } from "@graph/checkpoint";
import { END, Graph, node, route } from "@graph/core";
import { expect } from "vitest";
import type { GraphEvent } from "../../src/index.js";
import { Runner } from "../../src/index.js";
import { storedBytes } from "./loserWritesNothing.js";

type Msg = { role: string; content: string; tool?: string };

/**
 * A tool-calling agent: the shape that used to run its tool and model again on every re-run of the finished workflow
 * (model calls 2 → 3 → 4, history + 2 messages per call). The entrypoint is named, though the loop would start at
 * `callModel` without it too (`messages` is an accumulator: docs/semantics.md, "Loops").
 */
function agent(entrypoint: boolean) {
  const calls = { model: 0, tool: 0 };
  const callModel = node({ name: "callModel", output: "aiMessage" }, async ({ messages }: { messages: Msg[] }) => {
    calls.model++;
    const tools = messages.filter((m) => m.role === "tool").length;
    return tools < 1 ? { role: "ai", content: "", tool: "weather" } : { role: "ai", content: "sunny" };
  });
  const afterModel = route({ name: "afterModel", targets: ["runTool", END] }, ({ aiMessage }: { aiMessage: Msg }) =>
    aiMessage.tool === undefined ? END : "runTool",
  );
  const runTool = node(
    { name: "runTool", output: "messages" },
    async ({ messages, aiMessage }: { messages: Msg[]; aiMessage: Msg }) => {
      calls.tool++;
      return [...messages, aiMessage, { role: "tool", content: `ran ${aiMessage.tool}` }];
    },
  );
  const options = entrypoint ? { name: "agent", entrypoint: "callModel" } : { name: "agent" };
  return { graph: new Graph([callModel, afterModel, runTool], options), calls };
}

/**
 * Re-running a COMPLETED workflow with no new values returns its stored result and runs nothing: no node call, no
 * node event, no write (the stored record reads back byte-identical). New values start the next turn.
 */
export async function rerunOfCompletedIsANoOp(
  checkpointer: Checkpointer,
  workflowId: string,
  entrypoint = true,
): Promise<void> {
  const { graph, calls } = agent(entrypoint);
  const events: GraphEvent[] = [];
  const runner = new Runner({ checkpointer, eventProcessors: [{ onEvent: (e) => void events.push(e) }] });
  try {
    const first = await runner.run(graph, {
      workflowId,
      values: { messages: [{ role: "user", content: "weather?" }] },
    });
    expect(first.status).toBe("completed");
    expect(calls).toEqual({ model: 2, tool: 1 });
    expect((first.values.messages as Msg[]).length).toBe(3);
    const stored = await storedBytes(checkpointer, workflowId);

    for (const again of [
      () => runner.run(graph, { workflowId }),
      () => runner.start(graph, { workflowId }).result,
      // Values equal to the stored ones are not new either.
      () => runner.run(graph, { workflowId, values: { messages: first.values.messages } } as never),
    ]) {
      events.length = 0;
      const result = await again();
      expect(result.status).toBe("completed");
      expect(result.values).toEqual(first.values);
      expect(result.workflowId).toBe(workflowId);
      expect(calls).toEqual({ model: 2, tool: 1 });
      const types = events.map((e) => e.type);
      expect(types).not.toContain("NodeStart");
      expect(types).not.toContain("SuperstepStart");
      expect(types).not.toContain("CheckpointSaved");
      expect(events.filter((e) => e.type === "NodeEnd").every((e) => (e as { replayed: boolean }).replayed)).toBe(true);
      expect(types[0]).toBe("RunStart");
      expect(events.at(-1)).toMatchObject({ type: "RunEnd", status: "completed" });
      expect(await storedBytes(checkpointer, workflowId)).toBe(stored);
    }

    // New values start the next turn: the agent runs again on the new question.
    const next = await runner.run(graph, {
      workflowId,
      values: { messages: [...(first.values.messages as Msg[]), { role: "user", content: "and tomorrow?" }] },
    });
    expect(next.status).toBe("completed");
    expect(calls.model).toBeGreaterThan(2);
    expect(await storedBytes(checkpointer, workflowId)).not.toBe(stored);
  } finally {
    await runner.close();
  }
}
