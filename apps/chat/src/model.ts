/**
 * The support agent's model: the AI SDK's own test model by default (offline, deterministic: it looks orders up with
 * the tool and streams its answer word by word), or any provider through the AI SDK's gateway when
 * `AI_GATEWAY_API_KEY` is set (`CHAT_MODEL`, default `openai/gpt-4o-mini`).
 */
import type { LanguageModel } from "ai";
import { MockLanguageModelV3, simulateReadableStream } from "ai/test";

export interface ModelStats {
  /** Calls of the model (`doStream`), each with its abort signal. */
  readonly calls: AbortSignal[];
}

const usage = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 10, text: 10, reasoning: undefined },
};

type Prompt = readonly { role: string; content: unknown }[];

function textOf(message: { content: unknown } | undefined): string {
  if (message === undefined) return "";
  if (typeof message.content === "string") return message.content;
  return (message.content as { type: string; text?: string }[]).map((p) => p.text ?? "").join("");
}

/** What the scripted agent says next: a tool call for an order it has not looked up yet, else an answer. */
function script(prompt: Prompt): { toolCall: { orderId: string } } | { text: string } {
  const last = prompt.at(-1);
  if (last?.role === "tool") {
    const result = (last.content as { output?: { value?: unknown } }[])[0]?.output?.value as
      | { id: string; status: string; carrier: string; eta: string }
      | undefined;
    if (result === undefined) return { text: "I could not find that order." };
    return {
      text: `Order ${result.id} is ${result.status} with ${result.carrier} and should arrive ${result.eta}. As an apology for the wait I can refund the shipping fee of 4.90 EUR. Shall I send that?`,
    };
  }
  const question = textOf(last);
  const order = /\b([A-Z]-\d+)\b/.exec(question);
  if (order !== null) return { toolCall: { orderId: order[1]! } };
  if (/\blong\b/i.test(question))
    return {
      text: Array.from({ length: 60 }, (_, i) => `Step ${i + 1}: here is more detail about your request.`).join(" "),
    };
  return {
    text: `Thanks for writing in. About "${question}": our team replies within one business day, and I have noted your request.`,
  };
}

/** The offline test model; `delayMs` between tokens. */
function supportModel(delayMs: number, stats: ModelStats = { calls: [] }): LanguageModel {
  let calls = 0;
  return new MockLanguageModelV3({
    provider: "graph-chat",
    modelId: "scripted-support-agent",
    doStream: async (options) => {
      if (options.abortSignal !== undefined) (stats.calls as AbortSignal[]).push(options.abortSignal);
      calls++;
      const next = script(options.prompt as Prompt);
      // The model protocol's stream parts (@ai-sdk/provider's LanguageModelV3StreamPart, which `ai` does not re-export).
      const chunks: readonly object[] =
        "toolCall" in next
          ? [
              {
                type: "tool-call" as const,
                toolCallId: `call-${calls}`,
                toolName: "lookupOrder",
                input: JSON.stringify(next.toolCall),
              },
              { type: "finish" as const, finishReason: { unified: "tool-calls" as const, raw: undefined }, usage },
            ]
          : [
              { type: "text-start" as const, id: "t" },
              ...next.text.split(/(?<= )/).map((delta) => ({ type: "text-delta" as const, id: "t", delta })),
              { type: "text-end" as const, id: "t" },
              { type: "finish" as const, finishReason: { unified: "stop" as const, raw: undefined }, usage },
            ];
      return { stream: simulateReadableStream({ chunks: chunks as never[], chunkDelayInMs: delayMs }) };
    },
  });
}

/** The model to use: a provider through the gateway when its key is set, else the offline test model. */
export function chooseModel(delayMs: number, stats?: ModelStats): { model: LanguageModel; name: string } {
  if (process.env.AI_GATEWAY_API_KEY) {
    const name = process.env.CHAT_MODEL ?? "openai/gpt-4o-mini";
    return { model: name, name };
  }
  return { model: supportModel(delayMs, stats), name: "offline test model (ai/test MockLanguageModelV3)" };
}
