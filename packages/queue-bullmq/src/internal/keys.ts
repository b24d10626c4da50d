/**
 * Redis key names of one queue. Everything shares the `{<queue>}` hash tag so a Redis Cluster keeps a queue's keys
 * (ours and BullMQ's, which uses the same prefix) on one slot.
 */
export interface QueueKeys {
  /** BullMQ's key prefix. */
  readonly prefix: string;
  inputs(workflowId: string, submission: string): string;
  events(workflowId: string, submission: string): string;
  stop(workflowId: string): string;
  mapChunk(mapId: string, chunk: number): string;
  /** A mapped GraphNode dispatched by a worker: its state; `:<chunk>` its chunks' values, `:done` the finished ones. */
  nodeMap(mapPath: string): string;
  /** A schedule's values (stored beside its job scheduler, never in its jobs). */
  scheduleValues(scheduleId: string): string;
  /** The workflow id of a schedule's last firing started, read by the next firing's overlap rule. */
  scheduleLast(scheduleId: string): string;
  /** Fairness state (see `fairness.ts`): `slots`, `floor`, `base`. */
  fair(part: "slots" | "floor" | "base"): string;
  /** The runs waiting (delayed) for a permit of a run-level limit, by the limit's hash (see `runLimits.ts`). */
  runWaiters(limitHash: string): string;
  /** Pub/sub channel of stop nudges (see `stopNudge.ts`). */
  readonly stopChannel: string;
}

export function queueKeys(queue: string, prefix = "graph"): QueueKeys {
  const base = `${prefix}:{${queue}}`;
  return {
    prefix: `${prefix}`,
    inputs: (id, submission) => `${base}:inputs:${id}:${submission}`,
    events: (id, submission) => `${base}:events:${id}:${submission}`,
    stop: (id) => `${base}:stop:${id}`,
    mapChunk: (id, chunk) => `${base}:map:${id}:${chunk}`,
    nodeMap: (path) => `${base}:nodemap:${path}`,
    scheduleValues: (id) => `${base}:schedule:${id}:values`,
    scheduleLast: (id) => `${base}:schedule:${id}:last`,
    fair: (part) => `${base}:fair:${part}`,
    runWaiters: (hash) => `${base}:runwait:${hash}`,
    stopChannel: `${base}:stop`,
  };
}

/** BullMQ refuses `:` in custom job ids; a workflow id maps to one job id, so a double submit is one job. */
export function jobIdOf(workflowId: string): string {
  return `wf-${encodeURIComponent(workflowId)}`;
}
