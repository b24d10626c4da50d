import type { StepRecord, WorkflowRecord } from "@graph/checkpoint";
import type { AnyNode, Graph } from "@graph/core";
import { diffGraphs, type GraphChange } from "../diff.js";
import { drop, type Migration } from "../migrations.js";
import type { GraphStructure } from "../structure.js";
import { describeValue, type History, readHistory, type StoredValue } from "./history.js";

/** What a migration will write: new values (with the versions of what they were made from) and a pause change. */
export interface MigrationPlan {
  readonly values: Readonly<Record<string, unknown>>;
  readonly consumed: Readonly<Record<string, number>>;
  readonly pause?: {
    readonly from: string;
    readonly value: unknown;
    /** The interrupt taking the pause over and its response key; absent: the pause is dropped. */
    readonly to?: { readonly nodeName: string; readonly responseKey: string };
  };
  /** Human-readable lines: what the migration does. */
  readonly actions: readonly string[];
}

export interface Assessment {
  readonly changes: readonly GraphChange[];
  readonly reasons: readonly string[];
  readonly blockers: readonly string[];
  readonly plan: MigrationPlan;
  readonly history: History;
}

const quote = (names: readonly string[]) => names.map((n) => `'${n}'`).join(", ");

/** A JSON Schema in a few words: its `type` (or `const` / `enum`), else its JSON, shortened. */
function describeType(schema: unknown): string {
  const s = schema as { type?: unknown; const?: unknown; enum?: unknown } | null;
  if (typeof s?.type === "string") return s.type;
  if (s?.const !== undefined) return JSON.stringify(s.const);
  const text = JSON.stringify({ ...(s ?? {}), $schema: undefined });
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** The zod-like schemas the new graph has for a value: its producer's output schema, its consumers' input schemas. */
function schemasFor(graph: Graph, value: string): Array<{ where: string; safeParse: (v: unknown) => ParseResult }> {
  const found: Array<{ where: string; safeParse: (v: unknown) => ParseResult }> = [];
  for (const node of graph.nodes.values()) {
    if (node.kind !== "function") continue;
    const spec = node.spec as {
      readonly inputs: readonly Port[];
      readonly outputs: readonly Port[];
      readonly outputSchemas?: Readonly<Record<string, Schema>>;
      readonly schemas?: Readonly<Record<string, Schema>>;
    };
    // Schemas are keyed by the node's own (original) port names; `value` is the public (renamed) name.
    const outPort = spec.outputs.find((p) => p.name === value);
    const out = outPort === undefined ? undefined : spec.outputSchemas?.[outPort.original];
    if (out !== undefined)
      found.push({ where: `the output schema of node '${node.name}'`, safeParse: (v) => out.safeParse(v) });
    const port = spec.inputs.find((p) => p.name === value);
    const input = port === undefined ? undefined : spec.schemas?.[port.original];
    if (input !== undefined)
      found.push({ where: `the input schema of node '${node.name}'`, safeParse: (v) => input.safeParse(v) });
  }
  return found;
}
interface Port {
  readonly name: string;
  readonly original: string;
}
interface ParseResult {
  readonly success: boolean;
  readonly error?: { readonly issues?: ReadonlyArray<{ readonly message: string }> };
}
interface Schema {
  safeParse(value: unknown): ParseResult;
}

/**
 * Classifies every change between the stored workflow's graph and `graph`, and plans the migration. Pure: it
 * reads, and runs the migrations' transforms on copies of the stored values.
 */
export function assess(
  workflow: WorkflowRecord,
  steps: readonly StepRecord[],
  stored: GraphStructure,
  graph: Graph,
  migrations: readonly Migration[],
): Assessment {
  const history = readHistory(steps);
  const changes = diffGraphs(stored, graph);
  const reasons: string[] = [];
  const blockers: string[] = [];
  const block = (text: string) => {
    blockers.push(text);
    reasons.push(text);
  };
  const from = stored.label ?? stored.hash.slice(0, 12);
  const apply = migrations.filter(
    (m) => m.from === stored.hash || (stored.label !== undefined && m.from === stored.label),
  );
  const finished = (name: string) => history.last.get(name)?.status === "completed";

  // Values after the migration: renames, then transforms.
  const state = new Map<string, StoredValue>(history.state);
  const values: Record<string, unknown> = {};
  const consumed: Record<string, number> = {};
  const actions: string[] = [];
  for (const m of apply) {
    for (const [old, renamed] of Object.entries(m.rename ?? {})) {
      const v = state.get(old);
      if (v === undefined) {
        reasons.push(
          `rename '${old}' → '${renamed}': nothing is stored under '${old}' yet, so there is nothing to move.`,
        );
        continue;
      }
      state.set(renamed, v);
      values[renamed] = v.value;
      consumed[old] = v.version;
      actions.push(`rename '${old}' → '${renamed}'`);
    }
    for (const [name, fn] of Object.entries(m.transform ?? {}) as Array<[string, (old: unknown) => unknown]>) {
      const v = state.get(name);
      if (v === undefined) {
        reasons.push(`transform '${name}': nothing is stored under '${name}' yet, so there is nothing to transform.`);
        continue;
      }
      try {
        const next = fn(structuredClone(v.value));
        state.set(name, { value: next, version: v.version });
        values[name] = next;
        consumed[name] = v.version;
        actions.push(`transform '${name}'`);
      } catch (error) {
        block(`the migration's transform of '${name}' threw: ${(error as Error)?.message ?? String(error)}.`);
      }
    }
  }

  for (const change of changes) {
    switch (change.kind) {
      case "node-changed": {
        const step = history.last.get(change.node);
        if (change.nodeKind === "graph" && step !== undefined && step.status !== "completed") {
          block(
            `nested graph '${change.node}' changed while its child workflow is unfinished (${step.status}): its stored steps belong to the old nested graph. Finish the workflow on the old code or start a new one.`,
          );
        } else if (step?.status === "completed")
          reasons.push(
            `node '${change.node}' changed; it already finished, so its stored outputs are kept (it runs again only if one of its inputs changes).`,
          );
        else reasons.push(`node '${change.node}' changed; it has not finished, so it runs with the new code.`);
        break;
      }
      case "node-added":
        reasons.push(`node '${change.node}' is new: it runs once its inputs are there.`);
        break;
      case "node-removed": {
        const ran = finished(change.node);
        reasons.push(
          ran
            ? `node '${change.node}' was removed: its finished step stays in the history${change.outputs.length > 0 ? ` and its outputs ${quote(change.outputs)} stay stored (in the results only if the new graph produces or reads them)` : ""}.`
            : `node '${change.node}' was removed; it had not finished, so nothing of it is kept.`,
        );
        break;
      }
      case "value-renamed":
      case "value-added": {
        const value = change.kind === "value-renamed" ? change.to : change.value;
        if (!finished(change.node) || state.has(value)) {
          if (change.kind === "value-renamed")
            reasons.push(`node '${change.node}' now outputs '${change.to}' instead of '${change.from}'.`);
          break;
        }
        const hint =
          change.kind === "value-renamed" ? `rename: { ${change.from}: "${change.to}" }` : `transform: { ${value}: … }`;
        block(
          `node '${change.node}' finished under the stored version, which did not write '${value}'; the new version needs it and won't run '${change.node}' again. Add a migration { from: "${from}", ${hint} }.`,
        );
        break;
      }
      case "value-type-changed": {
        const stored = state.get(change.value);
        const fits =
          stored === undefined
            ? "nothing is stored under it yet"
            : schemasFor(graph, change.value).every((schema) => schema.safeParse(stored.value).success)
              ? "the stored value fits the new type"
              : "the stored value does not fit it (see below)";
        reasons.push(
          `the type of '${change.value}' (${change.port} of node '${change.node}') changed from ${describeType(change.before)} to ${describeType(change.after)}; ${fits}.`,
        );
        break;
      }
      case "value-removed":
        reasons.push(
          `node '${change.node}' no longer outputs '${change.value}'; a stored '${change.value}' stays in the history.`,
        );
        break;
      case "gate-targets-changed": {
        const decision = history.last.get(change.node)?.decision;
        const chosen =
          decision === undefined || decision === null ? [] : typeof decision === "string" ? [decision] : decision;
        const lost = chosen.filter((t) => change.removed.includes(t));
        if (lost.length > 0 && workflow.status !== "completed")
          block(
            `gate '${change.node}' decided ${quote(lost)}, which the new version removed from its targets. Finish the workflow on the old code.`,
          );
        else
          reasons.push(
            `gate '${change.node}' targets changed (${[...change.added.map((t) => `+${t}`), ...change.removed.map((t) => `−${t}`)].join(", ")}); its stored decision stays valid.`,
          );
        break;
      }
    }
  }

  // Types: every stored value the new graph has a schema for must fit it (after the migration).
  for (const [name, v] of state) {
    for (const schema of schemasFor(graph, name)) {
      const result = schema.safeParse(v.value);
      if (result.success) continue;
      const issue = result.error?.issues?.[0]?.message;
      block(
        `the stored '${name}' (${describeValue(v.value)}) does not fit ${schema.where}${issue === undefined ? "" : ` (${issue})`}: its type changed. Add a migration { from: "${from}", transform: { ${name}: (old) => … } }.`,
      );
    }
  }

  const pause = planPause(workflow, graph, apply, from, reasons, block);
  if (pause !== undefined)
    actions.push(
      pause.to === undefined
        ? `drop the pause at '${pause.from}'`
        : `move the pause '${pause.from}' → '${pause.to.nodeName}'`,
    );
  const plan: MigrationPlan = { values, consumed, actions, ...(pause === undefined ? {} : { pause }) };
  return { changes, reasons, blockers, plan, history };
}

/** The pending pause under the new graph: kept, moved or dropped by a migration, or a blocker. */
function planPause(
  workflow: WorkflowRecord,
  graph: Graph,
  migrations: readonly Migration[],
  from: string,
  reasons: string[],
  block: (text: string) => void,
): MigrationPlan["pause"] {
  const pause = workflow.status === "paused" ? workflow.pause : undefined;
  if (pause === undefined) return undefined;
  const name = pause.nodeName;
  const mapped = migrations.map((m) => m.pause?.[name]).findLast((m) => m !== undefined);
  if (mapped === drop) return { from: name, value: pause.value };
  if (typeof mapped === "string") {
    const target = graph.nodes.get(mapped);
    if (target?.kind !== "interrupt") {
      block(
        `the migration moves the pause at '${name}' to '${mapped}', which is not an interrupt of the new version${interruptList(graph)}.`,
      );
      return undefined;
    }
    return { from: name, value: pause.value, to: { nodeName: mapped, responseKey: target.outputs[0]! } };
  }
  const top = name.split("/")[0]!;
  const node: AnyNode | undefined = graph.nodes.get(top);
  const fix = `Add a migration { from: "${from}", pause: { "${name}": "<new interrupt>" } } or { pause: { "${name}": drop } } (continue without the answer).`;
  if (node === undefined) block(`the workflow is paused at '${name}', which the new version removed. ${fix}`);
  else if (top === name && node.kind !== "interrupt")
    block(`the workflow is paused at '${name}', which is no longer an interrupt in the new version. ${fix}`);
  else if (top === name && node.outputs[0] !== pause.responseKey)
    block(
      `the workflow is paused at '${name}' waiting for '${pause.responseKey}'; the new '${name}' asks for '${node.outputs[0]}'. ${fix}`,
    );
  else reasons.push(`the pause at '${name}' is still there: answer '${pause.responseKey}' to resume.`);
  return undefined;
}

const interruptList = (graph: Graph) => {
  const names = [...graph.nodes.values()].filter((n) => n.kind === "interrupt").map((n) => n.name);
  return names.length === 0 ? " (it has none)" : ` (its interrupts: ${quote(names)})`;
};
