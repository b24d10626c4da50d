import { describe, expect, it } from "vitest";
import { createSerializer, defaultSerializer, isCheckpointError, MemoryCheckpointer } from "../src/index.js";

class AIMessage {
  constructor(
    readonly content: string,
    readonly meta: { readonly at: Date; readonly tags: Set<string> },
  ) {}
}
class ToolMessage extends AIMessage {}

function caught(body: () => unknown): unknown {
  try {
    body();
  } catch (error) {
    return error;
  }
  throw new Error("expected a throw");
}

const withClasses = () =>
  createSerializer()
    .register(AIMessage, {
      encode: (m) => ({ content: m.content, meta: m.meta }),
      decode: (d: { content: string; meta: AIMessage["meta"] }) => new AIMessage(d.content, d.meta),
    })
    .register(Error, {
      encode: (e) => ({ name: e.name, message: e.message }),
      decode: (d: { name: string; message: string }) => Object.assign(new Error(d.message), { name: d.name }),
    })
    .register(RegExp, { encode: (r) => [r.source, r.flags], decode: ([source, flags]) => new RegExp(source, flags) });

describe("createSerializer: registered classes", () => {
  it("round-trips instances of registered classes, nested in plain data, Maps and each other", () => {
    const serializer = withClasses();
    const message = new AIMessage("hi", { at: new Date(5), tags: new Set(["a"]) });
    const value = {
      messages: [message],
      byId: new Map([["m1", message]]),
      failure: new TypeError("bad"),
      pattern: /a+b/gi,
    };
    const text = serializer.serialize(value);
    expect(JSON.parse(text).messages[0]).toEqual({
      $t: "Class",
      v: [
        "AIMessage",
        { content: "hi", meta: { at: { $t: "Date", v: "1970-01-01T00:00:00.005Z" }, tags: { $t: "Set", v: ["a"] } } },
      ],
    });
    const back = serializer.deserialize(text) as typeof value;
    expect(back.messages[0]).toBeInstanceOf(AIMessage);
    expect(back.messages[0]).toEqual(message);
    expect(back.messages[0]?.meta.at).toEqual(new Date(5));
    expect(back.byId.get("m1")).toEqual(message);
    // A subclass without its own registration uses its base class's (stored under the base name).
    expect(back.failure).toBeInstanceOf(Error);
    expect(back.failure).toMatchObject({ name: "TypeError", message: "bad" });
    expect(back.pattern).toEqual(/a+b/gi);
    const tool = serializer.deserialize(serializer.serialize(new ToolMessage("t", message.meta)));
    expect(tool).toBeInstanceOf(AIMessage);
  });

  it("works through a checkpointer (steps and state)", async () => {
    const checkpointer = new MemoryCheckpointer({ serializer: withClasses() });
    await checkpointer.createWorkflow({ id: "wf", graphName: "g", graphHash: "h" });
    const message = new AIMessage("answer", { at: new Date(0), tags: new Set() });
    await checkpointer.saveStep({
      workflowId: "wf",
      superstep: 0,
      nodeName: "llm",
      index: 0,
      status: "completed",
      inputVersions: {},
      values: { message },
      truncated: false,
      startedAt: new Date(0),
      completedAt: new Date(1),
    });
    const state = await checkpointer.getState("wf");
    expect(state["message"]).toBeInstanceOf(AIMessage);
    expect(state["message"]).toEqual(message);
  });

  it("keeps the clear error for unregistered classes, now naming the way to register", () => {
    const error = caught(() =>
      defaultSerializer.serialize({ reply: new AIMessage("x", { at: new Date(0), tags: new Set() }) }),
    );
    expect(isCheckpointError(error)).toBe(true);
    expect(error).toMatchObject({ path: "reply" });
    expect((error as Error).message).toContain("an instance of AIMessage, which is not a supported type");
    expect((error as Error).message).toContain("createSerializer().register(AIMessage, { encode, decode })");
  });

  it("reading an instance of a class this serializer does not know is a clear CheckpointError", () => {
    const text = withClasses().serialize({ p: /x/ });
    const error = caught(() => createSerializer().deserialize(text));
    expect(isCheckpointError(error)).toBe(true);
    expect((error as Error).message).toMatch(
      /instance of class 'RegExp', which is not registered with this serializer/,
    );
    expect(error).toMatchObject({ path: "p" });
  });

  it("an encode or decode that throws becomes a CheckpointError naming the class", () => {
    class Fragile {}
    const serializer = createSerializer().register(Fragile, {
      encode: () => {
        throw new Error("nope");
      },
      decode: () => new Fragile(),
    });
    const error = caught(() => serializer.serialize({ f: new Fragile() }));
    expect(isCheckpointError(error)).toBe(true);
    expect((error as Error).message).toMatch(/encode function registered for class 'Fragile' threw: Error: nope/);
  });

  it("validates registrations with CheckpointErrors", () => {
    const serializer = createSerializer();
    const cases: [() => unknown, RegExp][] = [
      [() => serializer.register("x" as never, { encode: (v) => v, decode: (v) => v }), /expects a class/],
      [() => serializer.register(AIMessage, null as never), /needs \{ encode, decode \}/],
      [() => serializer.register(AIMessage, { encode: (v: unknown) => v } as never), /both encode and decode/],
      [() => serializer.register(class {}, { encode: (v) => v, decode: (v) => v }), /anonymous class needs \{ name \}/],
    ];
    for (const [attempt, message] of cases) {
      const error = caught(attempt);
      expect(isCheckpointError(error)).toBe(true);
      expect((error as Error).message).toMatch(message);
    }
    serializer.register(AIMessage, {
      encode: (m) => m.content,
      decode: (c) => new AIMessage(c, { at: new Date(0), tags: new Set() }),
    });
    const duplicate = caught(() => serializer.register(AIMessage, { encode: (m) => m.content, decode: (c) => c }));
    expect((duplicate as Error).message).toMatch(/class 'AIMessage' is already registered/);
  });
});
