import { describe, expect, it } from "vitest";
import {
  END,
  Graph,
  IfElseNode,
  InterruptNode,
  ifElse,
  interrupt,
  isGraphConfigError,
  isRoutingError,
  node,
  RouteNode,
  RoutingError,
  route,
} from "../src/index.js";
import { ctx, errorOf, fromSource } from "./helpers.js";

describe("route()", () => {
  const decide = route({ targets: ["retrieve", END] }, function decide({ messages }: { messages: string[] }) {
    return messages.length > 2 ? END : "retrieve";
  });

  it("is a gate with its targets and defaults", () => {
    expect(decide).toBeInstanceOf(RouteNode);
    expect(decide.nodeType).toBe("route");
    expect(decide.isGate).toBe(true);
    expect(decide.inputs).toEqual(["messages"]);
    expect(decide.outputs).toEqual([]);
    expect(decide.targets).toEqual(["retrieve", END]);
    expect(decide.multiTarget).toBe(false);
    expect(decide.fallback).toBeUndefined();
    expect(decide.defaultOpen).toBe(true);
  });

  it("decides a target or END", () => {
    expect(decide.decide({ messages: ["a"] }, ctx)).toEqual(["retrieve"]);
    expect(decide.decide({ messages: ["a", "b", "c"] }, ctx)).toEqual([END]);
  });

  it("END is a unique symbol; the string 'END' is rejected at definition", () => {
    expect(typeof END).toBe("symbol");
    const error = errorOf(() => route({ targets: ["a", "END"] }, function g() {}));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toContain(`Gate 'g' lists the string "END" as a target.`);
    expect(error.message).toContain('import { END } from "@graph/core"');
  });

  it("the string 'END' returned at decide time is a RoutingError with a hint", () => {
    const gate = route({ targets: ["a", END] }, function g() {
      return "END";
    });
    const error = errorOf<RoutingError>(() => gate.decide({}, ctx));
    expect(error).toBeInstanceOf(RoutingError);
    expect(isRoutingError(error)).toBe(true);
    expect(error._tag).toBe("RoutingError");
    expect(error.value).toBe("END");
    expect(error.gate).toBe("g");
    expect(error.message).toBe(
      `Gate 'g' returned 'END', which is not one of its targets ('a', END). Return the END sentinel (import { END } from "@graph/core"), not the string "END".`,
    );
  });

  it("an undeclared target is a RoutingError carrying the value, with Did you mean", () => {
    const gate = route({ targets: ["retrieve", "generate"] }, function g() {
      return "retreive";
    });
    const error = errorOf<RoutingError>(() => gate.decide({}, ctx));
    expect(error._tag).toBe("RoutingError");
    expect(error.value).toBe("retreive");
    expect(error.message).toBe(
      "Gate 'g' returned 'retreive', which is not one of its targets ('retrieve', 'generate'). Did you mean 'retrieve'?",
    );
    const far = errorOf<RoutingError>(() => route({ name: "h", targets: ["a"] }, () => 42).decide({}, ctx));
    expect(far.value).toBe(42);
    expect(far.message).toBe("Gate 'h' returned 42, which is not one of its targets ('a').");
  });

  it("undefined means the fallback, else no decision (null)", () => {
    expect(route({ targets: ["a", END] }, function g() {}).decide({}, ctx)).toBeNull();
    expect(route({ targets: ["a", END], fallback: "a" }, function g() {}).decide({}, ctx)).toEqual(["a"]);
    expect(route({ targets: ["a", END], fallback: END }, function g() {}).decide({}, ctx)).toEqual([END]);
  });

  it("a fallback must be one of the targets", () => {
    expect(errorOf(() => route({ targets: ["a", END], fallback: "b" }, function g() {})).message).toBe(
      "Gate 'g' has fallback 'b', which is not one of its targets ('a', 'END').",
    );
  });

  it("multiTarget returns arrays (deduplicated; empty → fallback or nothing)", () => {
    const fan = route({ targets: ["a", "b", END], multiTarget: true }, function fan({ pick }: { pick: string[] }) {
      return pick;
    });
    expect(fan.multiTarget).toBe(true);
    expect(fan.decide({ pick: ["a", "b", "a"] }, ctx)).toEqual(["a", "b"]);
    expect(fan.decide({ pick: [] }, ctx)).toBeNull();
    expect(errorOf(() => fan.decide({ pick: ["a", "c"] }, ctx)).message).toContain("Gate 'fan' returned 'c'");
    expect(errorOf(() => fan.decide({ pick: "a" as never }, ctx)).message).toBe(
      "Gate 'fan' has multiTarget: true and must return an array of targets, got string.",
    );
    const single = route({ name: "single", targets: ["a", "b"] }, () => ["a"]);
    expect(errorOf(() => single.decide({}, ctx)).message).toBe(
      "Gate 'single' returned an array; set multiTarget: true to route to several targets.",
    );
  });

  it("rejects async and generator gates at definition", () => {
    const error = errorOf(() =>
      route({ targets: ["a"] }, async function g() {
        return "a";
      }),
    );
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toContain("Gate 'g' is async; gate functions must be synchronous.");
    expect(errorOf(() => route({ targets: ["a"] }, function* g() {})).message).toContain("Gate 'g' is sync-generator");
  });

  it("a sync gate that returns a Promise is a RoutingError at decide", () => {
    const gate = route({ targets: ["a"] }, function g() {
      return Promise.resolve("a");
    });
    const error = errorOf(() => gate.decide({}, ctx));
    expect(error._tag).toBe("RoutingError");
    expect(error.message).toContain("Gate 'g' returned a Promise. Gate functions must be synchronous.");
  });

  it("a gate can't target itself", () => {
    const error = errorOf(() => route({ targets: ["g", END] }, function g() {}));
    expect(error._tag).toBe("GraphConfigError");
    expect(error.message).toBe("Gate 'g' targets itself; a gate can't route to itself.");
  });

  it("needs at least one target", () => {
    expect(errorOf(() => route({ targets: [] }, function g() {})).message).toBe("Gate 'g' declares no targets.");
  });

  it("passes inputs by original name after renames", () => {
    const gate = route({ targets: ["a", END] }, function g({ n }: { n: number }) {
      return n > 0 ? "a" : END;
    }).withInputs({ n: "count" });
    expect(gate.decide({ count: 1 }, ctx)).toEqual(["a"]);
  });

  it("reads gate inputs from the pattern (defaults included) or an explicit list", () => {
    const gate = route({ targets: ["a"] }, fromSource("function g({ x, limit = 3 }) { return 'a'; }"));
    expect(gate.inputs).toEqual(["x", "limit"]);
    expect([gate.hasDefault("x"), gate.hasDefault("limit")]).toEqual([false, true]);
    expect(route({ targets: ["a"], inputs: ["q"], name: "r" }, () => "a").inputs).toEqual(["q"]);
  });

  it("definitionHash covers targets and flags", () => {
    const make = (o: Partial<Parameters<typeof route>[0]> = {}) =>
      route({ targets: ["a", END], ...o }, fromSource("function g() { return 'a'; }"));
    expect(make().definitionHash).toBe(make().definitionHash);
    expect(make({ defaultOpen: false }).definitionHash).not.toBe(make().definitionHash);
    expect(make({ targets: ["a"] }).definitionHash).not.toBe(make().definitionHash);
    expect(make({ fallback: END }).definitionHash).not.toBe(make().definitionHash);
  });
});

describe("ifElse()", () => {
  const check = ifElse({ whenTrue: "fastPath", whenFalse: "fullRag" }, function check({ hit }: { hit: unknown }) {
    return hit;
  });

  it("maps true/false to its targets", () => {
    expect(check).toBeInstanceOf(IfElseNode);
    expect(check.nodeType).toBe("branch");
    expect([check.whenTrue, check.whenFalse]).toEqual(["fastPath", "fullRag"]);
    expect(check.targets).toEqual(["fastPath", "fullRag"]);
    expect(check.decide({ hit: true }, ctx)).toEqual(["fastPath"]);
    expect(check.decide({ hit: false }, ctx)).toEqual(["fullRag"]);
  });

  it("anything but a boolean is a RoutingError carrying the value", () => {
    for (const value of ["yes", 1, null, undefined]) {
      const error = errorOf<RoutingError>(() => check.decide({ hit: value }, ctx));
      expect(error._tag).toBe("RoutingError");
      expect(error.value).toBe(value);
      expect(error.message).toContain("Gate 'check' (ifElse) must return a boolean, got");
    }
    expect(errorOf(() => check.decide({ hit: "yes" }, ctx)).message).toContain("got string (yes)");
  });

  it("END may be a branch; the same target twice or the string 'END' is rejected", () => {
    expect(
      ifElse({ whenTrue: END, whenFalse: "a" }, function g() {
        return true;
      }).decide({}, ctx),
    ).toEqual([END]);
    expect(errorOf(() => ifElse({ whenTrue: "a", whenFalse: "a" }, function g() {})).message).toBe(
      "Gate 'g' has the same target for true and false; use a plain edge instead.",
    );
    expect(errorOf(() => ifElse({ whenTrue: "END", whenFalse: "a" }, function g() {})).message).toContain(
      'lists the string "END"',
    );
    expect(errorOf(() => ifElse({ whenTrue: "g", whenFalse: "a" }, function g() {})).message).toContain(
      "targets itself",
    );
  });

  it("is synchronous only", () => {
    expect(
      isGraphConfigError(
        errorOf(() =>
          ifElse({ whenTrue: "a", whenFalse: "b" }, async function g() {
            return true;
          }),
        ),
      ),
    ).toBe(true);
  });
});

describe("interrupt()", () => {
  it("has one input (what the human sees) and one output (the answer)", () => {
    const approval = interrupt({ name: "approval", input: "draft", response: "decision" });
    expect(approval).toBeInstanceOf(InterruptNode);
    expect(approval.nodeType).toBe("interrupt");
    expect(approval.isGate).toBe(false);
    expect(approval.inputs).toEqual(["draft"]);
    expect(approval.outputs).toEqual(["decision"]);
    expect(approval.inputName).toBe("draft");
    expect(approval.responseKey).toBe("decision");
    expect(approval.hasDefault("draft")).toBe(false);
    expect(approval.handler).toBeUndefined();
  });

  it("keeps its handler, which answers or returns undefined to pause", () => {
    const handler = (draft: unknown) => (String(draft).length < 5 ? "ok" : undefined);
    const review = interrupt({ name: "review", input: "draft", response: "decision", handler });
    expect(review.handler).toBe(handler);
    expect(review.handler!("hi")).toBe("ok");
    expect(review.handler!("too long")).toBeUndefined();
  });

  it("renames follow responseKey", () => {
    const approval = interrupt({ name: "approval", input: "draft", response: "decision" }).withOutputs({
      decision: "verdict",
    });
    expect(approval.responseKey).toBe("verdict");
  });

  it("definitionHash covers the handler", () => {
    const a = interrupt({ name: "r", input: "d", response: "x", handler: fromSource("(d) => 'ok'") });
    const b = interrupt({ name: "r", input: "d", response: "x", handler: fromSource("(d) => 'no'") });
    expect(a.definitionHash).not.toBe(b.definitionHash);
    expect(interrupt({ name: "r", input: "d", response: "x" }).definitionHash).toBe(
      interrupt({ name: "r", input: "d", response: "x" }).definitionHash,
    );
  });

  it("errors", () => {
    expect(errorOf(() => interrupt({ input: "d", response: "x" } as never)).message).toBe(
      `interrupt() needs a name (a string), got undefined.\n  How to fix: interrupt({ name: "approval", input: "draft", response: "decision" }).`,
    );
    expect(errorOf(() => interrupt({ name: "r", response: "x" } as never)).message).toBe(
      `Interrupt 'r' needs 'input' (a value name), got undefined.\n  How to fix: interrupt({ name: "approval", input: "draft", response: "decision" }).`,
    );
    expect(errorOf(() => interrupt({ name: "r", input: "d", response: "" })).message).toBe(
      `Interrupt 'r' needs 'response' (a value name), got an empty string.\n  How to fix: interrupt({ name: "approval", input: "draft", response: "decision" }).`,
    );
    expect(errorOf(() => interrupt({ name: "r", input: "d", response: "d" })).message).toBe(
      "Interrupt 'r' uses 'd' as both input and response; give the answer its own name.",
    );
    expect(errorOf(() => interrupt({ name: "r/x", input: "d", response: "x" })).message).toContain(
      "Invalid node name 'r/x'",
    );
    expect(errorOf(() => interrupt({ name: "r", input: "d", response: "x.y" })).message).toContain(
      "Invalid output name 'x.y'",
    );
    const badHandler = errorOf(() => interrupt({ name: "r", input: "d", response: "x", handler: "ok" as never }));
    expect(badHandler._tag).toBe("GraphConfigError");
    expect(badHandler.message).toContain("Interrupt 'r' has a handler that is not a function (got a string ('ok')).");
  });

  it("in a graph, the answer is an output that feeds downstream nodes", () => {
    const draft = node({ output: "draft" }, function write({ topic }: { topic: string }) {
      return topic;
    });
    const finalize = node(
      { output: "final" },
      function finalize({ draft, decision }: { draft: string; decision: string }) {
        return `${draft}:${decision}`;
      },
    );
    const graph = new Graph([draft, interrupt({ name: "approval", input: "draft", response: "decision" }), finalize]);
    expect(graph.inputs.required).toEqual(new Set(["topic"]));
    expect(graph.structure.getEdgeAttributes("approval", "finalize")).toEqual({
      edgeType: "data",
      valueNames: ["decision"],
      condition: undefined,
    });
    expect(graph.structure.getNodeAttributes("approval").nodeType).toBe("interrupt");
  });
});
