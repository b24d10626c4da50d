/**
 * The workflow of the crash matrix (`crashMatrix.ts`): 21 saved steps with the constructs a resume has to get
 * right — a nested graph, a map over three items (each a child workflow with two nodes) and an interrupt. No loop:
 * every function runs once, so a stored step is exactly one committed execution under every retention (durability
 * `exit` keeps only the latest step per node, which would hide a loop's earlier iterations). Built the same way in the test process and in the child processes it kills (fixed-source node
 * functions, see `engineGraph.ts`), so either side can resume what the other started.
 *
 * Every user function calls `record(label)` right before it returns: the node's name, or `name[i]` inside map item
 * `i`. The same labels name the stored steps ({@link stepLabel}), which is how the matrix compares what ran with
 * what was committed.
 */
import { Graph, interrupt, node } from "@graph/core";
import type { Runner, RunResult } from "@graph/runtime";
import type { Recorder } from "./engineGraph.js";
import { ANSWER, trampoline } from "./engineGraph.js";

/** Map items of the workflow (child workflows `<id>/sections/0…2`). */
const MATRIX_ITEMS = 3;

/** The workflows of one run, as suffixes of the root id. */
export const MATRIX_WORKFLOWS: readonly string[] = [
  "",
  "/enrich",
  ...Array.from({ length: MATRIX_ITEMS }, (_, i) => `/sections/${i}`),
];

/** The user functions whose executions are counted (GraphNode, interrupt and input steps are not executions). */
const RECORDED = new Set([
  "load",
  "tokenize",
  "score",
  "weigh",
  "plan",
  "fetch",
  "shape",
  "merge",
  "refine",
  "verify",
  "summarize",
  "publish",
  "archive",
]);

/**
 * The label of a stored step of workflow `<root><suffix>` (`undefined` for steps that are not an execution of a
 * user function): the same string the node's `record` call logs.
 */
export function stepLabel(suffix: string, nodeName: string): string | undefined {
  if (!RECORDED.has(nodeName)) return undefined;
  const item = /^\/sections\/(\d+)$/.exec(suffix);
  return item === null ? nodeName : `${nodeName}[${item[1]}]`;
}

/** The values a run starts with (given once: resumes pass none, so the stored input step must be there). */
function matrixInputs(): Record<string, unknown> {
  return { topic: "crash matrix", startedAt: new Date(Date.UTC(2025, 1, 3, 4, 5, 6, 7)) };
}

interface Doc {
  readonly title: string;
  readonly createdAt: Date;
  readonly tags: Map<string, string>;
}

/**
 * `load` → `enrich` (nested: `tokenize` → `score` → `weigh`) → `plan` → `sections` (map over 3 parts, each
 * `fetch` → `shape`) → `merge` → `refine` → `verify` → `summarize` → `approval` (interrupt) → `publish` →
 * `archive`.
 */
export function matrixGraph(record: Recorder): Graph {
  const load = node(
    { name: "load", inputs: ["topic", "startedAt"], output: "doc" },
    trampoline(({ topic, startedAt }: { topic: string; startedAt: Date }): Doc => {
      const doc = { title: topic, createdAt: new Date(startedAt.getTime()), tags: new Map([["lang", "en"]]) };
      record("load");
      return doc;
    }),
  );
  const tokenize = node(
    { name: "tokenize", inputs: ["doc"], output: "tokens" },
    trampoline(({ doc }: { doc: Doc }) => {
      const tokens = doc.title.split(" ");
      record("tokenize");
      return tokens;
    }),
  );
  const score = node(
    { name: "score", inputs: ["tokens"], output: "scores" },
    trampoline(({ tokens }: { tokens: string[] }) => {
      const scores = new Map(tokens.map((t): [string, number] => [t, t.length]));
      record("score");
      return scores;
    }),
  );
  const weigh = node(
    { name: "weigh", inputs: ["scores"], output: "weight" },
    trampoline(({ scores }: { scores: Map<string, number> }) => {
      const weight = [...scores.values()].reduce((a, b) => a + b, 0);
      record("weigh");
      return weight;
    }),
  );
  const enrich = new Graph([tokenize, score, weigh], { name: "enrich" }).asNode();
  const plan = node(
    { name: "plan", inputs: ["weight"], output: "part" },
    // `weight` only orders `plan` after the nested graph; the parts are the items' indexes (labels `fetch[i]`).
    trampoline((_: { weight: number }) => {
      const parts = Array.from({ length: MATRIX_ITEMS }, (_item, i) => i);
      record("plan");
      return parts;
    }),
  );
  const fetch = node(
    { name: "fetch", inputs: ["part"], output: "raw" },
    trampoline(({ part }: { part: number }) => {
      const raw = { part, words: new Set([`w${part}`, `x${part}`]), at: new Date(Date.UTC(2025, 0, part + 1)) };
      record(`fetch[${part}]`);
      return raw;
    }),
  );
  const shape = node(
    { name: "shape", inputs: ["raw"], output: "shaped" },
    trampoline(({ raw }: { raw: { part: number; words: Set<string>; at: Date } }) => {
      const shaped = [raw.part, [...raw.words].join("+"), raw.at];
      record(`shape[${raw.part}]`);
      return shaped;
    }),
  );
  const sections = new Graph([fetch, shape], { name: "section" }).asNode({ name: "sections" }).mapOver("part");
  const merge = node(
    { name: "merge", inputs: ["shaped", "scores"], output: "merged" },
    trampoline(({ shaped, scores }: { shaped: unknown[][]; scores: Map<string, number> }) => {
      const merged = { rows: shaped.map((row) => row.slice(0, 2)), keys: [...scores.keys()] };
      record("merge");
      return merged;
    }),
  );
  const refine = node(
    { name: "refine", inputs: ["draft", "merged"], output: "draft" },
    trampoline(({ draft, merged }: { draft: string[]; merged: { rows: unknown[][] } }) => {
      const next = [...draft, `rows: ${merged.rows.length}`];
      record("refine");
      return next;
    }),
  );
  const verify = node(
    { name: "verify", inputs: ["draft", "weight"], output: "verified" },
    trampoline(({ draft, weight }: { draft: string[]; weight: number }) => {
      const verified = { lines: draft.length, weight };
      record("verify");
      return verified;
    }),
  );
  const summarize = node(
    { name: "summarize", inputs: ["draft", "tokens"], output: "summary" },
    trampoline(({ draft, tokens }: { draft: string[]; tokens: string[] }) => {
      const summary = `${draft.join(" ")} (${tokens.length} words)`;
      record("summarize");
      return summary;
    }),
  );
  const approval = interrupt({ name: "approval", input: "summary", response: "decision" });
  const publish = node(
    { name: "publish", inputs: ["summary", "decision", "doc"], output: "published" },
    trampoline(({ summary, decision, doc }: { summary: string; decision: string; doc: Doc }) => {
      const published = { text: summary, decision, at: new Date(doc.createdAt.getTime() + 60_000) };
      record("publish");
      return published;
    }),
  );
  const archive = node(
    { name: "archive", inputs: ["published"], output: "archived" },
    trampoline(({ published }: { published: { at: Date; decision: string } }) => {
      const archived = [published.decision, published.at.getUTCFullYear()];
      record("archive");
      return archived;
    }),
  );
  return new Graph([load, enrich, plan, sections, merge, refine, verify, summarize, approval, publish, archive], {
    name: "conformance-matrix",
  }).bind({ draft: ["draft"] });
}

/** The `CheckpointSaved` events of an uninterrupted run (the kill points): every step, the paused one included. */
export const MATRIX_SAVES = 21;

/** How often each label runs in an uninterrupted run. */
export const MATRIX_EXECUTIONS: Readonly<Record<string, number>> = {
  load: 1,
  tokenize: 1,
  score: 1,
  weigh: 1,
  plan: 1,
  ...Object.fromEntries(
    Array.from({ length: MATRIX_ITEMS }, (_, i) => [
      [`fetch[${i}]`, 1],
      [`shape[${i}]`, 1],
    ]).flat(),
  ),
  merge: 1,
  refine: 1,
  verify: 1,
  summarize: 1,
  publish: 1,
  archive: 1,
};

/** Starts the workflow with {@link matrixInputs} and answers every pause. */
export async function startMatrix(runner: Runner, graph: Graph, workflowId: string): Promise<RunResult> {
  return answerPauses(runner, graph, workflowId, await runner.run(graph, { workflowId, values: matrixInputs() }));
}

/**
 * Resumes the workflow by id alone — no values, as a user resuming after a crash would — and answers every pause.
 * A workflow whose input record was lost fails here with `MissingInputError`.
 */
export async function resumeMatrix(runner: Runner, graph: Graph, workflowId: string): Promise<RunResult> {
  return answerPauses(runner, graph, workflowId, await runner.run(graph, { workflowId }));
}

async function answerPauses(runner: Runner, graph: Graph, workflowId: string, first: RunResult): Promise<RunResult> {
  let result = first;
  for (let answers = 0; result.status === "paused" && answers < 5; answers++) {
    result = await runner.run(graph, { workflowId, values: { [result.pause!.responseKey]: ANSWER } });
  }
  return result;
}
