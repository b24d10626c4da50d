import type { UIMessageChunk } from "ai";

const MARK = "@graph/ai-sdk:ui-chunk";

/**
 * A UI message chunk a node streams as is (`ctx.emit(uiChunk(c))` or `yield uiChunk(c)`): text, reasoning and
 * tool parts reach the page unchanged, their ids made unique per node execution.
 *
 * @example
 * ```ts
 * const chunk: UIChunk = uiChunk({ type: "text-delta", id: "t", delta: "Hi" });
 * ```
 */
export interface UIChunk {
  readonly type: typeof MARK;
  readonly chunk: UIMessageChunk;
}

/**
 * Wraps an AI SDK UI message chunk so the stream forwards it as a part of the answer (see {@link UIChunk}).
 *
 * @example
 * ```ts
 * import { node } from "@graph/core";
 * const note = node({ output: "note" }, function note({ topic }: { topic: string }, ctx) {
 *   ctx.emit(uiChunk({ type: "reasoning-start", id: "r" }));
 *   ctx.emit(uiChunk({ type: "reasoning-delta", id: "r", delta: `thinking about ${topic}` }));
 *   ctx.emit(uiChunk({ type: "reasoning-end", id: "r" }));
 *   return topic;
 * });
 * ```
 */
export function uiChunk(chunk: UIMessageChunk): UIChunk {
  return { type: MARK, chunk };
}

/** True for a value made by {@link uiChunk}. */
export function isUIChunk(value: unknown): value is UIChunk {
  return typeof value === "object" && value !== null && (value as { type?: unknown }).type === MARK;
}

/** Token counts as the AI SDK reports them (`LanguageModelUsage`): only the totals are read. */
export interface ModelUsageLike {
  readonly inputTokens?: number | undefined;
  readonly outputTokens?: number | undefined;
  readonly totalTokens?: number | undefined;
}

/** What {@link streamModel} needs of an AI SDK `streamText` result. */
export interface StreamTextLike {
  toUIMessageStream(options?: { sendStart?: boolean; sendFinish?: boolean }): AsyncIterable<UIMessageChunk>;
  readonly text: PromiseLike<string>;
  /** Read (after the stream) to report the call's usage when a node context is given. */
  readonly totalUsage?: PromiseLike<ModelUsageLike>;
  /** One entry per model call the result made (tool loops make several). */
  readonly steps?: PromiseLike<readonly unknown[]>;
}

/** How a model call's usage is reported: what it cost (`costUsd` from its token counts). */
export interface UsageReportOptions {
  /**
   * The price of the call, from its token counts: a function, or prices per million input and output tokens.
   *
   * @example
   * ```ts
   * const options: UsageReportOptions = { price: { inputPerMillion: 0.15, outputPerMillion: 0.6 } };
   * ```
   */
  readonly price?:
    | ((usage: ModelUsageLike) => number)
    | { readonly inputPerMillion: number; readonly outputPerMillion: number };
}

/** Anything with `ctx.usage` (a node's context). */
export interface UsageSink {
  usage(spent: { tokens?: number; costUsd?: number; calls?: number }): void;
}

/**
 * Reports a model call's usage to the node's context (`ctx.usage`): its total tokens, its cost when `price` is
 * given, and its number of calls (`steps`, 1 by default). Use it after `generateText`; `streamModel(result, ctx)`
 * calls it for streamed calls.
 *
 * @example
 * ```ts
 * import { node } from "@graph/core";
 * import { generateText, type LanguageModel } from "ai";
 * declare const model: LanguageModel;
 *
 * const summarize = node({ output: "summary" }, async ({ text }: { text: string }, ctx) => {
 *   const result = await generateText({ model, prompt: `Summarize: ${text}`, abortSignal: ctx.signal });
 *   reportUsage(ctx, result.totalUsage, { calls: result.steps.length, price: { inputPerMillion: 0.15, outputPerMillion: 0.6 } });
 *   return result.text;
 * });
 * ```
 */
export function reportUsage(
  ctx: UsageSink,
  usage: ModelUsageLike,
  options: UsageReportOptions & { readonly calls?: number } = {},
): void {
  const input = usage.inputTokens ?? 0;
  const output = usage.outputTokens ?? 0;
  const tokens = usage.totalTokens ?? input + output;
  const price = options.price;
  const costUsd =
    price === undefined
      ? undefined
      : typeof price === "function"
        ? price(usage)
        : (input * price.inputPerMillion + output * price.outputPerMillion) / 1_000_000;
  ctx.usage({ tokens, calls: options.calls ?? 1, ...(costUsd === undefined ? {} : { costUsd }) });
}

/**
 * Streams a `streamText` result from a generator node: every text, reasoning and tool chunk the model produces is
 * yielded (the page sees tokens as they are generated) and the model's final text is returned — so
 * `return yield* streamModel(result, ctx)` makes it the node's output. Pass `abortSignal: ctx.signal` to
 * `streamText` so a stopped run stops the model call. With `ctx`, the call's usage (tokens, calls, and cost when
 * `price` is given) is reported with `ctx.usage`, so it counts toward the run's budget.
 *
 * @example
 * ```ts
 * import { node } from "@graph/core";
 * import { streamText, type LanguageModel } from "ai";
 * declare const model: LanguageModel;
 *
 * const answer = node({ output: "answer" }, async function* answer({ question }: { question: string }, ctx) {
 *   const result = streamText({ model, prompt: question, abortSignal: ctx.signal });
 *   return yield* streamModel(result, ctx);
 * });
 * ```
 */
export async function* streamModel(
  result: StreamTextLike,
  ctx?: UsageSink,
  options: UsageReportOptions = {},
): AsyncGenerator<UIChunk, string, undefined> {
  for await (const chunk of result.toUIMessageStream({ sendStart: false, sendFinish: false })) yield uiChunk(chunk);
  const text = await result.text;
  if (ctx !== undefined && result.totalUsage !== undefined) {
    const usage = await result.totalUsage;
    const steps = result.steps === undefined ? undefined : await result.steps;
    reportUsage(ctx, usage, { ...options, calls: steps?.length ?? 1 });
  }
  return text;
}
