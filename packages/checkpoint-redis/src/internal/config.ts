/** The checks of the constructor's options: a wrong value is a `CheckpointError` naming the option. */
import { CheckpointError } from "@graph/checkpoint";

export function configError(message: string, path: string): CheckpointError {
  return new CheckpointError({ message: `RedisCheckpointer: ${message}`, operation: "constructor", path });
}

export function positive(value: number | undefined, fallback: number, path: string, integer = false): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || (integer && !Number.isInteger(value))) {
    throw configError(`${path} must be a non-negative ${integer ? "integer" : "number"}, got ${String(value)}.`, path);
  }
  return value;
}
