/** What comes back from the workers' streams and jobs, rebuilt on the submitter's side. */
import type { Job } from "bullmq";
import { GraphVersionError, UnknownGraphError } from "../errors.js";
import { errorFromWire, type WireError } from "./wire.js";

/** Removes an answered job; while a worker still holds it (it is completing it), waits a little instead. */
export async function removeAnswered(job: Job): Promise<void> {
  try {
    await job.remove();
  } catch {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The queue's own refusals come back as their classes; anything else as a `RemoteRunError` with its tag. */
export function rebuildError(wire: WireError): Error {
  const f = wire.fields as Record<string, string>;
  if (wire.tag === "UnknownGraphError")
    return new UnknownGraphError({
      graphName: f["graphName"] ?? "",
      workflowId: f["workflowId"] ?? "",
      known: (wire.fields["known"] as string[] | undefined) ?? [],
    });
  if (wire.tag === "GraphVersionError")
    return new GraphVersionError({
      graphName: f["graphName"] ?? "",
      workflowId: f["workflowId"] ?? "",
      expected: f["expected"] ?? "",
      actual: f["actual"] ?? "",
    });
  return errorFromWire(wire);
}
