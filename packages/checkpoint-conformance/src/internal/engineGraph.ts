/**
 * The deterministic graphs the engine conformance tests run, both in the test process and in child processes
 * (`child.ts`). Node functions have the same source in every process, so every process builds a graph with the
 * same `definitionHash` (resuming someone else's workflow is not a version mismatch).
 *
 * Every node calls `record(name)` right before it returns; the tests write those calls to a log file with
 * `fs.appendFileSync`, so an execution survives a `SIGKILL` that follows it.
 */

import type { NodeFunction } from "@graph/core";
import { END, Graph, interrupt, node, route } from "@graph/core";
import type { Runner, RunResult } from "@graph/runtime";

type Impl = (inputs: never, ctx: unknown) => unknown;

/*
 * Node functions with a fixed source text. The runtime hashes node sources into the graph's `definitionHash` and
 * checks it on resume, and transpilers print sources differently (vitest's SSR transform rewrites imported
 * bindings such as `END`; tsx reprints everything with esbuild). Without this, a workflow started by a child
 * process (tsx) could not be resumed by the test process (vitest): VersionMismatchError. With it, the hash only
 * depends on each node's configuration (name, inputs, outputs, targets), which every process builds identically.
 */
export const trampoline = new Function(
  "impl",
  "return function conformanceNode(inputs, ctx) { return impl(inputs, ctx); };",
) as (impl: Impl) => NodeFunction;
export const asyncTrampoline = new Function(
  "impl",
  "return async function conformanceNode(inputs, ctx) { return impl(inputs, ctx); };",
) as (impl: Impl) => NodeFunction;

/** Called by every node just before it returns. */
export type Recorder = (nodeName: string) => void;

/** The answer the tests give the `approval` interrupt. */
export const ANSWER = "approved";

/** The values every run of the engine graph starts with (a Date, to exercise the serializer on inputs too). */
function engineInputs(): Record<string, unknown> {
  return { topic: "durable graphs", startedAt: new Date(Date.UTC(2024, 4, 6, 7, 8, 9, 10)) };
}

interface Doc {
  readonly title: string;
  readonly createdAt: Date;
  readonly tags: Map<string, string>;
  readonly sections: readonly (readonly string[])[];
}

interface Draft {
  readonly version: number;
  readonly lines: readonly string[];
  readonly revisedAt: Date;
}

/** How often the `refine` loop runs (the gate routes back while the draft's version is below this). */
const LOOP_ITERATIONS = 3;

/**
 * The engine graph: 8 top-level nodes, strictly sequential (no two nodes share a superstep, so "after the k-th
 * saved step" names exactly one point of the run):
 *
 * `load` → `enrich` (nested graph: `tokenize` → `score`) → `refine` ⇄ `check` (a gated loop, 3 iterations) →
 * `summarize` → `approval` (interrupt, answered with {@link ANSWER}) → `publish` → `archive`.
 *
 * Values hold Dates, Maps, Sets and nested arrays, so a resumed run only matches when the serializer round-trips
 * them exactly.
 */
export function engineGraph(record: Recorder): Graph {
  const load = node(
    { name: "load", inputs: ["topic", "startedAt"], output: "doc" },
    trampoline(({ topic, startedAt }: { topic: string; startedAt: Date }): Doc => {
      const doc: Doc = {
        title: topic,
        createdAt: new Date(startedAt.getTime()),
        tags: new Map([
          ["lang", "en"],
          ["kind", "report"],
        ]),
        sections: [["intro", "durability"], ["leases", "steps", "resume"], ["outro"]],
      };
      record("load");
      return doc;
    }),
  );
  const tokenize = node(
    { name: "tokenize", inputs: ["doc"], output: "tokens" },
    trampoline(({ doc }: { doc: Doc }) => {
      const tokens = doc.sections.map((section) => section.map((word): [string, number] => [word, word.length]));
      record("tokenize");
      return tokens;
    }),
  );
  const score = node(
    { name: "score", inputs: ["tokens"], output: "scores" },
    trampoline(({ tokens }: { tokens: [string, number][][] }) => {
      const scores = new Map<string, number>(tokens.flat().map(([word, length]) => [word, length * 10]));
      record("score");
      return scores;
    }),
  );
  const enrich = new Graph([tokenize, score], { name: "enrich" }).asNode();
  const refine = node(
    { name: "refine", inputs: ["draft", "doc", "scores"], output: "draft" },
    trampoline(({ draft, doc, scores }: { draft: Draft; doc: Doc; scores: Map<string, number> }): Draft => {
      const version = draft.version + 1;
      const next: Draft = {
        version,
        lines: [...draft.lines, `${doc.title} v${version}: ${[...scores.keys()].slice(0, version).join(",")}`],
        revisedAt: new Date(doc.createdAt.getTime() + version * 60_000),
      };
      record("refine");
      return next;
    }),
  );
  const check = route(
    { name: "check", inputs: ["draft"], targets: ["refine", END] },
    trampoline(({ draft }: { draft: Draft }) => {
      const decision = draft.version < LOOP_ITERATIONS ? "refine" : END;
      record("check");
      return decision;
    }),
  );
  const summarize = node(
    { name: "summarize", inputs: ["draft", "tokens"], output: "summary" },
    trampoline(({ draft, tokens }: { draft: Draft; tokens: [string, number][][] }) => {
      const summary = { text: draft.lines.join(" | "), words: tokens.flat().length, revisedAt: draft.revisedAt };
      record("summarize");
      return summary;
    }),
  );
  const approval = interrupt({ name: "approval", input: "summary", response: "decision" });
  const publish = node(
    { name: "publish", inputs: ["summary", "decision", "doc"], output: "published" },
    trampoline(
      ({ summary, decision, doc }: { summary: { text: string; revisedAt: Date }; decision: string; doc: Doc }) => {
        const published = {
          decision,
          at: new Date(summary.revisedAt.getTime() + 3_600_000),
          meta: new Map<string, unknown>([
            ["tags", new Set(doc.tags.values())],
            ["sections", doc.sections.map((s) => [...s])],
          ]),
          text: summary.text,
        };
        record("publish");
        return published;
      },
    ),
  );
  const archive = node(
    { name: "archive", inputs: ["published"], output: "archived" },
    trampoline(({ published }: { published: { at: Date; decision: string } }) => {
      const archived = [[published.decision, published.at], [[published.at.getUTCFullYear()]]];
      record("archive");
      return archived;
    }),
  );
  return new Graph([load, enrich, refine, check, summarize, approval, publish, archive], {
    name: "conformance-engine",
  }).bind({
    draft: { version: 0, lines: [], revisedAt: new Date(0) },
  });
}

/**
 * The steps an uninterrupted run saves, in order (`CheckpointSaved` events, nested graph included): each is a
 * kill point of the crash tests. `child` marks steps of the nested workflow (`<id>/enrich`).
 */
export const ENGINE_SAVES: readonly string[] = [
  "load",
  "enrich/tokenize",
  "enrich/score",
  "enrich",
  "refine",
  "check",
  "refine",
  "check",
  "refine",
  "check",
  "summarize",
  "approval (paused)",
  "approval",
  "publish",
  "archive",
];

/** How often each node runs in an uninterrupted run (the log of a reference run). */
export const ENGINE_EXECUTIONS: Readonly<Record<string, number>> = {
  load: 1,
  tokenize: 1,
  score: 1,
  refine: LOOP_ITERATIONS,
  check: LOOP_ITERATIONS,
  summarize: 1,
  publish: 1,
  archive: 1,
};

/**
 * Runs the engine graph's workflow to its end the way a user would: start (or resume) it with
 * {@link engineInputs}, and answer every pause with {@link ANSWER}.
 */
export async function drive(runner: Runner, graph: Graph, workflowId: string): Promise<RunResult> {
  let result = await runner.run(graph, { workflowId, values: engineInputs() });
  for (let answers = 0; result.status === "paused" && answers < 5; answers++) {
    result = await runner.run(graph, { workflowId, values: { [result.pause!.responseKey]: ANSWER } });
  }
  return result;
}

/**
 * The lease-race graph: `draft` → `approval` (interrupt) → `finalize`. `finalize` awaits `hold()` first: the
 * tests make it wait until the other racer has failed, so the winner still holds the lease when the loser tries to
 * claim it, however the two are scheduled (no timing assumption).
 */
export function raceGraph(record: Recorder, hold: () => Promise<void>): Graph {
  const draft = node(
    { name: "draft", inputs: ["topic"], output: "draft" },
    trampoline(({ topic }: { topic: string }) => {
      const text = `about ${topic}`;
      record("draft");
      return text;
    }),
  );
  const approval = interrupt({ name: "approval", input: "draft", response: "decision" });
  const finalize = node(
    { name: "finalize", inputs: ["draft", "decision"], output: "final" },
    asyncTrampoline(async ({ draft, decision }: { draft: string; decision: string }) => {
      await hold();
      record("finalize");
      return `${draft}: ${decision}`;
    }),
  );
  return new Graph([draft, approval, finalize], { name: "conformance-race" });
}

/** Values the racers pass: the original input and the answer. */
export const RACE_VALUES: Readonly<Record<string, unknown>> = { topic: "leases", decision: ANSWER };

/** Number of loop iterations of the growth graph (2 steps each: 1,000 steps). */
export const GROWTH_ITERATIONS = 500;

/** The growth graph: `inc` ⇄ `more`, {@link GROWTH_ITERATIONS} iterations, trivial values `{ n: i }`. */
export function growthGraph(): Graph {
  const inc = node(
    { name: "inc", inputs: ["n"], output: "n" },
    trampoline(({ n }: { n: number }) => n + 1),
  );
  const more = route(
    { name: "more", inputs: ["n"], targets: ["inc", END] },
    trampoline(({ n }: { n: number }) => (n < GROWTH_ITERATIONS ? "inc" : END)),
  );
  return new Graph([inc, more], { name: "conformance-growth" });
}
