/**
 * Step snapshots for the `async` and `exit` durability modes: those write a step after the node that produced it
 * returned, possibly after later nodes ran. Without a snapshot a later node that mutates its input would rewrite
 * the stored upstream output, and a value that cannot be stored would only be reported once the writer reached it.
 */
import type { StepRecord } from "../Checkpointer.js";
import type { Serializer } from "../Serializer.js";
import { defaultSerializer, deserializeStored, serializeStored } from "../Serializer.js";

/** The text each snapshot's `values` was read back from, so an adapter storing text need not serialise it again. */
const texts = new WeakMap<object, { readonly serializer: Serializer; readonly text: string }>();

/** The stored form of `values` when they are a snapshot made with `serializer` (see {@link snapshotStep}). */
export function snapshotText(values: object, serializer: Serializer): string | undefined {
  const known = texts.get(values);
  return known?.serializer === serializer ? known.text : undefined;
}

function roundTrip(serializer: Serializer, value: unknown, step: StepRecord, path: string): unknown {
  const where = { workflowId: step.workflowId, nodeName: step.nodeName, operation: "saveStep", path };
  const text = serializeStored(serializer, value, where);
  const copy = deserializeStored(serializer, text, where);
  if (typeof copy === "object" && copy !== null) texts.set(copy, { serializer, text });
  return copy;
}

/**
 * A copy of `step` whose `values` (and pause value, usage and budget) no longer share objects with the running graph.
 *
 * With the adapter's serializer (`Checkpointer.serializer`), the values are serialised and read back right away,
 * so a value that cannot be stored throws the usual `CheckpointError` (path `values.…`) at the step that produced
 * it. An adapter that does not expose its serializer gets a default-format copy where that format can hold the
 * value; anything else is passed on by reference and left to the adapter's own serializer at write time.
 */
export function snapshotStep(step: StepRecord, serializer: Serializer | undefined): StepRecord {
  if (typeof step !== "object" || step === null) return step;
  const copy = (value: unknown, path: string): unknown => {
    if (serializer !== undefined) return roundTrip(serializer, value, step, path);
    try {
      return roundTrip(defaultSerializer, value, step, path);
    } catch {
      return value;
    }
  };
  const values = copy(step.values, "values") as StepRecord["values"];
  const pause = step.pause === undefined ? undefined : { ...step.pause, value: copy(step.pause.value, "pause.value") };
  // Usage and budget are flat records of numbers: a shallow copy is a full one.
  return {
    ...step,
    values,
    ...(pause === undefined ? {} : { pause }),
    ...(step.usage === undefined ? {} : { usage: { ...step.usage } }),
    ...(step.budget === undefined ? {} : { budget: { ...step.budget } }),
  };
}
