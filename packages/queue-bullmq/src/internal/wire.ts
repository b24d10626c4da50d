/**
 * What travels through Redis: the job's data (no state: names, hash, ids and run options), stream entries (events,
 * the final result or error) and how errors and results are encoded so the caller rebuilds them.
 */
import type { Serializer } from "@graph/checkpoint";
import type { RunOptions } from "@graph/runtime";
import { RunResult } from "@graph/runtime";
import { RemoteRunError } from "../errors.js";
import type { FairPlace } from "./fairness.js";
import type { RunLimitsWire } from "./runLimits.js";

/** Run options that travel with a job (the values go to Redis beside it, never into the job). */
export type WireRunOptions = Pick<
  RunOptions,
  "select" | "maxIterations" | "errorHandling" | "force" | "unknownValues" | "budget"
>;

/** A run job's data. */
export interface RunJobData {
  readonly graphName: string;
  readonly definitionHash: string;
  readonly workflowId: string;
  /** Random per submission: names the inputs and events keys; a duplicate submit reads the first one's. */
  readonly submission: string;
  readonly hasValues: boolean;
  readonly options: WireRunOptions;
  /** Run-level limits: the submission's, or the worker's defaults once computed at the first delivery. */
  readonly limits?: RunLimitsWire;
  /** Fairness: the job's group and virtual slot (its priority is the slot less the queue's base). */
  readonly fair?: FairPlace;
}

export function pickWireOptions(options: RunOptions): WireRunOptions {
  const out: Record<string, unknown> = {};
  for (const k of ["select", "maxIterations", "errorHandling", "force", "unknownValues", "budget"] as const)
    if (options[k] !== undefined) out[k] = options[k];
  return out as WireRunOptions;
}

/** An error as plain data: tag, name, message, stack and its own plain fields. */
export interface WireError {
  readonly tag: string;
  readonly name: string;
  readonly message: string;
  readonly stack?: string;
  readonly fields: Record<string, unknown>;
}

export function errorToWire(error: unknown): WireError {
  if (error instanceof Error) {
    const e = error as Error & { _tag?: unknown };
    const fields: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(e))
      if (k !== "_tag" && k !== "name" && k !== "message" && k !== "stack" && isPlain(v)) fields[k] = v;
    return {
      tag: typeof e._tag === "string" ? e._tag : e.name,
      name: e.name,
      message: e.message,
      ...(e.stack === undefined ? {} : { stack: e.stack }),
      fields,
    };
  }
  return { tag: "UnknownError", name: "Error", message: String(error), fields: {} };
}

function isPlain(v: unknown): boolean {
  const t = typeof v;
  return v === null || t === "string" || t === "number" || t === "boolean" || (Array.isArray(v) && v.every(isPlain));
}

export function errorFromWire(wire: WireError): RemoteRunError {
  return new RemoteRunError({
    tag: wire.tag,
    name: wire.name,
    message: wire.message,
    fields: wire.fields,
    ...(wire.stack === undefined ? {} : { stack: wire.stack }),
  });
}

/** Replaces Error objects (which a serializer may refuse) by their wire form, one level deep. */
function withPlainErrors(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(record)) out[k] = v instanceof Error ? errorToWire(v) : v;
  return out;
}

export function encodeEvent(serializer: Serializer, event: object): string {
  return safeSerialize(serializer, withPlainErrors(event as Record<string, unknown>));
}

export function encodeResult(serializer: Serializer, result: RunResult): string {
  return safeSerialize(serializer, {
    status: result.status,
    values: result.values,
    workflowId: result.workflowId,
    runId: result.runId,
    ...(result.pause === undefined ? {} : { pause: result.pause }),
    ...(result.error === undefined ? {} : { error: errorToWire(result.error) }),
    ...(result.usage === undefined ? {} : { usage: result.usage }),
  });
}

/** A map's result: its status and every item's result, in item order. */
export function encodeMapResult(
  serializer: Serializer,
  map: { readonly status: RunResult["status"]; readonly results: readonly RunResult[] },
): string {
  return safeSerialize(serializer, {
    status: map.status,
    results: map.results.map((r) => ({
      status: r.status,
      values: r.values,
      workflowId: r.workflowId,
      runId: r.runId,
      ...(r.error === undefined ? {} : { error: r.error }),
    })),
  });
}

/** The plain form of one item of a map's result (its error as the checkpointer stored it). */
export interface WireMapItem {
  readonly status: RunResult["status"];
  readonly values: Record<string, unknown>;
  readonly workflowId: string;
  readonly runId: string;
  readonly error?: { readonly tag?: string; readonly name: string; readonly message: string };
}

export function decodeResult(serializer: Serializer, text: string): RunResult {
  const r = serializer.deserialize(text) as {
    status: RunResult["status"];
    values: Record<string, unknown>;
    workflowId: string | undefined;
    runId: string;
    pause?: RunResult["pause"];
    error?: WireError;
    usage?: RunResult["usage"];
  };
  return new RunResult({
    status: r.status,
    values: r.values,
    workflowId: r.workflowId,
    runId: r.runId,
    ...(r.pause === undefined ? {} : { pause: r.pause }),
    ...(r.error === undefined ? {} : { error: errorFromWire(r.error) }),
    ...(r.usage === undefined ? {} : { usage: r.usage }),
  });
}

/** The checkpointer's serializer (Dates, Maps, … survive); JSON with errors flattened when it refuses a value. */
function safeSerialize(serializer: Serializer, value: unknown): string {
  try {
    return serializer.serialize(value);
  } catch {
    const plain: unknown = JSON.parse(JSON.stringify(value, (_k, v) => (v instanceof Error ? errorToWire(v) : v)));
    return serializer.serialize(plain);
  }
}

/** One item of a map's result, as a `RunResult` (its error as a `RemoteRunError`). */
export function decodeMapItem(r: WireMapItem): RunResult {
  return new RunResult({
    status: r.status,
    values: r.values,
    workflowId: r.workflowId,
    runId: r.runId,
    ...(r.error === undefined
      ? {}
      : {
          error: errorFromWire({
            tag: r.error.tag ?? r.error.name,
            name: r.error.name,
            message: r.error.message,
            fields: {},
          }),
        }),
  });
}
