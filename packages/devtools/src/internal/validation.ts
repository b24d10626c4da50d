// Checks done before anything is stored or started, so a bad request from the page is a 400 with the reason and
// leaves no trace: an answer against its interrupt's schema, a run's values against the graph's inputs (and
// their zod schemas), a fork's edited values against what the checkpoint and the graph know.
import { closestName, type Graph } from "@graph/core";
import { DevtoolsError } from "../DevtoolsError.js";
import { type AnswerSchema, validate } from "./schema.js";

/** Validates an answer with its interrupt's schema; resolves with the parsed value (zod may coerce/default). */
export async function checkAnswer(schema: AnswerSchema | undefined, value: unknown, interrupt: string) {
  if (schema === undefined) return value;
  const result = await validate(schema, value);
  if (result.ok) return result.value;
  throw new DevtoolsError(
    `The answer to '${interrupt}' does not match its schema: ${result.issues.join("; ")}. Nothing was stored.\n  How to fix: send a value the schema accepts (the form on the page follows it).`,
    { issues: result.issues },
  );
}

function unknownNames(names: readonly string[], known: readonly string[], what: string): string[] {
  return names
    .filter((n) => !known.includes(n))
    .map((n) => {
      const near = closestName(n, known);
      return `'${n}' is not ${what}${near === undefined ? "" : ` (did you mean '${near}'?)`}`;
    });
}

/** The zod schema of the first node that reads `name` and declares one (through non-mapped nested graphs). */
function inputSchema(graph: Graph, name: string): AnswerSchema | undefined {
  for (const consumer of graph.analysis.consumers.get(name) ?? []) {
    const n = graph.nodes.get(consumer);
    if (n?.kind === "function") {
      const schema = n.inputSchema(name);
      if (schema !== undefined) return schema as unknown as AnswerSchema;
    } else if (n?.kind === "graph" && n.mapOverConfig === undefined) {
      const inner = n.innerInput(name);
      const schema = inner === undefined ? undefined : inputSchema(n.graph, inner);
      if (schema !== undefined) return schema;
    }
  }
  return undefined;
}

/** A new run's values: every required input given, no unknown name, each value accepted by its input schema. */
export async function checkRunValues(graph: Graph, values: Readonly<Record<string, unknown>>): Promise<void> {
  const spec = graph.inputs;
  const known = [...spec.all];
  const issues = unknownNames(Object.keys(values), known, "an input of this graph");
  for (const name of spec.required) if (!Object.hasOwn(values, name)) issues.push(`'${name}' is required`);
  for (const [name, value] of Object.entries(values)) {
    const schema = known.includes(name) ? inputSchema(graph, name) : undefined;
    if (schema === undefined) continue;
    const result = await validate(schema, value);
    if (!result.ok) issues.push(...result.issues.map((i) => `${name}: ${i}`));
  }
  if (issues.length > 0)
    throw new DevtoolsError(
      `Can't start graph '${graph.name ?? "graph"}': ${issues.join("; ")}.\n  How to fix: give every required input (inputs: ${known.join(", ") || "none"}).`,
      { issues },
    );
}

/** A fork's edited values must name values of the checkpoint's state or inputs of the graph. */
export function checkForkValues(
  graph: Graph,
  state: Readonly<Record<string, unknown>>,
  values: Readonly<Record<string, unknown>>,
  where: string,
): void {
  const known = [...new Set([...Object.keys(state), ...graph.inputs.all])];
  const issues = unknownNames(Object.keys(values), known, `a value of ${where}`);
  if (issues.length > 0)
    throw new DevtoolsError(`Can't fork ${where}: ${issues.join("; ")}.\n  How to fix: edit values the state has.`, {
      issues,
    });
}
