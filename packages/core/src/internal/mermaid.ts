import { END } from "../END.js";
import type { Graph } from "../Graph.js";
import type { InterruptNode } from "../interrupt.js";

/**
 * Mermaid entity codes for every character that could end a label or be read as markup. Mermaid turns `#lt;` into
 * `&lt;` before it builds the label, so the browser shows the character and never parses it as HTML, whatever
 * Mermaid's `securityLevel` and however the SVG is inserted. Also escaped: `#` and `&` (so a name that looks like
 * an entity shows as typed), the backtick (a label in backticks is Mermaid markdown), and `:` (Mermaid rewrites
 * any line holding `style…:…#…;` before parsing, which would garble a label's entity codes).
 */
const ENTITIES: Readonly<Record<string, string>> = {
  '"': "#quot;",
  "#": "#35;",
  "&": "#amp;",
  "<": "#lt;",
  ">": "#gt;",
  "`": "#96;",
  ":": "#58;",
};

/** A quoted Mermaid label showing `text` literally. Names can't hold newlines or control characters (core rejects them). */
const label = (text: string): string => `"${text.replace(/["#&<>`:]/g, (c) => ENTITIES[c]!)}"`;

function shape(id: string, name: string, kind: string): string {
  switch (kind) {
    case "route":
    case "branch":
      return `${id}{${label(name)}}`;
    case "interrupt":
      return `${id}[/${label(name)}/]`;
    default:
      return `${id}[${label(name)}]`;
  }
}

/** A timed pause says what it waits for and how long in its box: "pickup (timeout 1m)", "cool-off (sleep 1m)". */
function timedLabel(n: InterruptNode): string {
  const t = n.timing;
  if (t === undefined) return n.name;
  const time = t.untilInput === true ? `until ${n.inputName}` : t.afterMs === undefined ? "" : showMs(t.afterMs);
  if (t.wait === "sleep") return `${n.name} (sleep ${time})`;
  const what = t.wait === "event" ? `event ${t.event}` : "answer";
  return `${n.name} (${what}${time === "" ? "" : `, timeout ${time}`})`;
}

/** The edge that carries a pause's timed-out flag is the timeout path: drawn dashed, labelled "timeout". */
function timeoutEdge(g: Graph, from: string, values: readonly string[]): string | undefined {
  const n = g.nodes.get(from);
  if (n?.kind !== "interrupt" || n.timedOutKey === undefined || !values.includes(n.timedOutKey)) return undefined;
  return `timeout: ${values.join(", ")}`;
}

function showMs(ms: number): string {
  for (const [unit, size] of [
    ["d", 86_400_000],
    ["h", 3_600_000],
    ["m", 60_000],
    ["s", 1_000],
  ] as const)
    if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

/** Renders a graph (and nested graphs as subgraphs) as a Mermaid flowchart. */
export function renderMermaid(graph: Graph): string {
  const lines = ["flowchart TD"];
  const inputIds = new Map<string, string>();

  const emit = (g: Graph, prefix: string, indent: string): Map<string, string> => {
    const ids = new Map<string, string>();
    // Each level draws its own END: a nested graph's END finishes that subgraph, not the outer run.
    const endId = prefix === "" ? "graph_END" : `${prefix}END`;
    let endUsed = false;
    let i = 0;
    for (const n of g.nodes.values()) ids.set(n.name, `${prefix}n${i++}`);
    for (const n of g.nodes.values()) {
      const id = ids.get(n.name)!;
      if (n.kind === "graph") {
        const title = n.mapOverConfig ? `${n.name} (map over ${n.mapOverConfig.params.join(", ")})` : n.name;
        lines.push(`${indent}subgraph ${id} [${label(title)}]`);
        emit(n.graph, `${id}_`, `${indent}  `);
        lines.push(`${indent}end`);
      } else {
        lines.push(`${indent}${shape(id, n.kind === "interrupt" ? timedLabel(n) : n.name, n.nodeType)}`);
      }
    }
    for (const e of g.edges) {
      const from = ids.get(e.from)!;
      const to = ids.get(e.to)!;
      const timeout = timeoutEdge(g, e.from, e.valueNames);
      if (timeout !== undefined) lines.push(`${indent}${from} -.->|${label(timeout)}| ${to}`);
      else if (e.kind === "data") lines.push(`${indent}${from} -->|${label(e.valueNames.join(", "))}| ${to}`);
      else if (e.kind === "ordering") lines.push(`${indent}${from} ==> ${to}`);
      else {
        const gate = g.nodes.get(e.from)!;
        const cond =
          gate.nodeType === "branch"
            ? (gate as unknown as { whenTrue: unknown }).whenTrue === e.to
              ? "true"
              : "false"
            : e.to;
        lines.push(`${indent}${from} -.->|${label(cond)}| ${to}`);
      }
    }
    for (const n of g.nodes.values()) {
      if (n.kind !== "gate" || !n.targets.includes(END)) continue;
      endUsed = true;
      const cond =
        n.nodeType === "branch" ? ((n as unknown as { whenTrue: unknown }).whenTrue === END ? "true" : "false") : "END";
      lines.push(`${indent}${ids.get(n.name)} -.->|${label(cond)}| ${endId}`);
    }
    if (endUsed) lines.push(`${indent}${endId}((END))`);
    if (prefix === "") {
      for (const input of g.inputs.all) {
        const id = `in_${inputIds.size}`;
        inputIds.set(input, id);
        lines.push(`${indent}${id}([${label(input)}])`);
        for (const consumer of g.analysis.consumers.get(input) ?? []) {
          const wired = g.analysis.wiredProducers.get(consumer)?.get(input);
          if (wired !== undefined && wired.size > 0 && ![...wired].every((p) => g.analysis.isFeedback(p, consumer)))
            continue;
          lines.push(`${indent}${id} -.-> ${ids.get(consumer)}`);
        }
      }
    }
    return ids;
  };
  emit(graph, "", "  ");
  return lines.join("\n");
}
