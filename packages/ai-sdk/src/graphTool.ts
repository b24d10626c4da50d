import type { Graph, InputsOf } from "@graph/core";
import type { Runner, RunResult } from "@graph/runtime";
import { type Tool, tool } from "ai";
import { z } from "zod";

/**
 * Options of {@link graphTool}.
 *
 * @example
 * ```ts
 * const options: GraphToolOptions = { runner, description: "Looks up an order by id", output: "order" };
 * ```
 */
export interface GraphToolOptions {
  readonly runner: Runner;
  /** What the model reads to decide when to call the tool. */
  readonly description: string;
  /**
   * The value(s) the tool returns: one name returns that value, a list returns an object of them. Default: the
   * graph's leaf outputs (values no node consumes), as an object.
   */
  readonly output?: string | readonly string[];
  /** The input schema. Default: built from the graph's inputs (see {@link graphInputSchema}). */
  readonly inputSchema?: z.ZodType;
  /** The workflow id of a call (to make calls durable and resumable). Default: a fresh id per call. */
  readonly workflowId?: (input: Readonly<Record<string, unknown>>, call: { readonly toolCallId: string }) => string;
}

/**
 * What a tool call returns when the graph paused at an interrupt: enough for the caller (or the model) to ask the
 * human and resume the workflow.
 */
export interface PausedToolResult {
  readonly status: "paused";
  readonly workflowId: string | undefined;
  readonly interrupt: string;
  readonly responseKey: string;
  readonly value: unknown;
  readonly howToResume: string;
}

/**
 * A zod object schema for a graph's inputs: required inputs required, inputs with a default (or a loop's first
 * value) optional, bound inputs left out. Each input takes the zod schema of the node that reads it when it has one
 * (`inputs: { orderId: z.string() }`), else any JSON value.
 *
 * @example
 * ```ts
 * import { Graph, node } from "@graph/core";
 * import { z } from "zod";
 * const lookup = node({ output: "order", inputs: { orderId: z.string() } }, ({ orderId }) => ({ id: orderId }));
 * graphInputSchema(new Graph([lookup])).parse({ orderId: "A-1" }); // { orderId: "A-1" }
 * ```
 */
export function graphInputSchema(graph: Graph): z.ZodObject {
  const shape: Record<string, z.ZodType> = {};
  const bound = new Set(Object.keys(graph.inputs.bound));
  for (const name of graph.inputs.all) {
    if (bound.has(name)) continue;
    const schema = schemaOf(graph, name) ?? z.unknown().describe(`${name} (any JSON value)`);
    shape[name] = graph.inputs.required.has(name) ? schema : schema.optional();
  }
  return z.object(shape);
}

function schemaOf(graph: Graph, input: string): z.ZodType | undefined {
  for (const node of graph.nodes.values()) {
    const lookup = (node as { inputSchema?: (name: string) => z.ZodType | undefined }).inputSchema;
    if (typeof lookup !== "function" || !node.inputs.includes(input)) continue;
    const schema = lookup.call(node, input);
    if (schema !== undefined) return schema;
  }
  return undefined;
}

/**
 * A graph as an AI SDK `tool()`: the model calls it with the graph's inputs, the graph runs on `runner`, and the
 * tool returns the chosen output(s). The call's abort signal stops the run. A run that pauses at an interrupt
 * returns a {@link PausedToolResult}; a failed run throws (the SDK reports a tool error).
 *
 * @example
 * ```ts
 * import { Graph, node } from "@graph/core";
 * import { generateText, stepCountIs, type LanguageModel } from "ai";
 * import { z } from "zod";
 * declare const model: LanguageModel;
 *
 * const lookup = node({ output: "order", inputs: { orderId: z.string() } }, ({ orderId }) => ({ id: orderId, status: "shipped" }));
 * const orders = new Graph([lookup], { name: "orders" });
 * const { text } = await generateText({
 *   model,
 *   tools: { lookupOrder: graphTool(orders, { runner, description: "Looks up an order by id", output: "order" }) },
 *   stopWhen: stepCountIs(3),
 *   prompt: "Where is order A-1?",
 * });
 * ```
 */
export function graphTool<G extends Graph>(graph: G, options: GraphToolOptions): Tool<InputsOf<G>, unknown> {
  const inputSchema = (options.inputSchema ?? graphInputSchema(graph)) as z.ZodType<InputsOf<G>>;
  const outputs = options.output ?? graph.leafOutputs;
  return tool<InputsOf<G>, unknown>({
    description: options.description,
    inputSchema,
    execute: async (input, { abortSignal, toolCallId }) => {
      const values = input as Readonly<Record<string, unknown>>;
      const workflowId = options.workflowId?.(values, { toolCallId });
      const result: RunResult = await options.runner.run(graph as Graph, {
        values,
        ...(workflowId === undefined ? {} : { workflowId }),
        ...(abortSignal === undefined ? {} : { signal: abortSignal }),
      });
      return toolResult(result, outputs);
    },
  });
}

function toolResult(result: RunResult, outputs: string | readonly string[]): unknown {
  if (result.status === "paused" && result.pause !== undefined) {
    const paused: PausedToolResult = {
      status: "paused",
      workflowId: result.workflowId,
      interrupt: result.pause.nodeName,
      responseKey: result.pause.responseKey,
      value: result.pause.value,
      howToResume: `Ask the user about ${JSON.stringify(result.pause.value)}, then run workflow '${result.workflowId}' again with { "${result.pause.responseKey}": <answer> }.`,
    };
    return paused;
  }
  if (result.status === "stopped") return { status: "stopped", workflowId: result.workflowId };
  const values = result.values as Record<string, unknown>;
  if (typeof outputs === "string") return values[outputs];
  return Object.fromEntries(outputs.filter((name) => name in values).map((name) => [name, values[name]]));
}
