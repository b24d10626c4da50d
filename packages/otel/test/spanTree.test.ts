import { MemoryCheckpointer } from "@graph/checkpoint";
import { END, Graph, interrupt, node, route } from "@graph/core";
import { Runner } from "@graph/runtime";
import { describe, expect, it } from "vitest";
import { OtelProcessor } from "../src/index.js";
import { memoryTracing, renderTree } from "./helpers.js";

/** text → enrich (nested) ┐
 *  items → scoring × 3    ┴→ flaky (fails once, retried) → ◆ gate → review → ⏸ approval → publish */
function pipeline() {
  const upper = node({ output: "loud" }, function upper({ text }: { text: string }) {
    return text.toUpperCase();
  });
  const enrich = new Graph([upper], { name: "enrich" }).asNode();
  const score = node({ output: "points" }, async function score({ item }: { item: string }) {
    return item.length;
  });
  const scoring = new Graph([score], { name: "scoring" })
    .asNode()
    .withInputs({ item: "items" })
    .withOutputs({ points: "scores" })
    .mapOver("items");
  let calls = 0;
  const flaky = node(
    { output: "total", retry: { attempts: 3, initialDelayMs: 1, backoff: "constant" } },
    async function flaky({ scores }: { scores: number[] }) {
      calls++;
      if (calls === 1) throw new TypeError("upstream hiccup");
      return scores.reduce((a, b) => a + b, 0);
    },
  );
  const gate = route({ targets: ["review", END] }, function gate({ total }: { total: number }) {
    return total > 0 ? "review" : END;
  });
  const review = node({ output: "summary" }, function review({ loud, total }: { loud: string; total: number }) {
    return `${loud}:${total}`;
  });
  const approval = interrupt({ name: "approval", input: "summary", response: "decision" });
  const publish = node(
    { output: "published" },
    function publish({ summary, decision }: { summary: string; decision: string }) {
      return decision === "yes" ? summary : null;
    },
  );
  return new Graph([enrich, scoring, flaky, gate, review, approval, publish], { name: "pipeline" });
}

describe("OtelProcessor span tree", () => {
  it("traces a gate, a nested graph, a 3-item map, a retry and a pause/resume as one exact tree", async () => {
    const { provider, exporter } = memoryTracing();
    const runner = new Runner({
      checkpointer: new MemoryCheckpointer({ policy: { durability: "sync" } }),
      eventProcessors: [new OtelProcessor({ tracerProvider: provider })],
    });
    const graph = pipeline();
    const first = await runner.run(graph, { workflowId: "wf", values: { text: "hi", items: ["a", "bb", "ccc"] } });
    expect(first.status).toBe("paused");
    const second = await runner.run(graph, { workflowId: "wf", values: { decision: "yes" } });
    expect(second.get("published")).toBe("HI:6");
    await runner.close();

    const tree = renderTree(exporter.getFinishedSpans(), { events: (e) => e !== "checkpoint_saved" });
    expect(tree).toEqual([
      "invoke_workflow pipeline {workflow_id=wf status=paused} [route_decision, paused]",
      "  node enrich {node.type=graph superstep=2 attempt=1 cached=false status=completed}",
      "    invoke_workflow enrich {workflow_id=wf/enrich status=completed}",
      "      node upper {node.type=function superstep=2 attempt=1 cached=false status=completed}",
      "  node scoring {node.type=graph superstep=2 attempt=1 cached=false status=completed}",
      "    invoke_workflow scoring {workflow_id=wf/scoring/0 item_index=0 status=completed}",
      "      node score {node.type=function superstep=2 attempt=1 cached=false status=completed}",
      "    invoke_workflow scoring {workflow_id=wf/scoring/1 item_index=1 status=completed}",
      "      node score {node.type=function superstep=2 attempt=1 cached=false status=completed}",
      "    invoke_workflow scoring {workflow_id=wf/scoring/2 item_index=2 status=completed}",
      "      node score {node.type=function superstep=2 attempt=1 cached=false status=completed}",
      "  node flaky {node.type=function superstep=3 attempt=2 cached=false status=completed} [retry]",
      "  node gate {node.type=route superstep=4 attempt=1 cached=false status=completed}",
      "  node review {node.type=function superstep=5 attempt=1 cached=false status=completed}",
      "  node approval {node.type=interrupt superstep=6 attempt=1 cached=false status=paused}",
      // Superstep 1 (and 7) is the input step that stores the caller's values; nested runs number their own.
      // The resumed run: replayed nodes (enrich … review) get no span; the interrupt runs again with the answer.
      "invoke_workflow pipeline {workflow_id=wf status=completed}",
      "  node approval {node.type=interrupt superstep=8 attempt=1 cached=false status=completed}",
      "  node publish {node.type=function superstep=9 attempt=1 cached=false status=completed}",
    ]);

    const spans = exporter.getFinishedSpans();
    const [run1, run2] = spans.filter((s) => s.name === "invoke_workflow pipeline");
    expect(run1!.attributes).toMatchObject({
      "gen_ai.operation.name": "invoke_workflow",
      "gen_ai.workflow.name": "pipeline",
      "graph.workflow_id": "wf",
      "graph.run_id": first.runId,
      "graph.definition_hash": graph.definitionHash,
      "graph.status": "paused",
    });
    expect(run2!.attributes["graph.run_id"]).toBe(second.runId);
    expect(run1!.parentSpanContext).toBeUndefined();
    const decision = run1!.events.find((e) => e.name === "route_decision")!;
    expect(decision.attributes).toEqual({ "graph.gate": "gate", "graph.decision": "review" });
    const paused = run1!.events.find((e) => e.name === "paused")!;
    expect(paused.attributes).toEqual({
      "graph.node.name": "approval",
      "graph.pause.reason": "human_input",
      "graph.response_key": "decision",
    });
    const retry = spans.find((s) => s.name === "node flaky")!.events.find((e) => e.name === "retry")!;
    expect(retry.attributes).toEqual({
      "graph.attempt": 1,
      "error.type": "TypeError",
      "exception.message": "upstream hiccup",
    });
    // One checkpoint_saved per stored node step of the top-level run (durability "sync": saved before RunEnd).
    const saved = (s: (typeof spans)[number]) =>
      s.events.filter((e) => e.name === "checkpoint_saved").map((e) => e.attributes?.["graph.node.name"]);
    expect(saved(run1!)).toEqual(["enrich", "scoring", "flaky", "gate", "review", "approval"]);
    expect(saved(run2!)).toEqual(["approval", "publish"]);
    // No payloads unless asked for.
    for (const s of spans) expect(Object.keys(s.attributes).filter((k) => k.includes("puts"))).toEqual([]);
  });
});
