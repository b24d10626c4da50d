/**
 * The support agent: a tool loop (the model looks orders up until it can answer), a human approval of the drafted
 * reply, then the reply is sent. Every step is a node of one durable workflow per chat.
 */
import { uiChunk } from "@graph/ai-sdk";
import { Graph, interrupt, node, route } from "@graph/core";
import { type LanguageModel, type ModelMessage, streamText, tool } from "ai";
import { z } from "zod";

export interface Turn {
  readonly role: "user" | "assistant";
  readonly text: string;
}

interface ToolCall {
  readonly toolCallId: string;
  readonly toolName: string;
  readonly input: unknown;
}

interface Step {
  /** Which turn (conversation length) this step belongs to: tool results of an earlier turn are not reused. */
  readonly turn: number;
  readonly text: string;
  readonly toolCalls: readonly ToolCall[];
}

interface ToolResults {
  readonly turn: number;
  readonly messages: readonly ModelMessage[];
}

const orders: Record<string, { status: string; carrier: string; eta: string }> = {
  "A-123": { status: "shipped", carrier: "DHL", eta: "on Friday" },
  "A-200": { status: "packed", carrier: "UPS", eta: "next Tuesday" },
};

const lookupOrderInput = z.object({ orderId: z.string().describe("The order id, like A-123") });

/** What the human answers the approval with. */
const decisionSchema = z.object({
  approved: z.boolean(),
  note: z.string().max(200).optional(),
});
type Decision = z.infer<typeof decisionSchema>;

export function supportGraph(model: LanguageModel) {
  const agent = node(
    { output: "step" },
    async function* agent(
      {
        conversation,
        toolResults = { turn: -1, messages: [] },
      }: { conversation: readonly Turn[]; toolResults?: ToolResults },
      ctx,
    ) {
      const turn = conversation.length;
      const messages: ModelMessage[] = [
        ...conversation.map((t): ModelMessage => ({ role: t.role, content: t.text })),
        ...(toolResults.turn === turn ? toolResults.messages : []),
      ];
      const result = streamText({
        model,
        system: "You are a friendly support agent for an online shop. Look orders up before answering.",
        messages,
        tools: { lookupOrder: tool({ description: "Looks an order up by id", inputSchema: lookupOrderInput }) },
        abortSignal: ctx.signal,
      });
      // Tokens and tool calls reach the page as the model produces them.
      for await (const chunk of result.toUIMessageStream({ sendStart: false, sendFinish: false })) yield uiChunk(chunk);
      const toolCalls = (await result.toolCalls).map((c) => ({
        toolCallId: c.toolCallId,
        toolName: c.toolName,
        input: c.input,
      }));
      const step: Step = { turn, text: await result.text, toolCalls };
      return step;
    },
  );

  const decide = route({ targets: ["tools", "compose"] }, function decide({ step }: { step: Step }) {
    return step.toolCalls.length > 0 ? "tools" : "compose";
  });

  const tools = node({ output: "toolResults" }, function tools({ step }: { step: Step }, ctx) {
    const messages: ModelMessage[] = [
      {
        role: "assistant",
        content: step.toolCalls.map((c) => ({
          type: "tool-call" as const,
          toolCallId: c.toolCallId,
          toolName: c.toolName,
          input: c.input,
        })),
      },
    ];
    for (const call of step.toolCalls) {
      const { orderId } = lookupOrderInput.parse(call.input);
      const found = orders[orderId];
      const output =
        found === undefined ? { id: orderId, status: "unknown", carrier: "-", eta: "-" } : { id: orderId, ...found };
      ctx.emit(uiChunk({ type: "tool-output-available", toolCallId: call.toolCallId, output }));
      messages.push({
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: call.toolCallId,
            toolName: call.toolName,
            output: { type: "json", value: output },
          },
        ],
      });
    }
    const results: ToolResults = { turn: step.turn, messages };
    return results;
  });

  const compose = node({ output: "draft" }, function compose({ step }: { step: Step }) {
    return step.text;
  });

  const approval = interrupt({
    name: "approval",
    input: "draft",
    response: "decision",
    // The answer's schema: every resume is checked against it (by the runtime too), and it types the page's answer.
    schema: decisionSchema,
    // Types the shown value (the draft) for the page; never answers by itself.
    handler: (_draft: string): Decision | undefined => undefined,
  });

  const send = node(
    { output: "answer", inputs: { draft: z.string(), decision: decisionSchema } },
    function send({ draft, decision }) {
      if (!decision.approved) return `Not sent${decision.note ? ` (${decision.note})` : ""}.`;
      return `Sent to the customer${decision.note ? ` with the note "${decision.note}"` : ""}: ${draft}`;
    },
  );

  return new Graph([agent, decide, tools, compose, approval, send], { name: "support", entrypoint: "agent" });
}

export type SupportGraph = ReturnType<typeof supportGraph>;
