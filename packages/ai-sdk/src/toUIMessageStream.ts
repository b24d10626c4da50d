import type { Graph } from "@graph/core";
import type { GraphEvent, RunHandle, RunResult } from "@graph/runtime";
import { createUIMessageStream, createUIMessageStreamResponse } from "ai";
import { Translator } from "./internal/translate.js";
import type { GraphUIMessage, GraphUIMessageChunk } from "./parts.js";

/** Status and headers of a response (the AI SDK's `ResponseInit` subset). */
export interface ResponseOptions {
  readonly status?: number;
  readonly statusText?: string;
  readonly headers?: Record<string, string>;
}

/** What {@link toUIMessageStream} streams: a run handle (`runner.start`) or a run's events (`runner.stream`). */
export type RunSource = Pick<RunHandle, "events" | "result" | "stop"> | AsyncIterable<GraphEvent>;

/**
 * Options of {@link toUIMessageStream}.
 *
 * @example
 * ```ts
 * const options: StreamOptions = { select: ["messages", "answer"], stopOnCancel: false };
 * ```
 */
export interface StreamOptions {
  /**
   * `@graph/select` patterns choosing which produced values `data-state` parts carry (`["messages", "answer"]`,
   * `"research/**"`). Default: every top-level value, nothing from nested graphs.
   */
  readonly select?: string | readonly string[];
  /**
   * The text a failure shows the page (`data-node-end.error`, `data-run.error`, the `error` chunk). Default: the
   * error's tag and node (`"NodeExecutionError in node 'draft'"`), never its message, which may carry server details.
   */
  readonly errorMessage?: (error: unknown) => string;
  /** The assistant message's id (the `start` chunk's `messageId`). Default: one the AI SDK generates. */
  readonly messageId?: string;
  /** Aborting it stops the run (a handle only). */
  readonly signal?: AbortSignal;
  /**
   * Whether a reader that cancels the stream (the client went away) stops the run. Default true; set false when
   * the client may reconnect to the same run (see `GraphChat`).
   */
  readonly stopOnCancel?: boolean;
}

function isHandle(source: RunSource): source is Pick<RunHandle, "events" | "result" | "stop"> {
  return typeof (source as { stop?: unknown }).stop === "function" && "events" in source;
}

/**
 * The chunks of a run, start to finish: `start`, then node activity, values and streamed text as they happen, then
 * the pause (if any), `data-run` and `finish`.
 */
export async function* runChunks(
  source: RunSource,
  options: StreamOptions = {},
): AsyncGenerator<GraphUIMessageChunk, void, undefined> {
  const translator = new Translator(options);
  yield options.messageId === undefined ? { type: "start" } : { type: "start", messageId: options.messageId };
  const events = isHandle(source) ? source.events : source;
  let failure: { error: unknown } | undefined;
  try {
    for await (const event of events) yield* translator.push(event);
  } catch (error) {
    failure = { error };
  }
  let result: RunResult | undefined;
  if (isHandle(source)) {
    try {
      result = await source.result;
      failure = undefined;
    } catch (error) {
      failure = { error };
    }
  }
  yield* translator.finish(result, failure);
  yield { type: "finish" };
}

/**
 * A run as an AI SDK UI message stream, built with the SDK's `createUIMessageStream`: `data-node-start` /
 * `data-node-end` for node activity (with the path of nested graphs and map items), `data-state` for produced
 * values, text parts for streamed tokens, `data-node-suspense` when it pauses, `data-run` at the end.
 *
 * @example
 * ```ts
 * import { readUIMessageStream } from "ai";
 *
 * const handle = runner.start(graph, { values: { question: "Where is my order?" } });
 * for await (const message of readUIMessageStream<GraphUIMessage<typeof graph>>({ stream: toUIMessageStream(handle) })) {
 *   console.log(message.parts.at(-1));
 * }
 * ```
 */
export function toUIMessageStream<G extends Graph = Graph>(
  source: RunSource,
  options: StreamOptions = {},
): ReadableStream<GraphUIMessageChunk<G>> {
  const handle = isHandle(source) ? source : undefined;
  if (handle !== undefined && options.signal !== undefined) {
    if (options.signal.aborted) handle.stop(options.signal.reason);
    else options.signal.addEventListener("abort", () => handle.stop(options.signal?.reason), { once: true });
  }
  const stream = createUIMessageStream<GraphUIMessage<G>>({
    execute: async ({ writer }) => {
      for await (const chunk of runChunks(source, options)) writer.write(chunk as GraphUIMessageChunk<G>);
    },
  });
  return handle === undefined || options.stopOnCancel === false ? stream : stopOnCancel(stream, () => handle.stop());
}

/** The same stream, but a reader cancelling it also calls `stop` (the SDK's stream ignores a cancel). */
function stopOnCancel<T>(stream: ReadableStream<T>, stop: () => void): ReadableStream<T> {
  const reader = stream.getReader();
  return new ReadableStream<T>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      stop();
      return reader.cancel(reason);
    },
  });
}

/**
 * {@link toUIMessageStream} as a `Response` (server-sent events with the AI SDK's headers), for route handlers
 * (Next.js, Hono, anything with Web `Response`). The request's `signal` stops the run when the client goes away.
 *
 * @example
 * ```ts
 * // app/api/chat/route.ts (Next.js)
 * export async function POST(request: Request) {
 *   const { question } = (await request.json()) as { question: string };
 *   const handle = runner.start(graph, { values: { question } });
 *   return toUIMessageStreamResponse(handle, { signal: request.signal });
 * }
 * ```
 */
export function toUIMessageStreamResponse<G extends Graph = Graph>(
  source: RunSource,
  options: StreamOptions & ResponseOptions = {},
): Response {
  const { status, statusText, headers, ...streamOptions } = options;
  return createUIMessageStreamResponse({
    stream: toUIMessageStream<G>(source, streamOptions),
    ...(status === undefined ? {} : { status }),
    ...(statusText === undefined ? {} : { statusText }),
    ...(headers === undefined ? {} : { headers }),
  });
}
