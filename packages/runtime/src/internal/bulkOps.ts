/**
 * `stopMany`, `resumeMany` and `deleteMany`: what each does to one matched workflow. The scan, validation and report
 * are `bulk.ts`'s.
 */
import type { Checkpointer } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import type { BulkOptions, BulkReport, WorkflowFilter } from "../bulk.js";
import type { Runner } from "../Runner.js";
import { scanWorkflows } from "./bulk.js";
import { fail } from "./options.js";

const ENDED = new Set(["completed", "failed", "stopped"]);

export function stopMany(
  runner: Runner,
  checkpointer: Checkpointer | undefined,
  filter: WorkflowFilter,
  options: (BulkOptions & { readonly info?: unknown }) | undefined,
): Promise<BulkReport> {
  const info = options?.info;
  return scanWorkflows("runner.stopMany", checkpointer, filter, options, ["info"], async (workflow) => {
    if (ENDED.has(workflow.status)) return { done: false, reason: `already ${workflow.status}` };
    return (await runner.stop(workflow.id, info)) ? { done: true } : { done: false, reason: "nothing to stop" };
  });
}

export async function resumeMany(
  runner: Runner,
  checkpointer: Checkpointer | undefined,
  graph: Graph,
  filter: WorkflowFilter,
  options: (BulkOptions & { readonly values?: Readonly<Record<string, unknown>> }) | undefined,
): Promise<BulkReport> {
  if (typeof graph !== "object" || graph === null || typeof (graph as Graph).definitionHash !== "string")
    fail("runner.resumeMany", "graph", graph, "the Graph the workflows were started with (its new version)");
  const values = options?.values;
  return scanWorkflows("runner.resumeMany", checkpointer, filter, options, ["values"], async (workflow) => {
    if (workflow.graphName !== graph.name)
      return { done: false, reason: `belongs to graph '${workflow.graphName}', not '${graph.name}'` };
    if (workflow.status === "completed" && values === undefined) return { done: false, reason: "completed" };
    await runner.run(graph, { workflowId: workflow.id, ...(values === undefined ? {} : { values }) });
    return { done: true };
  });
}

export function deleteMany(
  checkpointer: Checkpointer | undefined,
  filter: WorkflowFilter,
  options: BulkOptions | undefined,
): Promise<BulkReport> {
  return scanWorkflows("runner.deleteMany", checkpointer, filter, options, [], async (workflow) => {
    const lease = workflow.lease;
    if (workflow.status === "running" && lease !== undefined && lease.expiresAt.getTime() > Date.now())
      return {
        done: false,
        reason: `running under ${lease.owner}'s lease until ${lease.expiresAt.toISOString()}: stop it first (runner.stopMany)`,
      };
    await checkpointer!.deleteWorkflow(workflow.id);
    return { done: true };
  });
}
