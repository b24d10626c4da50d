/**
 * The second argument every node function receives.
 *
 * @example
 * ```ts
 * const fetchDoc = node({ output: "doc" }, async ({ url }: { url: string }, ctx) => {
 *   const res = await fetch(url, { signal: ctx.signal });
 *   return res.text();
 * });
 * ```
 */
export interface NodeContext {
  /** Aborted when the run is stopped (stop signal, `handle.stop()`, aborted `signal`) or the node times out. */
  readonly signal: AbortSignal;
  /** True once a stop was requested for this run. */
  readonly stopRequested: boolean;
  readonly workflowId: string;
  readonly runId: string;
  readonly nodeName: string;
  /**
   * A key for the node's external side effects: the same every time this step runs — retries, and a re-run after
   * the process died or lost its lease before the step was saved — and different for every other step of the
   * workflow (another node, or this node again on new inputs). Pass it to APIs that deduplicate requests.
   *
   * @example
   * ```ts
   * const charge = node({ output: "receipt" }, async ({ order }: { order: { id: string; cents: number } }, ctx) => {
   *   const res = await fetch("https://pay.example/charges", {
   *     method: "POST",
   *     headers: { "Idempotency-Key": ctx.idempotencyKey },
   *     body: JSON.stringify(order),
   *     signal: ctx.signal,
   *   });
   *   return res.json();
   * });
   * ```
   */
  readonly idempotencyKey: string;
  /** 1 for the first attempt, 2… for retries. */
  readonly attempt: number;
  /** Emits a progress chunk as a `StreamingChunk` event (generator nodes do this for each `yield`). */
  emit(chunk: unknown): void;
}

/**
 * Retry policy for a node: `attempts` in total (≥ 1), exponential backoff by default.
 *
 * @example
 * ```ts
 * const flaky = node({ output: "x", retry: { attempts: 3, initialDelayMs: 50 } }, async () => callApi());
 * ```
 */
export interface RetryOptions {
  readonly attempts: number;
  readonly initialDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly backoff?: "exponential" | "linear" | "constant";
  /** Return false to fail at once for this error. Default: retry every error. */
  readonly retryOn?: (error: unknown) => boolean;
}
