/**
 * The contract's operations on Redis (the public class adds setup, error classification and lifecycle).
 */
import type {
  CheckpointPolicy,
  Fence,
  Lease,
  ListWorkflowsOptions,
  NewWorkflow,
  RenewedLease,
  StepRecord,
  StopRequest,
  WorkflowPage,
  WorkflowRecord,
  WorkflowStatus,
  WorkflowUpdate,
} from "@graph/checkpoint";
import {
  CheckpointError,
  decodeStopRequest,
  encodeStopRequest,
  isStorableText,
  leaseHeldError,
  leaseLostError,
  serializeStored,
  staleFenceError,
  superstepBound,
  unknownWorkflowError,
  validateFence,
  validateRenewal,
  validateStepRecord,
} from "@graph/checkpoint";
import type { IndexContext } from "./indexes.js";
import { deleteWorkflows, descendantsOf, listWorkflows, pruneExpired } from "./indexes.js";
import { stepField } from "./keys.js";
import { decodeStep, decodeWorkflow, encodeStep, hashFromPairs, normalizeError } from "./records.js";
import { requireStorableId, validateClaimOptions } from "./validation.js";

const WORKFLOW_STATUSES: readonly WorkflowStatus[] = ["running", "completed", "paused", "stopped", "failed"];

/** Steps read in one snapshot, with the workflow's last superstep. */
export interface StepsRead {
  readonly lastSuperstep: number;
  readonly bound: number | undefined;
  readonly steps: StepRecord[];
}

/** Turns a script's rejection reply into the error of the contract. */
function rejected(reply: unknown[], id: string, operation: string, fence: Fence | undefined): never {
  const guard = fence?.workflowId ?? id;
  if (reply[0] === "conflict") {
    const [, epoch, owner, expiresAt] = reply as string[];
    throw staleFenceError(
      guard,
      operation,
      fence?.epoch ?? 0,
      {
        epoch: Number(epoch),
        ...(owner === "" || owner === undefined ? {} : { owner, expiresAt: new Date(Number(expiresAt)) }),
      },
      id,
    );
  }
  if (reply[0] === "missing") throw unknownWorkflowError(reply[1] === "guard" ? guard : id, operation);
  throw new CheckpointError({
    message: `${operation}('${id}'): unexpected reply from Redis: ${JSON.stringify(reply)}.`,
    workflowId: id,
    operation,
  });
}

/** The operations of one store. */
export class WorkflowOperations {
  readonly #context: IndexContext;
  readonly #policy: CheckpointPolicy;

  constructor(context: IndexContext, policy: CheckpointPolicy) {
    this.#context = context;
    this.#policy = policy;
  }

  pruneIfConfigured(): Promise<number> {
    return this.#policy.ttlMs === undefined ? Promise.resolve(0) : pruneExpired(this.#context, this.#policy.ttlMs);
  }

  async createWorkflow(
    workflow: NewWorkflow,
    fence: Fence | undefined,
  ): Promise<{ readonly workflow: WorkflowRecord; readonly created: boolean }> {
    if (typeof workflow !== "object" || workflow === null) {
      throw new CheckpointError({
        message: "createWorkflow expects { id, graphName, graphHash }.",
        operation: "createWorkflow",
      });
    }
    requireStorableId(workflow.id, "createWorkflow");
    for (const field of ["graphName", "graphHash"] as const) {
      if (typeof workflow[field] !== "string" || workflow[field].includes("\u0000")) {
        throw new CheckpointError({
          message: `createWorkflow('${workflow.id}'): ${field} must be a string without NUL characters.`,
          workflowId: workflow.id,
          operation: "createWorkflow",
          path: field,
        });
      }
    }
    if (workflow.parentId !== undefined) requireStorableId(workflow.parentId, "createWorkflow", "parent id");
    const guard = validateFence(workflow.id, fence, "createWorkflow") ?? workflow.id;
    await this.pruneIfConfigured();
    const { scripts, keys } = this.#context;
    const reply = (await scripts.graphCreate(
      keys.workflow(workflow.id).workflow,
      keys.workflow(guard).workflow,
      workflow.graphName,
      workflow.graphHash,
      workflow.parentId ?? "",
      workflow.parentId === undefined ? "0" : "1",
      fence === undefined ? "" : String(fence.epoch),
    )) as [number | string, unknown];
    if (typeof reply[0] === "string") rejected(reply, workflow.id, "createWorkflow", fence);
    const hash = hashFromPairs(reply[1]);
    // Indexed on every call (idempotent): repairs the index after a crash between the two writes.
    const { all, roots, ids, ttl } = keys.index;
    await scripts.graphIndexAdd(
      all,
      roots,
      ids,
      ttl,
      workflow.id,
      hash["ca"] ?? "0",
      hash["pid"] === undefined ? "1" : "0",
    );
    return {
      workflow: decodeWorkflow(workflow.id, hash, this.#context.serializer, "createWorkflow"),
      created: reply[0] === 1,
    };
  }

  async claimWorkflow(id: string, options: { readonly owner: string; readonly ttlMs: number }): Promise<Lease> {
    requireStorableId(id, "claimWorkflow");
    validateClaimOptions(id, options);
    const reply = (await this.#context.scripts.graphClaim(
      this.#context.keys.workflow(id).workflow,
      options.owner,
      String(options.ttlMs),
    )) as string[];
    if (reply[0] === "ok") {
      return { workflowId: id, owner: options.owner, epoch: Number(reply[1]), expiresAt: new Date(Number(reply[2])) };
    }
    if (reply[0] === "held") throw leaseHeldError(id, reply[1]!, new Date(Number(reply[2])));
    return rejected(reply, id, "claimWorkflow", undefined);
  }

  async releaseWorkflow(id: string, lease: Pick<Lease, "owner" | "epoch">): Promise<void> {
    if (!isStorableText(id) || typeof lease !== "object" || lease === null) return;
    if (typeof lease.owner !== "string" || !Number.isSafeInteger(lease.epoch)) return;
    await this.#context.scripts.graphRelease(
      this.#context.keys.workflow(id).workflow,
      lease.owner,
      String(lease.epoch),
    );
  }

  async renewWorkflow(
    id: string,
    lease: Pick<Lease, "owner" | "epoch">,
    options: { readonly ttlMs: number },
  ): Promise<RenewedLease> {
    requireStorableId(id, "renewWorkflow");
    validateRenewal(id, lease, options);
    const reply = (await this.#context.scripts.graphRenew(
      this.#context.keys.workflow(id).workflow,
      lease.owner,
      String(lease.epoch),
      String(options.ttlMs),
    )) as string[];
    if (reply[0] === "ok") {
      const stop =
        reply[2] === undefined || reply[2] === "" ? undefined : this.#decodeStop(id, reply[2], "renewWorkflow");
      return {
        workflowId: id,
        owner: lease.owner,
        epoch: lease.epoch,
        expiresAt: new Date(Number(reply[1])),
        ...(stop === undefined ? {} : { stopRequested: stop }),
      };
    }
    if (reply[0] === "lost") {
      const [, epoch, owner, expiresAt] = reply;
      throw leaseLostError(id, lease, {
        epoch: Number(epoch),
        ...(owner === "" || owner === undefined ? {} : { owner, expiresAt: new Date(Number(expiresAt)) }),
      });
    }
    return rejected(reply, id, "renewWorkflow", undefined);
  }

  async requestStop(id: string, options: { readonly info?: unknown } = {}): Promise<WorkflowRecord | undefined> {
    if (!isStorableText(id)) return undefined;
    const stop = encodeStopRequest(this.#context.serializer, id, options?.info, Date.now(), "requestStop");
    const reply = (await this.#context.scripts.graphStop(this.#context.keys.workflow(id).workflow, stop)) as unknown[];
    if (reply[0] === "missing") return undefined;
    return decodeWorkflow(id, hashFromPairs(reply[1]), this.#context.serializer, "requestStop");
  }

  async getStopRequest(id: string): Promise<StopRequest | undefined> {
    if (!isStorableText(id)) return undefined;
    const text = await this.#context.client.hget(this.#context.keys.workflow(id).workflow, "sr");
    return text === null ? undefined : this.#decodeStop(id, text, "getStopRequest");
  }

  #decodeStop(id: string, text: string, operation: string): StopRequest {
    return decodeStopRequest(this.#context.serializer, id, text, operation);
  }

  async saveSteps(steps: readonly StepRecord[], fence: Fence | undefined, operation: string): Promise<void> {
    if (!Array.isArray(steps)) {
      throw new CheckpointError({ message: `${operation} expects an array of steps.`, operation });
    }
    if (steps.length === 0) return;
    const first = steps[0]!;
    const args: string[] = [];
    for (const step of steps) {
      validateStepRecord(step, operation);
      requireStorableId(step.workflowId, operation);
      requireStorableId(step.nodeName, operation, "node name");
      if (step.workflowId !== first.workflowId) {
        throw new CheckpointError({
          message: `${operation}: every step of one call must belong to one workflow ('${first.workflowId}' and '${step.workflowId}').`,
          operation,
          workflowId: first.workflowId,
        });
      }
      // Encode everything before the script runs: a value that cannot be stored leaves nothing behind.
      const encoded = encodeStep(step, this.#context.serializer, operation);
      args.push(stepField(step.superstep, step.nodeName), String(step.index), String(step.superstep), encoded);
    }
    const id = first.workflowId;
    const guard = validateFence(id, fence, operation) ?? id;
    const keys = this.#context.keys.workflow(id);
    const reply = (await this.#context.scripts.graphSave(
      keys.workflow,
      keys.steps,
      keys.order,
      this.#context.keys.workflow(guard).workflow,
      fence === undefined ? "" : String(fence.epoch),
      this.#policy.retention,
      String(this.#policy.window ?? 0),
      ...args,
    )) as string[];
    if (reply[0] !== "ok") rejected(reply, id, operation, fence);
  }

  async updateWorkflow(id: string, update: WorkflowUpdate, fence: Fence | undefined): Promise<WorkflowRecord> {
    requireStorableId(id, "updateWorkflow");
    const guard = validateFence(id, fence, "updateWorkflow") ?? id;
    if (typeof update !== "object" || update === null) {
      throw new CheckpointError({
        message: `updateWorkflow('${id}') expects an update object.`,
        workflowId: id,
        operation: "updateWorkflow",
      });
    }
    if (update.status !== undefined && !WORKFLOW_STATUSES.includes(update.status)) {
      throw new CheckpointError({
        message: `updateWorkflow('${id}'): status must be one of ${WORKFLOW_STATUSES.join(", ")}, got ${JSON.stringify(update.status)}.`,
        workflowId: id,
        operation: "updateWorkflow",
        path: "status",
      });
    }
    if (
      update.graphHash !== undefined &&
      (typeof update.graphHash !== "string" || update.graphHash.includes("\u0000"))
    ) {
      throw new CheckpointError({
        message: `updateWorkflow('${id}'): graphHash must be a string without NUL characters.`,
        workflowId: id,
        operation: "updateWorkflow",
        path: "graphHash",
      });
    }
    // Serialise everything before changing anything.
    const sets: string[] = [];
    const deletes: string[] = [];
    if (update.status !== undefined) sets.push("st", update.status);
    if (update.graphHash !== undefined) sets.push("gh", update.graphHash);
    const serializer = this.#context.serializer;
    if (update.pause === null) deletes.push("pa");
    else if (update.pause !== undefined) {
      sets.push(
        "pa",
        serializeStored(serializer, update.pause, {
          workflowId: id,
          ...(typeof update.pause.nodeName === "string" ? { nodeName: update.pause.nodeName } : {}),
          operation: "updateWorkflow",
          path: "pause",
        }),
      );
    }
    if (update.stopRequested === null) deletes.push("sr");
    if (update.error === null) deletes.push("er");
    else if (update.error !== undefined) {
      sets.push(
        "er",
        serializeStored(serializer, normalizeError(update.error), {
          workflowId: id,
          operation: "updateWorkflow",
          path: "error",
        }),
      );
    }
    const reply = (await this.#context.scripts.graphUpdate(
      this.#context.keys.workflow(id).workflow,
      this.#context.keys.workflow(guard).workflow,
      fence === undefined ? "" : String(fence.epoch),
      String(sets.length / 2),
      ...sets,
      ...deletes,
    )) as unknown[];
    if (reply[0] !== "ok") rejected(reply, id, "updateWorkflow", fence);
    return decodeWorkflow(id, hashFromPairs(reply[1]), serializer, "updateWorkflow");
  }

  async getWorkflow(id: string): Promise<WorkflowRecord | undefined> {
    if (!isStorableText(id)) return undefined;
    const hash = await this.#context.client.hgetall(this.#context.keys.workflow(id).workflow);
    if (Object.keys(hash).length === 0) return undefined;
    return decodeWorkflow(id, hash, this.#context.serializer, "getWorkflow");
  }

  /** Steps through a superstep bound, in index order, with the last superstep (one script: one snapshot). */
  async readSteps(id: string, through: number | undefined, operation: string): Promise<StepsRead | undefined> {
    if (!isStorableText(id)) return undefined;
    const bound = superstepBound(through, operation, id);
    const keys = this.#context.keys.workflow(id);
    const reply = (await this.#context.scripts.graphRead(
      keys.workflow,
      keys.steps,
      keys.order,
      bound === undefined ? "" : String(bound),
    )) as string[] | null;
    if (reply === null) return undefined;
    const steps: StepRecord[] = [];
    for (let i = 1; i + 1 < reply.length; i += 2) {
      steps.push(decodeStep(id, reply[i]!, reply[i + 1]!, this.#context.serializer, operation));
    }
    return { lastSuperstep: Number(reply[0]), bound, steps };
  }

  listWorkflows(options: ListWorkflowsOptions): Promise<WorkflowPage> {
    if (options.status !== undefined && !WORKFLOW_STATUSES.includes(options.status)) {
      throw new CheckpointError({
        message: `listWorkflows: status must be one of ${WORKFLOW_STATUSES.join(", ")}, got ${JSON.stringify(options.status)}.`,
        operation: "listWorkflows",
        path: "status",
      });
    }
    return listWorkflows(this.#context, options);
  }

  async deleteWorkflow(id: string): Promise<void> {
    if (!isStorableText(id)) return;
    // Children first: if this is interrupted, the root (and so the way to find its children) is still there.
    const children = await descendantsOf(this.#context, id);
    await deleteWorkflows(this.#context, children);
    await deleteWorkflows(this.#context, [id]);
  }
}
