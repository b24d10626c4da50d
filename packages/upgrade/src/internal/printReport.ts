import type { UpgradeReport } from "../checkWorkflows.js";

/** The human-readable form of a report: one block per workflow, its reasons indented, a summary line. */
export function formatReport(report: UpgradeReport, store: string): string {
  const { graph, workflows, summary } = report;
  const lines = [
    `upgrade-check: graph '${graph.name}'${graph.label === undefined ? "" : ` ${graph.label}`} (${graph.hash.slice(0, 12)}) against ${store}`,
  ];
  const width = Math.max(0, ...workflows.map((w) => w.workflowId.length));
  for (const w of workflows) {
    const from = w.from.label ?? w.from.hash.slice(0, 12);
    lines.push(`  ${w.workflowId.padEnd(width)}  ${w.status.padEnd(7)}  ${w.verdict}  (from ${from})`);
    for (const r of w.reasons) lines.push(`      ${w.blockers.includes(r) ? "✗" : "-"} ${r}`);
    for (const m of w.migration) lines.push(`      → migration: ${m}`);
  }
  if (workflows.length === 0) lines.push("  (no unfinished workflows of this graph)");
  if (report.otherGraphs > 0) lines.push(`  ${report.otherGraphs} unfinished workflow(s) of other graphs not checked`);
  for (const u of report.unreadable) lines.push(`  ! ${u.id}: unreadable (${u.error})`);
  lines.push(
    `${workflows.length} unfinished: ${summary.resumable} resumable, ${summary["resumable-with-migration"]} resumable with migration, ${summary.blocked} blocked`,
  );
  return `${lines.join("\n")}\n`;
}
