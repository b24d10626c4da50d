import { describe, expect, it } from "vitest";
import {
  compareDue,
  decodeWorkflowRecord,
  encodeWorkflowUpdate,
  keepsTimes,
  MAX_EVENT_KEY_BYTES,
  MAX_EVENT_NAME_BYTES,
  resolveDueOptions,
  resolveWaitingOptions,
  validateEventWait,
  validateNewWorkflow,
  validateWakeAt,
} from "../src/adapter.js";
import type { CheckpointError } from "../src/index.js";
import { defaultSerializer, guardCheckpointer, isCheckpointError, MemoryCheckpointer } from "../src/index.js";

function thrown(run: () => unknown): CheckpointError {
  try {
    run();
  } catch (error) {
    if (isCheckpointError(error)) return error;
    throw error;
  }
  throw new Error("expected a CheckpointError");
}

const where = { operation: "updateWorkflow", workflowId: "wf", path: "wakeAt" };

describe("due-time and event-wait rules (@graph/checkpoint/adapter)", () => {
  it("validateWakeAt returns ms for a valid Date and names the field otherwise", () => {
    expect(validateWakeAt(new Date(1234), where)).toBe(1234);
    expect(validateWakeAt(new Date(-5), where)).toBe(-5);
    const invalid = thrown(() => validateWakeAt(new Date(Number.NaN), where));
    expect(invalid.message).toBe("updateWorkflow('wf'): wakeAt must be a valid Date, got an invalid Date.");
    expect(invalid.path).toBe("wakeAt");
    expect(invalid.workflowId).toBe("wf");
    expect(thrown(() => validateWakeAt(1234, where)).message).toContain("got 1234");
    expect(thrown(() => validateWakeAt("2030-01-01", where)).message).toContain('got "2030-01-01"');
    expect(thrown(() => validateWakeAt({}, { operation: "listDue", path: "before" })).message).toBe(
      "listDue: before must be a valid Date, got an object.",
    );
  });

  it("validateEventWait keeps the two texts only and bounds them in UTF-8 bytes", () => {
    const wait = { event: "e", key: "k", extra: 1 } as unknown;
    expect(validateEventWait(wait, { ...where, path: "waitingFor" })).toStrictEqual({ event: "e", key: "k" });
    const name = "é".repeat(MAX_EVENT_NAME_BYTES / 2);
    const key = "k".repeat(MAX_EVENT_KEY_BYTES);
    expect(validateEventWait({ event: name, key }, { ...where, path: "waitingFor" })).toStrictEqual({
      event: name,
      key,
    });
    const long = thrown(() => validateEventWait({ event: `${name}x`, key }, { ...where, path: "waitingFor" }));
    expect(long.path).toBe("waitingFor.event");
    expect(long.message).toContain(`at most ${MAX_EVENT_NAME_BYTES} UTF-8 bytes`);
    expect(thrown(() => validateEventWait({ event: "e", key: `${key}k` }, { ...where, path: "w" })).path).toBe("w.key");
    expect(thrown(() => validateEventWait(null, { ...where, path: "waitingFor" })).message).toBe(
      "updateWorkflow('wf'): waitingFor must be { event, key }, got null.",
    );
  });

  it("resolveDueOptions / resolveWaitingOptions default the limit to 100 and refuse bad ones", () => {
    expect(resolveDueOptions({ before: new Date(7) })).toStrictEqual({ before: 7, limit: 100 });
    expect(resolveDueOptions({ before: new Date(7), limit: 3 })).toStrictEqual({ before: 7, limit: 3 });
    expect(thrown(() => resolveDueOptions(undefined)).message).toBe("listDue expects { before: Date, limit? }.");
    expect(thrown(() => resolveDueOptions({ before: new Date(), limit: 0 })).message).toBe(
      "Invalid listDue limit 0: it must be a positive integer (default 100).",
    );
    expect(resolveWaitingOptions({ event: "e", key: "k" }, undefined)).toStrictEqual({
      wait: { event: "e", key: "k" },
      limit: 100,
    });
    expect(thrown(() => resolveWaitingOptions({ event: "e", key: "k" }, { limit: "5" })).message).toBe(
      'Invalid listWaiting limit "5": it must be a positive integer (default 100).',
    );
    expect(thrown(() => resolveWaitingOptions({ event: "e", key: "k" }, 5)).operation).toBe("listWaiting");
  });

  it("only paused and running workflows keep times; the due order is time then id", () => {
    expect((["running", "paused", "completed", "failed", "stopped"] as const).map(keepsTimes)).toStrictEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
    const due = [
      { id: "b", wakeAt: 2 },
      { id: "c", wakeAt: 1 },
      { id: "a", wakeAt: 2 },
    ];
    expect(due.sort(compareDue).map((entry) => entry.id)).toStrictEqual(["c", "a", "b"]);
  });

  it("encodeWorkflowUpdate encodes wakeAt as ms, keeps null, and clears both for a terminal status", () => {
    const wait = { event: "e", key: "k" };
    expect(encodeWorkflowUpdate("wf", { wakeAt: new Date(5), waitingFor: wait }, defaultSerializer, "u")).toStrictEqual(
      { wakeAt: 5, waitingFor: wait },
    );
    expect(encodeWorkflowUpdate("wf", { wakeAt: null, waitingFor: null }, defaultSerializer, "u")).toStrictEqual({
      wakeAt: null,
      waitingFor: null,
    });
    expect(encodeWorkflowUpdate("wf", { status: "paused", wakeAt: new Date(5) }, defaultSerializer, "u")).toStrictEqual(
      { status: "paused", wakeAt: 5 },
    );
    for (const status of ["completed", "failed", "stopped"] as const) {
      expect(encodeWorkflowUpdate("wf", { status, wakeAt: new Date(5) }, defaultSerializer, "u")).toStrictEqual({
        status,
        wakeAt: null,
        waitingFor: null,
      });
    }
    expect(encodeWorkflowUpdate("wf", { status: "running" }, defaultSerializer, "u")).toStrictEqual({
      status: "running",
    });
  });

  it("validateNewWorkflow checks the due time of a delayed start", () => {
    validateNewWorkflow({ id: "wf", graphName: "g", graphHash: "h", wakeAt: new Date(1) }, "createWorkflow");
    const error = thrown(() =>
      validateNewWorkflow({ id: "wf", graphName: "g", graphHash: "h", wakeAt: new Date(Number.NaN) }, "createWorkflow"),
    );
    expect(error.message).toBe("createWorkflow('wf'): wakeAt must be a valid Date, got an invalid Date.");
  });

  it("decodeWorkflowRecord reads the due time and the wait, and calls a half-stored wait corrupt", () => {
    const parts = {
      id: "wf",
      status: "paused",
      graphName: "g",
      graphHash: "h",
      parentId: undefined,
      pause: undefined,
      error: undefined,
      lastSuperstep: -1,
      stepCount: 0,
      lease: undefined,
      stopRequested: undefined,
      createdAt: 1,
      updatedAt: 2,
    };
    const corrupt = (part: string) => new Error(`corrupt ${part}`) as unknown as CheckpointError;
    const record = decodeWorkflowRecord(
      { ...parts, wakeAt: 9, waitingEvent: "e", waitingKey: "k" },
      defaultSerializer,
      "getWorkflow",
      corrupt,
    );
    expect(record.wakeAt).toStrictEqual(new Date(9));
    expect(record.waitingFor).toStrictEqual({ event: "e", key: "k" });
    expect("wakeAt" in decodeWorkflowRecord(parts, defaultSerializer, "getWorkflow", corrupt)).toBe(false);
    expect(() =>
      decodeWorkflowRecord({ ...parts, waitingEvent: "e" }, defaultSerializer, "getWorkflow", corrupt),
    ).toThrow("corrupt waitingFor");
    expect(() => decodeWorkflowRecord({ ...parts, wakeAt: 1.5 }, defaultSerializer, "getWorkflow", corrupt)).toThrow(
      "corrupt wakeAt",
    );
  });
});

describe("guardCheckpointer and the time queries", () => {
  it("forwards listDue, nextDue and listWaiting, classifying what they throw", async () => {
    const memory = new MemoryCheckpointer();
    const guarded = guardCheckpointer(memory);
    await guarded.createWorkflow({ id: "late", graphName: "g", graphHash: "h", wakeAt: new Date(20) });
    await guarded.createWorkflow({ id: "early", graphName: "g", graphHash: "h", wakeAt: new Date(10) });
    await guarded.updateWorkflow("early", { waitingFor: { event: "e", key: "k" } });
    expect(await guarded.listDue({ before: new Date(15) })).toStrictEqual([{ id: "early", wakeAt: new Date(10) }]);
    expect(await guarded.nextDue()).toStrictEqual(new Date(10));
    expect(await guarded.listWaiting({ event: "e", key: "k" })).toStrictEqual(["early"]);
    expect(await guarded.listWaiting({ event: "e", key: "k" }, { limit: 1 })).toStrictEqual(["early"]);
    const error = await guarded.listDue({ before: new Date(Number.NaN) }).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ _tag: "CheckpointError", operation: "listDue", path: "before" });
    await guarded.close();
    await expect(guarded.nextDue()).rejects.toMatchObject({ _tag: "CheckpointError", operation: "nextDue" });
  });

  it("fails them with a CheckpointError naming the method for an adapter written for an older contract", async () => {
    const memory = new MemoryCheckpointer();
    const older = {
      setup: () => memory.setup(),
      close: () => memory.close(),
    } as unknown as MemoryCheckpointer;
    const guarded = guardCheckpointer(older);
    for (const [method, call] of [
      ["listDue", () => guarded.listDue({ before: new Date() })],
      ["nextDue", () => guarded.nextDue()],
      ["listWaiting", () => guarded.listWaiting({ event: "e", key: "k" })],
    ] as const) {
      const error = await call().catch((caught: unknown) => caught);
      expect(error).toMatchObject({ _tag: "CheckpointError", operation: method });
      expect((error as Error).message).toBe(
        `The checkpointer adapter has no ${method}() (it was written for an older @graph/checkpoint contract). ` +
          "Upgrade the adapter package; custom adapters must implement listDue, nextDue and listWaiting (due times " +
          "and event waits) and pass @graph/checkpoint-conformance.",
      );
    }
  });
});

describe("MemoryCheckpointer.watchDue", () => {
  it("tells every watcher each due time stored on the instance, until it stops watching; refuses a non-function", async () => {
    const cp = new MemoryCheckpointer();
    const seen: number[] = [];
    const other: number[] = [];
    const stop = await cp.watchDue((at) => void seen.push(at.getTime()));
    const stopOther = await cp.watchDue((at) => void other.push(at.getTime()));
    await cp.createWorkflow({ id: "delayed", graphName: "g", graphHash: "h", wakeAt: new Date(5_000) });
    await cp.createWorkflow({ id: "plain", graphName: "g", graphHash: "h" });
    const lease = await cp.claimWorkflow("plain", { owner: "me", ttlMs: 10_000 });
    await cp.updateWorkflow("plain", { status: "paused", wakeAt: new Date(7_000) }, { epoch: lease.epoch });
    await cp.updateWorkflow("plain", { status: "completed", wakeAt: new Date(9_000) }, { epoch: lease.epoch });
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([5_000, 7_000]);
    expect(other).toEqual([5_000, 7_000]);
    await stop();
    await cp.updateWorkflow("plain", { status: "paused", wakeAt: new Date(11_000) }, { epoch: lease.epoch });
    await new Promise((resolve) => setImmediate(resolve));
    expect(seen).toEqual([5_000, 7_000]);
    expect(other).toEqual([5_000, 7_000, 11_000]);
    await stopOther();
    await expect(cp.watchDue(42 as never)).rejects.toMatchObject({ _tag: "CheckpointError" });
  });
});
