/**
 * `describeFrozenWriter(options, { holdBoundMs, locksHeld? })`: a runner SIGSTOPped inside one of your store's write
 * transactions (durability "sync") is taken over by another process within its lease + `holdBoundMs` + the
 * `waitForLease` backoff, also when its own lease renewal was in flight. For stores whose write transactions span
 * round trips (PostgreSQL); the `engine.childProcess` module exports `insideWrite(onLocked)`, a hook called inside
 * each write transaction once its locks are taken.
 *
 * @example
 * ```ts
 * import { describeFrozenWriter } from "@graph/checkpoint-conformance";
 * describeFrozenWriter({ name: "postgres", create, engine: { childProcess } }, { holdBoundMs: 5_000 });
 * ```
 *
 * @module
 */
export { describeFrozenWriter, type FrozenWriterOptions } from "./internal/frozenWriter.js";
