import { describe, expect, it } from "vitest";
import {
  compile,
  plainObjectAdapter,
  runResultAdapter,
  SelectInputError,
  selectTree,
  type TreeAdapter,
} from "../src/index.js";

const docs = ["d1", "d2"];
const tree = {
  answer: "42",
  rag: {
    docs,
    embedding: [0.1, 0.2],
    inner: { embedding: [0.3], docs: ["deep"] },
  },
  search: { docs: ["s1"], hits: 3 },
  embedding: [9],
  log: "…",
};

describe("selectTree — the pattern table", () => {
  it("`answer` selects that top-level value", () => {
    expect(selectTree(tree, "answer")).toStrictEqual({ answer: "42" });
  });

  it("`rag` selects the nested result whole, as the same reference", () => {
    const selected = selectTree(tree, "rag");
    expect(selected).toStrictEqual({ rag: tree.rag });
    expect(selected.rag).toBe(tree.rag);
  });

  it("`rag/*` selects the direct values of rag, nested ones whole", () => {
    const selected = selectTree(tree, "rag/*");
    expect(selected).toStrictEqual({
      rag: { docs: ["d1", "d2"], embedding: [0.1, 0.2], inner: { embedding: [0.3], docs: ["deep"] } },
    });
    expect(selected.rag).not.toBe(tree.rag); // rebuilt…
    expect(selected.rag.docs).toBe(docs); // …but its values are shared, not cloned
    expect(selected.rag.inner).toBe(tree.rag.inner);
  });

  it("`rag/**` selects everything under rag", () => {
    expect(selectTree(tree, "rag/**")).toStrictEqual({ rag: tree.rag });
  });

  it("`**/embedding` selects embedding at any depth, including the top level", () => {
    expect(selectTree(tree, "**/embedding")).toStrictEqual({
      rag: { embedding: [0.1, 0.2], inner: { embedding: [0.3] } },
      embedding: [9],
    });
  });

  it("`*/docs` selects docs of every direct child", () => {
    expect(selectTree(tree, "*/docs")).toStrictEqual({ rag: { docs: ["d1", "d2"] }, search: { docs: ["s1"] } });
  });

  it("a wildcard inside a name selects within one level", () => {
    expect(selectTree(tree, "emb*")).toStrictEqual({ embedding: [9] });
    expect(selectTree(tree, "*/emb*")).toStrictEqual({ rag: { embedding: [0.1, 0.2] } });
  });

  it("`**` selects everything", () => {
    expect(selectTree(tree, "**")).toStrictEqual(tree);
  });

  it("several patterns select the union", () => {
    expect(selectTree(tree, ["answer", "rag/inner/docs", "search/hits"])).toStrictEqual({
      answer: "42",
      rag: { inner: { docs: ["deep"] } },
      search: { hits: 3 },
    });
  });
});

describe("selectTree — shape of the result", () => {
  it("an empty pattern list selects an empty tree", () => {
    expect(selectTree(tree, [])).toStrictEqual({});
  });

  it("nested trees with nothing matching are left out", () => {
    expect(selectTree(tree, "*/missing")).toStrictEqual({});
    expect(selectTree({ a: { b: {} }, c: {} }, "*/*/x")).toStrictEqual({});
  });

  it("an exactly matched empty tree is kept", () => {
    expect(selectTree({ a: {}, b: 1 }, "a")).toStrictEqual({ a: {} });
    expect(selectTree({ a: { b: {} } }, "a/b")).toStrictEqual({ a: { b: {} } });
  });

  it("a pattern reaching below a leaf selects nothing there", () => {
    expect(selectTree({ a: 1, b: [1, 2], c: "str" }, ["a/x", "b/0", "c/*"])).toStrictEqual({});
  });

  it("keeps the original key order at every level", () => {
    const ordered = { z: 1, a: { y: 1, b: 2, x: 3 }, m: 2, b: 3 };
    const selected = selectTree(ordered, ["b", "a/x", "z", "a/y"]);
    expect(Object.keys(selected)).toEqual(["z", "a", "b"]);
    expect(Object.keys(selected.a)).toEqual(["y", "x"]);
  });

  it("does not modify the input", () => {
    const input = { a: { b: 1, c: 2 }, d: 3 };
    const before = structuredClone(input);
    selectTree(input, ["a/b"]);
    expect(input).toStrictEqual(before);
  });

  it("always returns a new root, even when everything is selected", () => {
    const input = { a: 1 };
    const selected = selectTree(input, "**");
    expect(selected).toStrictEqual(input);
    expect(selected).not.toBe(input);
  });

  it("treats arrays, Dates, Maps and class instances as leaves by default", () => {
    class Box {
      constructor(readonly inside: number) {}
    }
    const date = new Date(0);
    const map = new Map([["k", 1]]);
    const box = new Box(1);
    const input = { list: [{ x: 1 }], date, map, box };
    expect(selectTree(input, ["list/*", "date/*", "map/k", "box/inside"])).toStrictEqual({});
    const whole = selectTree(input, "*");
    expect(whole.date).toBe(date);
    expect(whole.map).toBe(map);
    expect(whole.box).toBe(box);
  });

  it("keeps null prototypes of plain records", () => {
    const inner = Object.assign(Object.create(null) as Record<string, unknown>, { x: 1, y: 2 });
    const root = Object.assign(Object.create(null) as Record<string, unknown>, { inner, other: 3 });
    const selected = selectTree(root, "inner/x");
    expect(Object.getPrototypeOf(selected)).toBe(null);
    expect(Object.getPrototypeOf(selected["inner"])).toBe(null);
    expect({ ...(selected["inner"] as object) }).toEqual({ x: 1 });
  });

  it("handles a `__proto__` key as an ordinary own key", () => {
    const input = JSON.parse('{"__proto__": {"a": 1, "b": 2}, "c": 3}') as Record<string, unknown>;
    const selected = selectTree(input, "__proto__/a");
    expect(Object.getPrototypeOf(selected)).toBe(Object.prototype);
    expect(Object.keys(selected)).toEqual(["__proto__"]);
    expect(Object.getOwnPropertyDescriptor(selected, "__proto__")?.value).toEqual({ a: 1 });
    const whole = selectTree(input, "__proto__");
    expect(Object.getPrototypeOf(whole)).toBe(Object.prototype);
    expect(Object.keys(whole)).toEqual(["__proto__"]);
  });

  it("accepts a compiled matcher, reusable across trees", () => {
    const matcher = compile(["**/docs"]);
    expect(selectTree(tree, matcher)).toStrictEqual({
      rag: { docs: ["d1", "d2"], inner: { docs: ["deep"] } },
      search: { docs: ["s1"] },
    });
    expect(selectTree({ docs: 1, x: 2 }, matcher)).toStrictEqual({ docs: 1 });
  });

  it("treats a root the adapter does not recognise as a tree of its own properties", () => {
    class Holder {
      a = { b: 1, c: 2 };
      d = 3;
    }
    const selected = selectTree(new Holder(), "a/b");
    expect(selected).toStrictEqual({ a: { b: 1 } });
  });

  it("rejects a root that is not an object with a SelectInputError", () => {
    expect(() => selectTree(42, "a")).toThrow(SelectInputError);
    expect(() => selectTree(42, "a")).toThrow(
      expect.objectContaining({ _tag: "SelectInputError", reason: "TreeNotAnObject" }),
    );
    expect(() => selectTree(null, "a")).toThrow("expected the tree to be an object, got null");
  });

  it("reports a cycle on the walked path instead of recursing forever", () => {
    const a: Record<string, unknown> = { x: 1 };
    a["self"] = a;
    const root = { a };
    expect(() => selectTree(root, "**/nothing")).toThrow('the tree contains a cycle at "a/self"');
    expect(() => selectTree(root, "**/nothing")).toThrow(
      expect.objectContaining({ _tag: "SelectInputError", reason: "CyclicTree", path: ["a", "self"] }),
    );
    // A cycle that the patterns never walk into is fine.
    expect(selectTree(root, "a/x")).toStrictEqual({ a: { x: 1 } });
    expect(selectTree(root, "a").a).toBe(a);
  });
});

/** A RunResult-like class: methods on the prototype read `this.values`. */
class FakeRunResult {
  constructor(
    readonly status: "completed" | "paused" | "stopped" | "failed",
    readonly values: Record<string, unknown>,
    readonly runId: string,
  ) {}

  get(path: string): unknown {
    let current: unknown = this;
    for (const name of path.split("/")) {
      current = current instanceof FakeRunResult ? current.values[name] : undefined;
    }
    return current;
  }

  has(path: string): boolean {
    return this.get(path) !== undefined;
  }
}

describe("runResultAdapter", () => {
  const level3 = new FakeRunResult("completed", { embedding: [0.5], note: "deep" }, "r3");
  const level2 = new FakeRunResult("paused", { docs: ["d"], config: { topK: 5 }, retrieve: level3 }, "r2");
  const level1 = new FakeRunResult("completed", { answer: "42", rag: level2, meta: { a: 1, b: 2 } }, "r1");

  it("prunes nested RunResults three levels deep and keeps their class", () => {
    const selected = selectTree(level1, ["answer", "rag/retrieve/embedding"], { adapter: runResultAdapter });
    expect(selected).toBeInstanceOf(FakeRunResult);
    expect(selected.status).toBe("completed");
    expect(selected.runId).toBe("r1");
    expect(Object.keys(selected.values)).toEqual(["answer", "rag"]);
    expect(selected.values["answer"]).toBe("42");

    const rag = selected.values["rag"] as FakeRunResult;
    expect(rag).toBeInstanceOf(FakeRunResult);
    expect(rag).not.toBe(level2);
    expect(rag.status).toBe("paused");
    expect(rag.runId).toBe("r2");
    expect(Object.keys(rag.values)).toEqual(["retrieve"]);

    const retrieve = rag.values["retrieve"] as FakeRunResult;
    expect(retrieve).toBeInstanceOf(FakeRunResult);
    expect(retrieve.status).toBe("completed");
    expect(retrieve.values).toStrictEqual({ embedding: [0.5] });

    // Prototype methods see the pruned values.
    expect(selected.get("rag/retrieve/embedding")).toEqual([0.5]);
    expect(selected.has("rag/docs")).toBe(false);
    expect(selected.has("rag/retrieve/note")).toBe(false);
    // The input is untouched.
    expect(level1.get("rag/docs")).toEqual(["d"]);
    expect(Object.keys(level2.values)).toEqual(["docs", "config", "retrieve"]);
  });

  it("keeps an exactly matched nested RunResult whole", () => {
    const selected = selectTree(level1, "rag", { adapter: runResultAdapter });
    expect(selected.values).toStrictEqual({ rag: level2 });
    expect(selected.values["rag"]).toBe(level2);
  });

  it("`rag/*` keeps each direct value of the nested result whole", () => {
    const selected = selectTree(level1, "rag/*", { adapter: runResultAdapter });
    const rag = selected.values["rag"] as FakeRunResult;
    expect(rag.values["retrieve"]).toBe(level3);
    expect(rag.values["config"]).toBe(level2.values["config"]);
  });

  it("`**/embedding` and `*/docs` look through nested results only", () => {
    expect(selectTree(level1, "**/embedding", { adapter: runResultAdapter }).get("rag/retrieve/embedding")).toEqual([
      0.5,
    ]);
    const docsOnly = selectTree(level1, "*/docs", { adapter: runResultAdapter });
    expect(Object.keys(docsOnly.values)).toEqual(["rag"]);
    expect((docsOnly.values["rag"] as FakeRunResult).values).toStrictEqual({ docs: ["d"] });
  });

  it("treats plain-object outputs as leaves", () => {
    expect(selectTree(level1, "meta/a", { adapter: runResultAdapter }).values).toStrictEqual({});
    expect(selectTree(level1, "rag/config/topK", { adapter: runResultAdapter }).values).toStrictEqual({});
    expect(selectTree(level1, "meta", { adapter: runResultAdapter }).values).toStrictEqual({ meta: { a: 1, b: 2 } });
  });

  it("an empty pattern list gives the RunResult with no values", () => {
    const selected = selectTree(level1, [], { adapter: runResultAdapter });
    expect(selected).toBeInstanceOf(FakeRunResult);
    expect(selected.status).toBe("completed");
    expect(selected.values).toStrictEqual({});
  });

  it("recognises plain RunResult-like objects and keeps their other fields", () => {
    const pause = { reason: "approval" };
    const nested = { status: "paused", pause, values: { a: 1, b: 2 } };
    const root = { status: "completed", runId: "r", values: { nested, x: 1 } };
    const selected = selectTree(root, "nested/b", { adapter: runResultAdapter });
    expect(selected).toStrictEqual({
      status: "completed",
      runId: "r",
      values: { nested: { status: "paused", pause, values: { b: 2 } } },
    });
    expect(selected.values.nested.pause).toBe(pause);
  });

  it("copies getters, non-enumerable and symbol properties, and freezes copies of frozen results", () => {
    const marker = Symbol("marker");
    const original = { status: "completed", values: { a: 1, b: 2 }, [marker]: "m" };
    Object.defineProperty(original, "hidden", { value: "h", enumerable: false });
    Object.defineProperty(original, "computed", { get: () => "g", enumerable: true });
    Object.freeze(original);
    const copy = runResultAdapter.rebuild(original, { a: 1 }) as Record<PropertyKey, unknown>;
    expect(Object.isFrozen(copy)).toBe(true);
    expect(copy["values"]).toStrictEqual({ a: 1 });
    expect(copy["hidden"]).toBe("h");
    expect(Object.getOwnPropertyDescriptor(copy, "hidden")?.enumerable).toBe(false);
    expect(copy["computed"]).toBe("g");
    expect(copy[marker]).toBe("m");
    expect(original.values).toStrictEqual({ a: 1, b: 2 });
  });

  it("recognises only objects with a status string and a values record", () => {
    expect(runResultAdapter.children({ status: "completed", values: { a: 1 } })).toEqual({ a: 1 });
    expect(runResultAdapter.children({ status: 1, values: { a: 1 } })).toBeUndefined();
    expect(runResultAdapter.children({ status: "completed", values: [1] })).toBeUndefined();
    expect(runResultAdapter.children({ status: "completed", values: null })).toBeUndefined();
    expect(runResultAdapter.children({ values: { a: 1 } })).toBeUndefined();
    expect(runResultAdapter.children("completed")).toBeUndefined();
    expect(runResultAdapter.children(null)).toBeUndefined();
  });
});

describe("custom adapters", () => {
  it("can make Maps nested trees", () => {
    const mapAdapter: TreeAdapter = {
      children: (value) => (value instanceof Map ? (Object.fromEntries(value) as Record<string, unknown>) : undefined),
      rebuild: (_original, prunedChildren) => new Map(Object.entries(prunedChildren)),
    };
    const input = {
      rag: new Map<string, unknown>([
        ["docs", ["d1"]],
        ["scores", [0.9]],
      ]),
    };
    const selected = selectTree(input, "rag/docs", { adapter: mapAdapter });
    expect(selected.rag).toBeInstanceOf(Map);
    expect([...selected.rag]).toEqual([["docs", ["d1"]]]);
  });

  it("the default adapter is plainObjectAdapter", () => {
    const input = { a: { b: 1, c: 2 }, d: [1, 2] };
    expect(selectTree(input, ["a/b", "d/*"], { adapter: plainObjectAdapter })).toStrictEqual(
      selectTree(input, ["a/b", "d/*"]),
    );
    expect(selectTree(input, ["a/b", "d/*"])).toStrictEqual({ a: { b: 1 } });
  });

  it("calls rebuild only for nodes that keep something", () => {
    const rebuilt: unknown[] = [];
    const adapter: TreeAdapter = {
      children: (value) => plainObjectAdapter.children(value),
      rebuild: (original, pruned) => {
        rebuilt.push(original);
        return pruned;
      },
    };
    const input = { a: { x: 1 }, b: { y: 1 }, c: { x: 2 } };
    selectTree(input, ["*/x", "c"], { adapter });
    expect(rebuilt).toEqual([input.a, input]);
  });
});
