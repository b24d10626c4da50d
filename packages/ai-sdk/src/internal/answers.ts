/**
 * Checks an answer to a pause before it is stored: the key must be the pending pause's, and the value must match
 * the schema the graph declares for it (an explicit one, else the interrupt's `schema` and the zod input schema of
 * every node that reads it).
 */
import type { Graph } from "@graph/core";
import { type ZodType, z } from "zod";
import { ChatRequestError } from "../errors.js";

export interface PendingPause {
  readonly nodeName: string;
  readonly responseKey: string;
  readonly value: unknown;
  /** Which visit of the interrupt (set with a checkpointer): an answer naming it is taken only while it is pending. */
  readonly visit?: number;
}

/** The run option that makes an answer conditional on its pause (nothing when the pause has no visit). */
export function answering(pause: PendingPause): { answering?: { nodeName: string; visit: number } } {
  return pause.visit === undefined ? {} : { answering: { nodeName: pause.nodeName, visit: pause.visit } };
}

/** The zod schemas the answer under `responseKey` must satisfy. */
function answerSchemas(
  graph: Graph,
  pause: PendingPause,
  explicit: Readonly<Record<string, ZodType>> | undefined,
): ZodType[] {
  const own = explicit?.[pause.responseKey] ?? explicit?.[pause.nodeName];
  if (own !== undefined) return [own];
  const schemas: ZodType[] = [];
  // The interrupt's own `schema` first (the runtime checks it too), then the schemas of the nodes that read it.
  const paused = graph.nodes.get(pause.nodeName);
  if (paused?.kind === "interrupt" && paused.answerSchema !== undefined) schemas.push(paused.answerSchema);
  for (const node of graph.nodes.values()) {
    const schemaOf = (node as { inputSchema?: (name: string) => ZodType | undefined }).inputSchema;
    if (typeof schemaOf !== "function" || !node.inputs.includes(pause.responseKey)) continue;
    const schema = schemaOf.call(node, pause.responseKey);
    if (schema !== undefined) schemas.push(schema);
  }
  return schemas;
}

/** The answer as the schemas parse it (zod may transform it), or a `ChatRequestError` saying what is wrong. */
export function checkAnswer(
  graph: Graph,
  workflowId: string,
  pause: PendingPause | undefined,
  answer: { readonly responseKey: string; readonly value: unknown; readonly visit?: number | undefined },
  explicit: Readonly<Record<string, ZodType>> | undefined,
): unknown {
  if (pause === undefined)
    throw new ChatRequestError(
      "no_pending_pause",
      `Workflow '${workflowId}' is not waiting for an answer, so '${answer.responseKey}' was not stored.\n  How to fix: send a message to start a turn, or answer only while a data-node-suspense part is pending.`,
      { workflowId },
    );
  // An answer for an earlier visit (the pause it saw was settled, and the workflow paused there again) is stale.
  if (answer.visit !== undefined && pause.visit !== undefined && answer.visit !== pause.visit)
    throw new ChatRequestError(
      "stale_answer",
      `Workflow '${workflowId}' is no longer paused at the pause this answer is for (visit ${answer.visit}): it waits at '${pause.nodeName}' (visit ${pause.visit}); nothing was stored.\n  How to fix: reconnect to show the current pause, and answer that one.`,
      { workflowId },
    );
  if (answer.responseKey !== pause.responseKey)
    throw new ChatRequestError(
      "wrong_response_key",
      `Workflow '${workflowId}' waits for '${pause.responseKey}' (interrupt '${pause.nodeName}'), not '${answer.responseKey}'; nothing was stored.\n  How to fix: answer with responseKey '${pause.responseKey}'.`,
      { workflowId },
    );
  let value = answer.value;
  for (const schema of answerSchemas(graph, pause, explicit)) {
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) =>
        i.path.length > 0 ? `${i.path.join(".")}: ${i.message}` : i.message,
      );
      throw new ChatRequestError(
        "invalid_answer",
        `The answer to '${pause.nodeName}' (${pause.responseKey}) does not match its schema: ${issues.join("; ")}. Nothing was stored; the workflow still waits.`,
        { workflowId, issues },
      );
    }
    value = parsed.data;
  }
  return value;
}

/**
 * The form an MCP elicitation asks for (a flat object of primitive fields, as the protocol requires) and how to turn
 * what the client sends back into the answer. An object schema of primitives is asked for as is; anything else as
 * one `answer` field (JSON text when the schema is not a primitive).
 */
export function elicitationSchema(
  graph: Graph,
  pause: PendingPause,
  explicit: Readonly<Record<string, ZodType>> | undefined,
): { requestedSchema: Record<string, unknown>; answer: (content: Record<string, unknown>) => unknown } {
  const schema = answerSchemas(graph, pause, explicit)[0];
  const json =
    schema === undefined
      ? {}
      : (z.toJSONSchema(schema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>);
  const primitive = (s: unknown) =>
    typeof s === "object" &&
    s !== null &&
    ["string", "number", "integer", "boolean"].includes(String((s as { type?: unknown }).type));
  const properties = json.properties as Record<string, unknown> | undefined;
  if (json.type === "object" && properties !== undefined && Object.values(properties).every(primitive))
    return {
      requestedSchema: {
        type: "object",
        properties,
        ...(Array.isArray(json.required) ? { required: json.required } : {}),
      },
      answer: (content) => content,
    };
  if (primitive(json)) {
    const { $schema: _, ...field } = json;
    return {
      requestedSchema: { type: "object", properties: { answer: field }, required: ["answer"] },
      answer: (c) => c.answer,
    };
  }
  return {
    requestedSchema: {
      type: "object",
      properties: { answer: { type: "string", description: `The answer to '${pause.nodeName}' as JSON` } },
      required: ["answer"],
    },
    answer: (content) => {
      try {
        return JSON.parse(String(content.answer));
      } catch {
        return content.answer;
      }
    },
  };
}
