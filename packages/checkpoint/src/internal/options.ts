/**
 * Validation of the options every checkpointer shares, so a wrong value is a `CheckpointError` saying what to pass
 * instead of a `TypeError` deep inside a later call.
 */
import { CheckpointError } from "../errors.js";
import type { Serializer } from "../Serializer.js";
import { defaultSerializer } from "../Serializer.js";

function describe(value: unknown): string {
  return value === null ? "null" : Array.isArray(value) ? "an array" : typeof value;
}

/** The options object itself: `undefined` (defaults) or an object. */
export function checkOptionsObject(options: unknown, owner: string, shape: string): void {
  if (options !== undefined && (typeof options !== "object" || options === null || Array.isArray(options))) {
    throw new CheckpointError({
      message: `${owner}: options must be an object ${shape}, got ${describe(options)}.`,
      operation: "constructor",
      path: "options",
    });
  }
}

/** The `serializer` option: `undefined` (the default serializer) or `{ serialize, deserialize }`. */
export function checkSerializer(serializer: unknown, owner: string): Serializer {
  if (serializer === undefined) return defaultSerializer;
  const candidate = serializer as Partial<Serializer> | null;
  if (
    typeof candidate !== "object" ||
    candidate === null ||
    typeof candidate.serialize !== "function" ||
    typeof candidate.deserialize !== "function"
  ) {
    throw new CheckpointError({
      message:
        `${owner}: serializer must be an object with serialize(value) and deserialize(text) functions, ` +
        `got ${describe(serializer)}. Leave it out for the default serializer, or use createSerializer({ classes }).`,
      operation: "constructor",
      path: "serializer",
    });
  }
  return candidate as Serializer;
}
