import { readUIMessageStream, type UIMessageChunk } from "ai";
import { MockLanguageModelV3, simulateReadableStream } from "ai/test";
import type { GraphUIMessage } from "../src/index.js";

/** Every chunk of a stream, in order. */
export async function chunksOf<T>(stream: ReadableStream<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const chunk of stream as unknown as AsyncIterable<T>) out.push(chunk);
  return out;
}

/** The final assistant message the AI SDK's own reader builds from a stream, and how many states it went through. */
export async function messageOf(stream: ReadableStream<UIMessageChunk>): Promise<GraphUIMessage> {
  let last: GraphUIMessage | undefined;
  for await (const message of readUIMessageStream<GraphUIMessage>({ stream })) last = message;
  if (last === undefined) throw new Error("the stream produced no message");
  return last;
}

const usage = {
  inputTokens: { total: 3, noCache: 3, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 2, text: 2, reasoning: undefined },
};

/** A test model that streams `deltas` as one text part (after an optional reasoning part), `delayMs` apart. */
export function textModel(deltas: readonly string[], options: { reasoning?: string; delayMs?: number } = {}) {
  return new MockLanguageModelV3({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunkDelayInMs: options.delayMs ?? 0,
        chunks: [
          ...(options.reasoning === undefined
            ? []
            : [
                { type: "reasoning-start" as const, id: "r1" },
                { type: "reasoning-delta" as const, id: "r1", delta: options.reasoning },
                { type: "reasoning-end" as const, id: "r1" },
              ]),
          { type: "text-start" as const, id: "t1" },
          ...deltas.map((delta) => ({ type: "text-delta" as const, id: "t1", delta })),
          { type: "text-end" as const, id: "t1" },
          { type: "finish" as const, finishReason: { unified: "stop" as const, raw: undefined }, usage },
        ],
      }),
    }),
  });
}
