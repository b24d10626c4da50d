import { INPUT_STEP } from "@graph/checkpoint";
import type { InterruptNode } from "@graph/core";
import * as Effect from "effect/Effect";
import type { EngineHost } from "../host.js";
import type { Execution, Outcome } from "../outcome.js";

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
      return Effect.succeed<Outcome>({ kind: "completed", outputs: { [n.responseKey]: response.value } });
    }
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
          answer === undefined ? paused : { kind: "completed", outputs: { [n.responseKey]: answer } },
      ),
      Effect.catchAll((error) => Effect.succeed<Outcome>({ kind: "failed", error })),
    );
  });
}
