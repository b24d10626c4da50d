import { CheckpointError } from "../errors.js";

/** A graph's definition hash: a sha256 hex digest (the only key `putGraphStructure` accepts). */
const HASH = /^[0-9a-f]{64}$/;

/**
 * Checks the arguments of `putGraphStructure`: a sha256 hex hash and a JSON object text. Every backend stores
 * the same texts and refuses the same calls, before touching storage.
 *
 * @example
 * ```ts
 * import { checkGraphStructure } from "@graph/checkpoint/adapter";
 * checkGraphStructure("a".repeat(64), '{"version":1}', "MyCheckpointer.putGraphStructure");
 * ```
 */
export function checkGraphStructure(hash: unknown, structure: unknown, operation: string): void {
  if (typeof hash !== "string" || !HASH.test(hash))
    throw new CheckpointError({
      message:
        `${operation} expects a graph definition hash (64 lowercase hex digits), got ${JSON.stringify(hash)}. ` +
        "Pass graph.definitionHash.",
      operation,
      path: "hash",
    });
  let parsed: unknown;
  try {
    parsed = typeof structure === "string" ? JSON.parse(structure) : undefined;
  } catch {
    parsed = undefined;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed))
    throw new CheckpointError({
      message: `${operation} expects the structure as the JSON text of an object (JSON.stringify(structure)).`,
      operation,
      path: "structure",
    });
}
