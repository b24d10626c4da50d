import { MemoryCheckpointer } from "@graph/checkpoint";
import { END, Graph, interrupt, node, route } from "@graph/core";
import { expect, it } from "vitest";
import { Runner } from "../src/index.js";

it("README: a chat answer streamed and stopped halfway keeps its partial output (completeOnStop)", async () => {
  const reply = node({ output: "response" }, async function* reply({ userInput }: { userInput: string }) {
    for (const word of `Let me explain ${userInput} in detail, step by step.`.split(" ")) {
      await new Promise((r) => setTimeout(r, 50));
      yield `${word} `;
    }
  });
  const remember = node(
    { output: "history" },
    function remember({ history, userInput, response }: { history: string[]; userInput: string; response: string }) {
      return [...history, `user: ${userInput}`, `bot: ${response.trim()}`];
    },
  );
  const chat = new Graph([reply, remember], { name: "chat", completeOnStop: true }).bind({ history: [] });

  const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
  const handle = runner.start(chat, { values: { userInput: "monads" }, workflowId: "chat-1" });
  let printed = "";
  for await (const event of handle.events) {
    if (event.type === "StreamingChunk") {
      printed += String(event.chunk);
      if (event.index === 3) handle.stop({ reason: "user pressed stop" });
    }
  }
  const result = await handle.result;
  expect(printed).toBe("Let me explain monads ");
  expect(result.status).toBe("stopped");
  expect(result.get("response")).toBe("Let me explain monads ");
  expect(result.get("history")).toEqual(["user: monads", "bot: Let me explain monads"]);
  await runner.close();
});

it("root README: the writer loop with a review interrupt", async () => {
  const draft = node({ output: "draft" }, async function draft({ topic, notes }: { topic: string; notes: string[] }) {
    return `A note on ${topic} (revision ${notes.length})`;
  });
  const review = interrupt({ name: "review", input: "draft", response: "verdict" });
  const record = node({ output: "notes" }, function record({ notes, verdict }: { notes: string[]; verdict: string }) {
    return [...notes, verdict];
  });
  const decide = route({ targets: ["draft", END] }, function decide({ verdict }: { verdict: string }) {
    return verdict === "ship it" ? END : "draft";
  });
  const writer = new Graph([draft, review, record, decide], { name: "writer" }).bind({ notes: [] });
  const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
  let result = await runner.run(writer, { values: { topic: "graphs" }, workflowId: "doc-1" });
  const answers = ["more detail", "ship it"];
  const shown: unknown[] = [];
  while (result.status === "paused") {
    shown.push(result.pause!.value);
    result = await runner.run(writer, {
      workflowId: "doc-1",
      values: { [result.pause!.responseKey]: answers.shift() },
    });
  }
  expect(shown).toEqual(["A note on graphs (revision 0)", "A note on graphs (revision 1)"]);
  expect(result.status).toBe("completed");
  expect(result.get("notes")).toEqual(["more detail", "ship it"]);
  await runner.close();
});

it("root README: the same workflowId is the same workflow — equal values run nothing, new values are its next turn", async () => {
  // Each run of the README's script is a new process: a new Runner on the same store (closed once, at the end: a
  // runner's close() closes its store).
  const draft = node({ output: "draft" }, async function draft({ topic, notes }: { topic: string; notes: string[] }) {
    return `A note on ${topic} (revision ${notes.length})`;
  });
  const review = interrupt({ name: "review", input: "draft", response: "verdict" });
  const record = node({ output: "notes" }, function record({ notes, verdict }: { notes: string[]; verdict: string }) {
    return [...notes, verdict];
  });
  const decide = route({ targets: ["draft", END] }, function decide({ verdict }: { verdict: string }) {
    return verdict === "ship it" ? END : "draft";
  });
  const writer = new Graph([draft, review, record, decide], { name: "writer" }).bind({ notes: [] });
  const store = new MemoryCheckpointer();
  const runners: Runner[] = [];
  const script = async (topic: string) => {
    const runner = new Runner({ checkpointer: store });
    let result = await runner.run(writer, { values: { topic }, workflowId: "doc-1" });
    const answers = ["more detail", "ship it"];
    const shown: unknown[] = [];
    while (result.status === "paused") {
      shown.push(result.pause!.value);
      result = await runner.run(writer, {
        workflowId: "doc-1",
        values: { [result.pause!.responseKey]: answers.shift() },
      });
    }
    runners.push(runner);
    return { shown, status: result.status, notes: result.get("notes") };
  };
  expect(await script("graphs")).toEqual({
    shown: ["A note on graphs (revision 0)", "A note on graphs (revision 1)"],
    status: "completed",
    notes: ["more detail", "ship it"],
  });
  // Run again as is: nothing runs, the stored result comes back.
  expect(await script("graphs")).toEqual({ shown: [], status: "completed", notes: ["more detail", "ship it"] });
  // A new topic: the next turn drafts on top of the stored notes.
  expect(await script("graph databases")).toEqual({
    shown: ["A note on graph databases (revision 2)", "A note on graph databases (revision 3)"],
    status: "completed",
    notes: ["more detail", "ship it", "more detail", "ship it"],
  });
  await runners.at(-1)!.close();
});
