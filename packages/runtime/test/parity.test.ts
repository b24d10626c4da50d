import { MemoryCheckpointer } from "@graph/checkpoint";
import { END, Graph, interrupt, node, route } from "@graph/core";
import { Chunk, Effect, Either, Stream } from "effect";
import { describe, expect, it } from "vitest";
import { makeRunner } from "../src/effect.js";
import { Runner, type RunOptions } from "../src/index.js";

const increment = node({ name: "increment", output: "count" }, ({ count }: { count: number }) => count + 1);
const check = route({ name: "check", targets: ["increment", END] }, ({ count }: { count: number }) =>
  count >= 5 ? END : "increment",
);
const sq = node({ name: "sq", output: "sq" }, async ({ x }: { x: number }) => x * x);
const inner = new Graph([sq], { name: "inner" });
const total = node({ name: "total", output: "total" }, ({ sq }: { sq: number[] }) => sq.reduce((a, b) => a + b, 0));
const approval = interrupt({ name: "approval", input: "total", response: "decision" });
const boom = node({ name: "boom", output: "never" }, ({ fail }: { fail: boolean }) => {
  if (fail) throw new Error("boom");
  return 1;
});

const scenarios: Array<{ name: string; graph: Graph; options: RunOptions }> = [
  { name: "loop", graph: new Graph([increment, check]), options: { values: { count: 0 } } },
  { name: "nested map", graph: new Graph([inner.asNode().mapOver("x"), total]), options: { values: { x: [1, 2, 3] } } },
  {
    name: "interrupt",
    graph: new Graph([inner.asNode().mapOver("x"), total, approval]),
    options: { values: { x: [2] } },
  },
  { name: "missing input", graph: new Graph([increment, check]), options: { values: {} } },
  { name: "node failure", graph: new Graph([boom]), options: { values: { fail: true } } },
  {
    name: "routing error",
    graph: new Graph([
      increment,
      route({ name: "bad", targets: ["increment", END] }, ({ count }: { count: number }) =>
        count > 0 ? "nowhere" : END,
      ),
    ]),
    options: { values: { count: 0 } },
  },
];

const withoutRunIds = (value: unknown): unknown =>
  JSON.parse(JSON.stringify(value, (k, v) => (k === "runId" ? undefined : v)));

type Outcome =
  | { ok: true; status: string; values: unknown; pause: unknown }
  | { ok: false; tag: string; message: string };

async function viaPromise(s: (typeof scenarios)[number]): Promise<Outcome> {
  const runner = new Runner({ checkpointer: new MemoryCheckpointer() });
  try {
    const r = await runner.run(s.graph, { ...s.options, workflowId: "wf" });
    return { ok: true, status: r.status, values: withoutRunIds(r.toJSON().values), pause: r.pause };
  } catch (e) {
    const err = e as { _tag: string; message: string };
    return { ok: false, tag: err._tag, message: err.message };
  } finally {
    await runner.close();
  }
}

function viaEffect(s: (typeof scenarios)[number]): Promise<Outcome> {
  return Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const runner = yield* makeRunner({ checkpointer: new MemoryCheckpointer() });
        const result = yield* Effect.either(runner.run(s.graph, { ...s.options, workflowId: "wf" }));
        if (Either.isLeft(result)) return { ok: false as const, tag: result.left._tag, message: result.left.message };
        const r = result.right;
        return { ok: true as const, status: r.status, values: withoutRunIds(r.toJSON().values), pause: r.pause };
      }),
    ),
  );
}

describe("Promise and Effect APIs agree", () => {
  for (const s of scenarios) {
    it(s.name, async () => {
      const [p, e] = await Promise.all([viaPromise(s), viaEffect(s)]);
      expect(e).toEqual(p);
    });
  }

  it("typed errors can be caught by tag in Effect", async () => {
    const handled = await Effect.runPromise(
      Effect.scoped(
        Effect.flatMap(makeRunner(), (runner) =>
          // @ts-expect-error 'count' (the loop's seed) is missing: caught at run time by its tag below
          runner.run(new Graph([increment, check]), { values: {} }).pipe(
            Effect.map(() => [] as readonly string[]),
            Effect.catchTag("MissingInputError", (e) => Effect.succeed(e.missing)),
          ),
        ),
      ),
    );
    expect(handled).toEqual(["count"]);
  });

  it("the Promise API rethrows the tagged error itself", async () => {
    const error = await new Runner().run(new Graph([boom]), { values: { fail: true } }).catch((e) => e);
    expect(error._tag).toBe("NodeExecutionError");
    expect(error.constructor.name).toBe("NodeExecutionError");
  });

  it("stream() in Effect yields the same event types as the Promise stream", async () => {
    const graph = new Graph([increment, check]);
    const promiseTypes: string[] = [];
    for await (const ev of new Runner().stream(graph, { values: { count: 3 } })) promiseTypes.push(ev.type);
    const effectTypes = await Effect.runPromise(
      Effect.scoped(
        Effect.flatMap(makeRunner(), (runner) => Stream.runCollect(runner.stream(graph, { values: { count: 3 } }))),
      ),
    ).then((chunk) => Chunk.toReadonlyArray(chunk).map((e) => e.type));
    expect(effectTypes).toEqual(promiseTypes);
    expect(promiseTypes[0]).toBe("RunStart");
    expect(promiseTypes.at(-1)).toBe("RunEnd");
  });
});
