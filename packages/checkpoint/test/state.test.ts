import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { StepSummary } from "../src/adapter.js";
import {
  compactSteps,
  compareWorkflowPosition,
  decodeWorkflowCursor,
  encodeWorkflowCursor,
  foldSteps,
  resolveListLimit,
  stepKey,
  validateStepRecord,
} from "../src/adapter.js";
import type { CheckpointError, StepRecord } from "../src/index.js";
import { resolvePolicy } from "../src/index.js";

const s = (index: number, superstep: number, nodeName: string, values: Record<string, unknown>): StepSummary => ({
  index,
  superstep,
  nodeName,
  values,
});

/** The scenario used by the conformance suite too. */
const history: StepSummary[] = [
  s(0, 0, ".input", { q: "hi" }),
  s(1, 1, "A", { a: 1 }),
  s(2, 2, "B", { b: 1 }),
  s(3, 3, "A", { a: 2 }),
  s(4, 3, "G", {}),
  s(5, 4, "B", { c: 1 }),
  s(6, 5, "A", { a: 3 }),
  s(7, 5, "G", {}),
];

const indexes = (steps: readonly StepSummary[]) => steps.map((step) => step.index).sort((x, y) => x - y);

describe("foldSteps", () => {
  it("folds values in index order with versions = index of the last writer", () => {
    expect(foldSteps(history)).toEqual({
      values: { q: "hi", a: 3, b: 1, c: 1 },
      versions: { q: 0, a: 6, b: 2, c: 5 },
    });
  });

  it("does not depend on input order", () => {
    expect(foldSteps([...history].reverse())).toEqual(foldSteps(history));
  });

  it("keeps undefined values and __proto__ keys as data", () => {
    const folded = foldSteps([
      s(0, 0, "x", JSON.parse('{"__proto__": 1}') as Record<string, unknown>),
      s(1, 1, "y", { u: undefined }),
    ]);
    expect(Object.keys(folded.values)).toEqual(["__proto__", "u"]);
    expect(Object.getPrototypeOf(folded.values)).toBe(Object.prototype);
    expect(folded.versions).toEqual(JSON.parse('{"__proto__": 0, "u": 1}'));
  });

  it("folds nothing to empty state", () => {
    expect(foldSteps([])).toEqual({ values: {}, versions: {} });
  });
});

describe("compactSteps", () => {
  it("keeps everything under full retention", () => {
    expect(compactSteps(history, resolvePolicy())).toEqual([]);
  });

  it("latest keeps the newest step per node and the last writers", () => {
    const doomed = compactSteps(history, resolvePolicy({ retention: "latest" }));
    // A@1 and A@3 were overwritten by A@6; G@4 is superseded by G@7 and wrote nothing; B@2 still holds b.
    expect(indexes(doomed)).toEqual([1, 3, 4]);
  });

  it("windowed keeps the last `window` supersteps whole", () => {
    expect(indexes(compactSteps(history, resolvePolicy({ retention: "windowed", window: 3 })))).toEqual([1]);
    expect(indexes(compactSteps(history, resolvePolicy({ retention: "windowed", window: 1 })))).toEqual([1, 3, 4]);
    expect(compactSteps(history, resolvePolicy({ retention: "windowed", window: 100 }))).toEqual([]);
  });

  it("returns the caller's own objects", () => {
    const doomed = compactSteps(history, resolvePolicy({ retention: "latest" }));
    expect(history).toContain(doomed[0]);
  });

  const historyArb = fc
    .array(
      fc.record({
        nodeName: fc.constantFrom(".input", "A", "B", "C", "G"),
        keys: fc.uniqueArray(fc.constantFrom("a", "b", "c", "d", "e"), { maxLength: 3 }),
        advance: fc.boolean(),
      }),
      { maxLength: 40 },
    )
    .map((entries) => {
      let superstep = 0;
      const seen = new Set<string>();
      const steps: StepSummary[] = [];
      entries.forEach((entry, index) => {
        // One step per (superstep, node): the upsert key.
        if (entry.advance || seen.has(entry.nodeName)) {
          superstep++;
          seen.clear();
        }
        seen.add(entry.nodeName);
        steps.push(s(index, superstep, entry.nodeName, Object.fromEntries(entry.keys.map((key) => [key, index]))));
      });
      return steps;
    });

  const policyArb = fc.oneof(
    fc.constant(resolvePolicy({ retention: "latest" })),
    fc.integer({ min: 1, max: 6 }).map((window) => resolvePolicy({ retention: "windowed", window })),
  );

  it("never changes state or versions, and keeps the newest step of every node", () => {
    fc.assert(
      fc.property(historyArb, policyArb, (steps, policy) => {
        const doomed = new Set(compactSteps(steps, policy));
        const kept = steps.filter((step) => !doomed.has(step));
        expect(foldSteps(kept)).toEqual(foldSteps(steps));
        const nodes = new Set(steps.map((step) => step.nodeName));
        for (const node of nodes) {
          const newest = steps.filter((step) => step.nodeName === node).at(-1);
          expect(kept).toContain(newest);
        }
        if (policy.retention === "windowed" && steps.length > 0) {
          const max = Math.max(...steps.map((step) => step.superstep));
          for (const step of steps) if (step.superstep > max - policy.window!) expect(kept).toContain(step);
        }
        // Compaction is idempotent.
        expect(compactSteps(kept, policy)).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});

describe("stepKey", () => {
  it("identifies a step by superstep and node", () => {
    expect(stepKey({ superstep: 3, nodeName: "embed" })).toBe("3:embed");
    expect(stepKey({ superstep: 1, nodeName: "1:x" })).not.toBe(stepKey({ superstep: 11, nodeName: ":x" }));
  });
});

describe("workflow cursors", () => {
  it("round-trip positions, including odd ids", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.string({ unit: "grapheme" }), (time, id) => {
        const position = { createdAt: new Date(time), id };
        const back = decodeWorkflowCursor(encodeWorkflowCursor(position));
        expect(back).toEqual(position);
      }),
    );
  });

  it("reject malformed cursors with a CheckpointError", () => {
    for (const cursor of [
      "",
      "nope",
      Buffer.from("[1]").toString("base64url"),
      Buffer.from('["x","y"]').toString("base64url"),
    ]) {
      expect(() => decodeWorkflowCursor(cursor)).toThrow(
        expect.objectContaining({ _tag: "CheckpointError", path: "cursor" }),
      );
    }
  });

  it("order by createdAt then id", () => {
    const at = (ms: number, id: string) => ({ createdAt: new Date(ms), id });
    const sorted = [at(2, "a"), at(1, "b"), at(1, "a")].sort(compareWorkflowPosition);
    expect(sorted).toEqual([at(1, "a"), at(1, "b"), at(2, "a")]);
  });

  it("validate limits", () => {
    expect(resolveListLimit(undefined)).toBe(100);
    expect(resolveListLimit(7)).toBe(7);
    for (const bad of [0, -1, 1.5, Number.NaN]) {
      expect(() => resolveListLimit(bad)).toThrow(expect.objectContaining({ _tag: "CheckpointError", path: "limit" }));
    }
  });
});

describe("validateStepRecord", () => {
  const good: StepRecord = {
    workflowId: "wf",
    superstep: 0,
    nodeName: "n",
    index: 0,
    status: "completed",
    inputVersions: {},
    values: {},
    truncated: false,
    startedAt: new Date(),
    completedAt: new Date(),
  };

  it("accepts a well-formed step", () => {
    expect(() => validateStepRecord(good)).not.toThrow();
  });

  it.each<[string, Partial<Record<keyof StepRecord, unknown>>, string | undefined]>([
    ["empty workflow id", { workflowId: "" }, undefined],
    ["empty node name", { nodeName: "" }, "nodeName"],
    ["fractional superstep", { superstep: 1.5 }, "superstep"],
    ["negative index", { index: -1 }, "index"],
    ["unknown status", { status: "done" }, "status"],
    ["array values", { values: [1] }, "values"],
    ["string input version", { inputVersions: { a: "1" } }, "inputVersions.a"],
    ["invalid date", { startedAt: new Date(Number.NaN) }, "startedAt"],
    ["missing completedAt", { completedAt: undefined }, "completedAt"],
    ["non-boolean truncated", { truncated: "no" }, "truncated"],
  ])("rejects %s", (_name, patch, path) => {
    let error: CheckpointError | undefined;
    try {
      validateStepRecord({ ...good, ...patch } as StepRecord);
    } catch (e) {
      error = e as CheckpointError;
    }
    expect(error?._tag).toBe("CheckpointError");
    expect(error?.path).toBe(path);
    expect(error?.operation).toBe("saveStep");
  });
});
