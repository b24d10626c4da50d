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
