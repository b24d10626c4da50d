// The results table, printed as Markdown so it can be pasted into the README as-is.
import { type Cell, isCell, PEER_NAMES, type Peer, type Row, type Skipped } from "./results.js";
import { fmt } from "./timing.js";

function cellText(cell: Cell | Skipped, unit: string): string {
  if (!isCell(cell)) return "—";
  return cell.estimated === true ? `~${fmt(cell.value)} ${unit} (est.)` : `${fmt(cell.value)} ${unit}`;
}

function ratio(a: Cell | Skipped, b: Cell | Skipped): string {
  if (!isCell(a) || !isCell(b) || b.value === 0) return "—";
  const text = `${fmt(a.value / b.value)}×`;
  return a.estimated === true || b.estimated === true ? `~${text} (est.)` : text;
}

function targetText(r: Row): string {
  return r.targets.length === 0 ? "(info)" : r.targets.map((t) => t.description).join("; ");
}

function metText(r: Row): string {
  if (r.targets.length === 0) return "";
  return r.targets
    .map((t) => {
      const word = t.met === null ? "n/a" : t.met ? "yes" : "**NO**";
      return t.estimated && t.met !== null ? `${word} (est.)` : word;
    })
    .join("; ");
}

/** The peers that at least one row ran (their columns are shown only then). */
function peersIn(rows: readonly Row[]): Peer[] {
  return (Object.keys(PEER_NAMES) as Peer[]).filter((p) => rows.some((r) => r.peers?.[p] !== undefined));
}

const SKIPPED: Skipped = { skipped: "not run" };

export function renderTable(rows: readonly Row[]): string {
  const peers = peersIn(rows);
  const HEADER = [
    "workload",
    "ours",
    "floor",
    "LangGraph.js",
    ...peers.map((p) => PEER_NAMES[p]),
    "ours/floor",
    "LangGraph/ours",
    ...peers.map((p) => `${PEER_NAMES[p]}/ours`),
    "target",
    "met?",
  ];
  const lines = rows.map((r) => [
    r.label,
    cellText(r.ours, r.unit),
    cellText(r.floor, r.unit),
    cellText(r.langgraph, r.unit),
    ...peers.map((p) => cellText(r.peers?.[p] ?? SKIPPED, r.unit)),
    ratio(r.ours, r.floor),
    ratio(r.langgraph, r.ours),
    ...peers.map((p) => ratio(r.peers?.[p] ?? SKIPPED, r.ours)),
    targetText(r),
    metText(r),
  ]);
  const widths = HEADER.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  const format = (cells: readonly string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i]!)).join(" | ")} |`;
  return [format(HEADER), `|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`, ...lines.map(format)].join("\n");
}

/** CPU-time medians of the timing cells, when measured (they move less than wall time on a busy machine). */
function cpuNote(r: Row): string | undefined {
  const parts = (
    [
      ["ours", r.ours],
      ["floor", r.floor],
      ["LangGraph.js", r.langgraph],
      ...(Object.keys(PEER_NAMES) as Peer[]).map((p) => [PEER_NAMES[p], r.peers?.[p]] as const),
    ] as const
  ).flatMap(([name, c]) => (isCell(c) && c.cpu !== undefined ? [`${name} ${fmt(c.cpu)}`] : []));
  return parts.length === 0 ? undefined : `CPU time: ${parts.join(", ")} ${r.unit}`;
}

export function renderNotes(rows: readonly Row[]): string {
  return rows
    .map((r) => [...r.notes, ...(cpuNote(r) === undefined ? [] : [cpuNote(r)!])])
    .map((notes, i) => (notes.length === 0 ? "" : `- **${rows[i]!.label}**: ${notes.join("; ")}`))
    .filter((line) => line !== "")
    .join("\n");
}
