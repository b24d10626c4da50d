// Kept apart from explainRecord.ts, whose types the public explain() declarations reference: this one needs the
// runner's Effect-typed shared state.
import type { Shared } from "./context.js";
import type { ExplainRecorder } from "./explainRecord.js";

/**
 * The runner's shared state with the recorder added to its processors, for one run. A prototype link keeps the
 * shared span counter's getter and setter (a spread would copy its value).
 */
export function withRecorder(shared: Shared, recorder: ExplainRecorder | undefined): Shared {
  if (recorder === undefined) return shared;
  return Object.create(shared, { processors: { value: [...shared.processors, recorder], enumerable: true } }) as Shared;
}
