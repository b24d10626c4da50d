import type { FunctionNode } from "@graph/core";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import type { EngineHost } from "../host.js";
import type { Execution, Outcome } from "../outcome.js";

/** Drives a sync or async generator: each yield is a StreamingChunk; honours backpressure and stop signals. */
export function driveStream(
  host: EngineHost,
  ex: Execution,
  n: FunctionNode,
  iterator: Iterator<unknown> | AsyncIterator<unknown>,
): Effect.Effect<Outcome, unknown> {
  const chunks: unknown[] = [];
  const { control, completeOnStop, emitter } = host.config;
  // A node started after the stop (completeOnStop: true) streams to its end.
  const stopAtStart = control.stopRequested;
  const stopNow = () => control.stopRequested && !stopAtStart;
  const onStop = (): Outcome =>
    completeOnStop
      ? { kind: "completed", outputs: n.collectOutputs(joinChunks(chunks)), truncated: true }
      : { kind: "stopped" };
  const push = (chunk: unknown) => {
    chunks.push(chunk);
    host.event("StreamingChunk", { nodeName: n.name, chunk, index: chunks.length - 1 }, ex.spanId);
  };
  const done = (value: unknown): Outcome => ({
    kind: "completed",
    outputs: n.collectOutputs(value !== undefined ? value : joinChunks(chunks)),
  });
  if (n.mode === "sync-generator") {
    // Sync generators can't be paused for a slow reader; they run to the end (or the stop) in one go.
    return Effect.try({
      try: () => {
        const it = iterator as Iterator<unknown>;
        while (true) {
          if (stopNow()) {
            it.return?.(undefined);
            return onStop();
          }
          const step = it.next();
          if (step.done) return done(step.value);
          push(step.value);
        }
      },
      catch: (e) => e,
    });
  }
  const work = async (): Promise<Outcome> => {
    const it = iterator as AsyncIterator<unknown>;
    while (true) {
      if (stopNow()) {
        await it.return?.(undefined);
        return onStop();
      }
      const step = await it.next();
      if (step.done) return done(step.value);
      // After the stop the outcome is already fixed (by the race below): late chunks are dropped.
      if (stopNow()) {
        await it.return?.(undefined);
        return onStop();
      }
      push(step.value);
      const wait = emitter.active ? emitter.pressure() : undefined;
      if (wait !== undefined) await wait;
    }
  };
  const streamed = Effect.tryPromise({ try: work, catch: (e) => e });
  if (stopAtStart) return streamed;
  // Don't wait for a slow generator's next chunk: end on the stop with what arrived so far.
  return Effect.raceFirst(
    streamed,
    Deferred.await(control.stopped).pipe(Effect.flatMap(() => Effect.try({ try: onStop, catch: (e) => e }))),
  );
}

function joinChunks(chunks: readonly unknown[]): unknown {
  return chunks.every((c) => typeof c === "string") ? chunks.join("") : [...chunks];
}
