import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, interrupt, node } from "@graph/core";
import { Runner } from "@graph/runtime";
import { expect, it } from "vitest";
import { z } from "zod";
import { Devtools } from "../src/index.js";
import { call } from "./helpers.js";

it("README: the first example, answered through the page's API", async () => {
  const draft = node({ output: "reply" }, async function draft({ ticket }: { ticket: string }) {
    return `Thanks for writing about "${ticket}".`;
  });
  const approval = interrupt({ name: "approval", input: "reply", response: "approved" });
  const send = node({ output: "sent" }, function send({ reply, approved }: { reply: string; approved: boolean }) {
    return approved ? reply : null;
  });
  const support = new Graph([draft, approval, send], { name: "support" });

  const checkpointer = new MemoryCheckpointer();
  const devtools = new Devtools({
    graphs: [support],
    checkpointer,
    answerSchemas: { approval: z.boolean() },
  });
  const runner = new Runner({ checkpointer, eventProcessors: [devtools] });
  devtools.connect(runner);

  const url = await devtools.listen();
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[\w-]{32}$/);
  const first = await runner.run(support, { workflowId: "t-1", values: { ticket: "refund" } });
  expect(first.status).toBe("paused");

  // The schema is a boolean: the page shows Approve / Reject, and the server refuses anything but a boolean.
  expect(devtools.views[0]!.nodes.find((n) => n.path === "approval")?.answer).toMatchObject({
    kind: "schema",
    schema: { type: "boolean" },
  });
  const port = Number(new URL(url).port);
  const headers = { "x-devtools-token": devtools.token, origin: `http://127.0.0.1:${port}` };
  const refused = await call(port, "/api/workflows/t-1/answer", { body: { value: "yes" }, headers });
  expect(refused.status).toBe(400);
  expect(refused.json()).toMatchObject({ issues: ["Invalid input: expected boolean, received string"] });
  // What the Approve button sends.
  const answer = await call(port, "/api/workflows/t-1/answer", { body: { value: true }, headers });
  expect(answer.status).toBe(202);
  for (let i = 0; i < 200 && !devtools.log.all().some((e) => e.type === "RunEnd" && e.status === "completed"); i++)
    await new Promise((r) => setTimeout(r, 10));
  const sent = devtools.log.all().find((e) => e.type === "NodeEnd" && e.path === "send");
  expect(sent?.outputs).toEqual({ sent: '"Thanks for writing about \\"refund\\"."' });
  await runner.close();
});
