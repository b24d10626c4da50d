import type { Graph } from "@graph/core";
import { type AnswerSchema, jsonSchemaOf } from "./internal/schema.js";
import { preview } from "./preview.js";

/**
 * How the page asks for an interrupt's answer: a form from its schema (`schema`, validated by the server), the
 * Approve / Reject / text buttons of a `toAnswer` option (`buttons`), or free JSON with a preview (`json`).
 */
export type AnswerForm =
  | { readonly kind: "schema"; readonly schema: Record<string, unknown> | undefined }
  | { readonly kind: "buttons" }
  | { readonly kind: "json" };

/** One node of a graph view: where it is drawn (`id` in the Mermaid text) and what it is. */
export interface ViewNode {
  /** Path from the root graph: `approval`, `research/read`. */
  readonly path: string;
  /** The Mermaid id of the node (a subgraph id for GraphNodes), or undefined when it could not be located. */
  readonly id: string | undefined;
  readonly type: string;
  /** True for a GraphNode with `mapOver` (the page shows `done/total`). */
  readonly mapped: boolean;
  /** The label drawn for it (the name; a mapped GraphNode adds what it maps over). The page sets it as text. */
  readonly label: string;
  /** Interrupts only: how the page asks for the answer. */
  readonly answer?: AnswerForm;
}

/** One value a run of the graph can be given: the page's "start a run" form has a field per input. */
export interface ViewInput {
  readonly name: string;
  /** `required`: no edge, bound value or default; `optional`: bound or defaulted; `seed`: a loop's first value. */
  readonly kind: "required" | "optional" | "seed";
  /** JSON Schema of the value, from the first consuming node's zod input schema (when it has one). */
  readonly schema?: Record<string, unknown>;
  /** The bound value or the explicit default, previewed as JSON. */
  readonly defaultValue?: string;
}

/** What the page needs to draw a graph: the Mermaid text from `toMermaid()` and its nodes by path. */
export interface GraphView {
  readonly name: string;
  readonly definitionHash: string;
  /**
   * `toMermaid()` for the layout only: in labels `<` and `>` become `‹` and `›`, `&` an entity code, line breaks
   * spaces. The page writes each node's true label (`ViewNode.label`) as text into the drawing.
   */
  readonly mermaid: string;
  readonly nodes: readonly ViewNode[];
  readonly inputs: readonly ViewInput[];
}

/** Options of {@link graphView}. */
export interface GraphViewOptions {
  /** Answer schemas by interrupt path (see `DevtoolsOptions.answerSchemas`). */
  readonly answerSchemas?: Readonly<Record<string, AnswerSchema>>;
  /** True when a `toAnswer` option turns buttons into answers (interrupts with no schema then show buttons). */
  readonly buttons?: boolean;
}

/**
 * Builds the page's view of a graph. Node ids follow `toMermaid()`'s numbering (`n<i>` per level, a subgraph's
 * nodes prefixed with its id and `_`); every id is checked against the text, so a change in the renderer leaves
 * nodes unlocated (listed in the side panel) instead of colouring the wrong shapes.
 *
 * @example
 * ```ts
 * graphView(supportGraph).nodes.find((n) => n.path === "approval"); // { path: "approval", id: "n7", type: "interrupt", … }
 * ```
 */
export function graphView(graph: Graph, options: GraphViewOptions = {}): GraphView {
  const mermaid = escapeLabels(graph.toMermaid());
  const declared = new Set<string>();
  for (const line of mermaid.split("\n")) {
    const m = /^\s*(?:subgraph\s+)?([A-Za-z0-9_]+)\s*(?:\[|\{|\(|$)/.exec(line);
    if (m !== null) declared.add(m[1]!);
  }
  const nodes: ViewNode[] = [];
  const walk = (g: Graph, pathPrefix: string, idPrefix: string) => {
    let i = 0;
    for (const n of g.nodes.values()) {
      const id = `${idPrefix}n${i++}`;
      const path = `${pathPrefix}${n.name}`;
      const mapOver = n.kind === "graph" ? n.mapOverConfig : undefined;
      // A frames pipeline runs its inner graph once per frame, like a map's items.
      const frames = n.kind === "graph" ? n.framesConfig : undefined;
      nodes.push({
        path,
        id: declared.has(id) ? id : undefined,
        type: n.nodeType,
        mapped: mapOver !== undefined || frames !== undefined,
        label: mapOver
          ? `${n.name} (map over ${mapOver.params.join(", ")})`
          : frames
            ? `${n.name} (frames, window ${frames.window})`
            : n.name,
        ...(n.kind === "interrupt" ? { answer: answerForm(path, options, n.answerSchema) } : {}),
      });
      if (n.kind === "graph") walk(n.graph, `${path}/`, `${id}_`);
    }
  };
  walk(graph, "", "");
  return { name: graph.name ?? "graph", definitionHash: graph.definitionHash, mermaid, nodes, inputs: inputsOf(graph) };
}

function answerForm(path: string, options: GraphViewOptions, own: AnswerSchema | undefined): AnswerForm {
  // The option overrides the interrupt's own `schema`.
  const schema = options.answerSchemas?.[path] ?? own;
  if (schema !== undefined) return { kind: "schema", schema: jsonSchemaOf(schema) };
  return options.buttons === true ? { kind: "buttons" } : { kind: "json" };
}

/**
 * Node names may hold `<`, `>`, `&`, quotes and line breaks. Mermaid reads `<img …>` in a label as markup (its strict
 * mode then deletes it: an empty box), and a line break ends the statement. Labels are the only quoted text
 * `toMermaid()` writes (a quote inside one is already `#quot;`): each is rewritten with look-alikes of the same
 * width, so the layout fits the true label the page puts in as text.
 */
function escapeLabels(text: string): string {
  return text.replace(/"[^"]*"/g, (label) =>
    label
      .replace(/&/g, "#amp;")
      .replace(/</g, "\u2039")
      .replace(/>/g, "\u203a")
      .replace(/\r\n|\r|\n/g, " "),
  );
}

function inputsOf(graph: Graph): ViewInput[] {
  const spec = graph.inputs;
  return [...spec.all].map((name) => {
    const kind = spec.required.has(name) ? "required" : spec.seeds.has(name) ? "seed" : "optional";
    const schema = inputSchema(graph, name);
    const fixed = Object.hasOwn(spec.bound, name) ? { value: spec.bound[name] } : explicitDefault(graph, name);
    return {
      name,
      kind,
      ...(schema === undefined ? {} : { schema }),
      ...(fixed === undefined ? {} : { defaultValue: preview(fixed.value, 2000) }),
    };
  });
}

function consumers(graph: Graph, name: string) {
  return (graph.analysis.consumers.get(name) ?? []).map((c) => graph.nodes.get(c)).filter((n) => n !== undefined);
}

/** The JSON Schema of the first consumer that declares a zod schema for `name` (nested graphs included). */
function inputSchema(graph: Graph, name: string): Record<string, unknown> | undefined {
  for (const n of consumers(graph, name)) {
    if (n.kind === "function") {
      const schema = n.inputSchema(name) as unknown as AnswerSchema | undefined;
      const json = schema === undefined ? undefined : jsonSchemaOf(schema);
      if (json !== undefined) return json;
    } else if (n.kind === "graph" && n.mapOverConfig === undefined) {
      const inner = n.innerInput(name);
      const json = inner === undefined ? undefined : inputSchema(n.graph, inner);
      if (json !== undefined) return json;
    }
  }
  return undefined;
}

function explicitDefault(graph: Graph, name: string): { readonly value: unknown } | undefined {
  for (const n of consumers(graph, name)) {
    if (n.kind === "function") {
      const d = n.defaultValue(name);
      if (d !== undefined) return d;
    }
  }
  return undefined;
}
