import type { Checkpointer } from "@graph/checkpoint";
import { createSerializer } from "@graph/checkpoint";
import { Graph, interrupt, node } from "@graph/core";
import { expect } from "vitest";
import { Runner } from "../../src/index.js";

/** A stand-in for LangChain's `AIMessage`: a class instance with a getter, as models return them. */
export class AIMessage {
  readonly content: string;
  readonly toolCalls: readonly { name: string; args: Record<string, unknown> }[];
  readonly at: Date;
  constructor(fields: { content: string; toolCalls?: AIMessage["toolCalls"]; at: Date }) {
    this.content = fields.content;
    this.toolCalls = fields.toolCalls ?? [];
    this.at = fields.at;
  }
  get wantsTool(): boolean {
    return this.toolCalls.length > 0;
  }
}

/** The serializer the resumed runs use: AIMessage and Error registered. */
export const messageSerializer = createSerializer({
  classes: [
    {
      name: "AIMessage",
      type: AIMessage,
      encode: (m: AIMessage) => ({ content: m.content, toolCalls: m.toolCalls, at: m.at }),
      decode: (v: ConstructorParameters<typeof AIMessage>[0]) => new AIMessage(v),
    },
    {
      name: "Error",
      type: Error,
      encode: (e: Error) => ({ message: e.message }),
      decode: (v: { message: string }) => new Error(v.message),
    },
  ],
});

/**
 * review-tool-calls in miniature: the model returns an `AIMessage` (plus an `Error` it recovered from), a human
 * approves the tool call, then `runTool` reads the message back — after a resume, from storage.
 */
function reviewGraph(calls: string[]) {
  const callModel = node(
    { name: "callModel", output: ["message", "recovered"] },
    async ({ question }: { question: string }) => {
      calls.push("callModel");
      return {
        message: new AIMessage({
          content: `looking up ${question}`,
          toolCalls: [{ name: "search", args: { q: question } }],
          at: new Date(Date.UTC(2026, 0, 2)),
        }),
        recovered: [new Map([["first try", new Error("rate limited")]])],
      };
    },
  );
  const approve = interrupt({ name: "approve", input: "message", response: "approval" });
  const runTool = node(
    { name: "runTool", output: "toolResult" },
    ({ message, approval, recovered }: { message: AIMessage; approval: string; recovered: Map<string, Error>[] }) => {
      calls.push("runTool");
      const error = recovered[0]!.get("first try")!;
      return [
        message instanceof AIMessage,
        message.wantsTool,
        message.toolCalls[0]!.name,
        message.at.toISOString(),
        approval,
        error instanceof Error,
        error.message,
      ].join("|");
    },
  );
  return new Graph([callModel, approve, runTool], { name: "review-classes" });
}

/**
 * Runs until the approval pause on `first`, then resumes on `second` (a new runner on the same storage, so the
 * `AIMessage` must come back from stored text), or on the same runner when `second` is omitted.
 */
export async function resumeWithClassInstances(
  first: Checkpointer,
  second: (() => Checkpointer) | undefined,
  workflowId: string,
): Promise<void> {
  const calls: string[] = [];
  const graph = reviewGraph(calls);
  const runner1 = new Runner({ checkpointer: first });
  let runner2 = runner1;
  let storage = first;
  try {
    const paused = await runner1.run(graph, { workflowId, values: { question: "weather" } });
    expect(paused.status).toBe("paused");
    const asked = paused.pause?.value;
    expect(asked).toBeInstanceOf(AIMessage);
    expect((asked as AIMessage).content).toBe("looking up weather");
    if (second !== undefined) {
      await runner1.close();
      storage = second();
      runner2 = new Runner({ checkpointer: storage });
    }
    const done = await runner2.run(graph, { workflowId, values: { approval: "yes" } });
    expect(done.status).toBe("completed");
    expect(done.get("toolResult")).toBe("true|true|search|2026-01-02T00:00:00.000Z|yes|true|rate limited");
    expect(calls).toEqual(["callModel", "runTool"]);
    const state = await storage.getState(workflowId);
    expect(state["message"]).toBeInstanceOf(AIMessage);
    expect((state["recovered"] as Map<string, Error>[])[0]!.get("first try")).toBeInstanceOf(Error);
  } finally {
    await runner1.close();
    await runner2.close();
  }
}
