import { MemoryCheckpointer } from "@graph/checkpoint";
import { Graph, interrupt, node } from "@graph/core";
import { Runner } from "@graph/runtime";
import { expect, it } from "vitest";
import { checkCompatibility, upgradable, upgrades } from "../src/index.js";

it("README: the first example", async () => {
  const write = (output: string) =>
    node({ name: "write", output }, function write({ topic }: { topic: string }) {
      return `about ${topic}`;
    });
  const v1 = upgradable(
    new Graph([write("draft"), interrupt({ name: "approve", input: "draft", response: "ok" })], { name: "post" }),
    { label: "v1" },
  );
  const v2 = upgradable(
    new Graph([write("body"), interrupt({ name: "approve", input: "body", response: "ok" })], { name: "post" }),
    { label: "v2", migrations: [{ from: "v1", rename: { draft: "body" } }] },
  );

  const checkpointer = new MemoryCheckpointer();
  const runner = new Runner({ checkpointer, upgrade: upgrades(), closeCheckpointer: false });
  expect((await runner.run(v1, { workflowId: "p-1", values: { topic: "cats" } })).status).toBe("paused");
  expect((await checkCompatibility(checkpointer, "p-1", v2))?.verdict).toBe("resumable-with-migration");
  const done = await runner.run(v2, { workflowId: "p-1", values: { ok: "yes" } });
  expect(done.values.body).toBe("about cats");
  await runner.close();
});
