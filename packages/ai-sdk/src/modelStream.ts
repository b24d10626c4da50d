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

/** What {@link streamModel} needs of an AI SDK `streamText` result. */
export interface StreamTextLike {
  toUIMessageStream(options?: { sendStart?: boolean; sendFinish?: boolean }): AsyncIterable<UIMessageChunk>;
  readonly text: PromiseLike<string>;
}

/**
 * Streams a `streamText` result from a generator node: every text, reasoning and tool chunk the model produces is
 * yielded (the page sees tokens as they are generated) and the model's final text is returned — so
 * `return yield* streamModel(result)` makes it the node's output. Pass `abortSignal: ctx.signal` to `streamText` so
 * a stopped run stops the model call.
 *
 * @example
 * ```ts
 * import { node } from "@graph/core";
 * import { streamText, type LanguageModel } from "ai";
 * declare const model: LanguageModel;
 *
 * const answer = node({ output: "answer" }, async function* answer({ question }: { question: string }, ctx) {
 *   const result = streamText({ model, prompt: question, abortSignal: ctx.signal });
 *   return yield* streamModel(result);
 * });
 * ```
 */
export async function* streamModel(result: StreamTextLike): AsyncGenerator<UIChunk, string, undefined> {
  for await (const chunk of result.toUIMessageStream({ sendStart: false, sendFinish: false })) yield uiChunk(chunk);
  return await result.text;
}
