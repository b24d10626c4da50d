/**
 * What a node spent, reported with {@link NodeContext.usage}; a run's totals and its {@link Budget} have the same
 * fields. Every field is a finite number ≥ 0.
 *
 * @example
 * ```ts
 * const spent: Usage = { tokens: 1_250, costUsd: 0.004 };
 * ```
 */
export interface Usage {
  readonly tokens?: number;
  readonly costUsd?: number;
  /** Model or API calls. A report without `calls` counts as one call. */
  readonly calls?: number;
  /** Wall time of the run while it ran (not while it was paused). Measured by the runner, not reported. */
  readonly wallMs?: number;
}

/**
 * The limits of a run (`runner.run(graph, values, { budget })`). When the run's totals — its nested runs and map
 * items included — cross one, the run pauses with `pause.reason: "budget"` after the step that crossed it; answer
 * with the amounts to add (`{ tokens: 1_000 }`) to continue, or stop it.
 *
 * @example
 * ```ts
 * const budget: Budget = { tokens: 50_000, costUsd: 2, wallMs: 600_000 };
 * ```
 */
export type Budget = Usage;

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
  /**
   * 1 for the first attempt, 2… for retries. With a checkpointer the number survives a stop, a crash and a resume: a
   * resumed run goes on with the attempt that was cut off (docs/durability.md, "Retries across stops and crashes").
   */
  readonly attempt: number;
  /** Emits a progress chunk as a `StreamingChunk` event (generator nodes do this for each `yield`). */
  emit(chunk: unknown): void;
  /**
   * Reports what this node spent (tokens, cost, calls). The amounts are stored with the node's step, added to the
   * run's totals (`result.usage`) and checked against the run's {@link Budget}. Call it once per model call; the
   * AI SDK adapter (`streamModel(result, ctx)`) does it for you.
   *
   * @example
   * ```ts
   * const summarize = node({ output: "summary" }, async ({ text }: { text: string }, ctx) => {
   *   const reply = { text: text.slice(0, 20), tokens: 120 }; // your model call
   *   ctx.usage({ tokens: reply.tokens, costUsd: reply.tokens * 2e-6 });
   *   return reply.text;
   * });
   * ```
   */
  usage(spent: Omit<Usage, "wallMs">): void;
}

/**
 * Retry policy for a node: `attempts` in total (≥ 1), exponential backoff by default. With a checkpointer the budget
 * holds across stops, crashes and resumes of the workflow: each attempt start is stored.
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
