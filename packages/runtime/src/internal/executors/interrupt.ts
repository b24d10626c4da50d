import { INPUT_STEP } from "@graph/checkpoint";
import type { InterruptNode } from "@graph/core";
import * as Effect from "effect/Effect";
import type { EngineHost } from "../host.js";
import type { Execution, Outcome } from "../outcome.js";
import { answered, timedPause } from "./timedPause.js";

/**
 * An interrupt takes the caller's answer when one arrived since it last ran; otherwise its handler may answer,
 * or the run pauses for a human.
 */
export function executeInterrupt(host: EngineHost, ex: Execution, n: InterruptNode): Effect.Effect<Outcome> {
  return Effect.suspend(() => {
    const { values, answers } = host.state;
    const response = values.get(n.responseKey);
    const consumedAnswer = answers.get(n.name) ?? 0;
    if (response !== undefined && response.writer === INPUT_STEP && response.version > consumedAnswer) {
      return Effect.succeed<Outcome>(answered(n, response.value));
    }
    const timing = n.timing;
    // A sleep and a waitFor have no handler; an interrupt's handler may still answer before its timeout applies.
    if (timing !== undefined && n.handler === undefined) return Effect.sync(() => timedPause(host, ex, n, timing));
    const value = ex.inputs[n.inputName];
    const paused: Outcome = {
      kind: "paused",
      pause: { reason: "human_input", nodeName: n.name, value, responseKey: n.responseKey },
    };
    const handler = n.handler;
    if (handler === undefined) return Effect.succeed(paused);
    return Effect.tryPromise({ try: async () => handler(value), catch: (e) => e }).pipe(
      Effect.map(
        (answer): Outcome =>
          answer !== undefined ? answered(n, answer) : timing === undefined ? paused : timedPause(host, ex, n, timing),
      ),
      Effect.catchAll((error) => Effect.succeed<Outcome>({ kind: "failed", error })),
    );
  });
}
