import { type UseChatHelpers, useChat } from "@ai-sdk/react";
import type { GraphUIMessage, RunData, StateData, SuspenseData } from "@graph/ai-sdk";
import type { Graph } from "@graph/core";
import { type ChatInit, DefaultChatTransport } from "ai";
import { useCallback, useMemo, useRef } from "react";
import { foldGraphMessages, type NodeActivity } from "./fold.js";

/**
 * Options of {@link useGraphChat}.
 *
 * @example
 * ```ts
 * const options: UseGraphChatOptions = { id: "chat-1", api: "/api/chat", resume: true };
 * ```
 */
export interface UseGraphChatOptions<G extends Graph = Graph>
  extends Pick<ChatInit<GraphUIMessage<G>>, "onError" | "onFinish" | "onData" | "messages"> {
  /** The chat's id — the server's workflow id. Default: one `useChat` generates. */
  readonly id?: string;
  /** The chat endpoint (`GraphChat` behind it). Default `/api/chat`; reconnects use `${api}/${id}/stream`. */
  readonly api?: string;
  /** Reconnect to a run in progress when the page loads (after a reload). Default false. */
  readonly resume?: boolean;
  /** Where `stop()` posts to stop the run on the server. Default `${api}/${id}/stop`. */
  readonly stopUrl?: (id: string) => string;
  /** Re-render at most this often (ms) while tokens stream. */
  readonly throttleMs?: number;
}

/**
 * The pending pause, typed by the graph's interrupts, and how to answer it.
 *
 * @example
 * ```ts
 * declare const suspense: GraphSuspense;
 * await suspense.resume({ approved: true });
 * ```
 */
export type GraphSuspense<G extends Graph = Graph> = SuspenseData<G> & {
  /**
   * Answers the pause: a user message showing the answer (`text`, default the answer itself, as JSON unless it is a
   * string), and the workflow resumed with it on the server.
   */
  resume(answer: unknown, options?: { readonly text?: string }): Promise<void>;
};

/**
 * What {@link useGraphChat} returns: `useChat`'s helpers plus the graph's view of the chat.
 *
 * @example
 * ```ts
 * declare const chat: GraphChatHelpers;
 * chat.activeNodes.includes("draft");
 * ```
 */
export interface GraphChatHelpers<G extends Graph = Graph>
  extends Pick<
    UseChatHelpers<GraphUIMessage<G>>,
    "id" | "messages" | "status" | "error" | "sendMessage" | "setMessages" | "clearError"
  > {
  /** Every value the runs streamed, typed by the graph's outputs. */
  readonly state: StateData<G>["values"];
  /** The latest run's nodes (nested ones by path), with their status and duration. */
  readonly nodes: readonly NodeActivity[];
  /** Paths of the nodes running now. */
  readonly activeNodes: readonly string[];
  /** The pause waiting for an answer, if any. */
  readonly suspense: GraphSuspense<G> | undefined;
  /** The latest run's final status (undefined while it runs). */
  readonly run: RunData | undefined;
  /** Stops the run on the server (and with it the model call); the stream then ends with `data-run` `stopped`. */
  stop(): Promise<void>;
}

function answerText(answer: unknown): string {
  return typeof answer === "string" ? answer : JSON.stringify(answer);
}

/**
 * `useChat` for a graph behind a `GraphChat` endpoint: messages and status as usual, plus the streamed `state`, the
 * nodes running now, the pending pause with `resume(answer)`, and a `stop()` that stops the run on the server.
 *
 * @example
 * ```ts
 * function useSupport(id: string) {
 *   const chat = useGraphChat<typeof graph>({ id, resume: true });
 *   const ask = (text: string) => chat.sendMessage({ text });
 *   const approve = () => chat.suspense?.resume({ approved: true });
 *   return { ask, approve, busy: chat.activeNodes.length > 0, answer: chat.state.answer, stop: chat.stop };
 * }
 * ```
 */
export function useGraphChat<G extends Graph = Graph>(options: UseGraphChatOptions<G> = {}): GraphChatHelpers<G> {
  const api = options.api ?? "/api/chat";
  const transport = useMemo(() => new DefaultChatTransport<GraphUIMessage<G>>({ api }), [api]);
  const chat = useChat<GraphUIMessage<G>>({
    ...(options.id === undefined ? {} : { id: options.id }),
    ...(options.messages === undefined ? {} : { messages: options.messages }),
    ...(options.onError === undefined ? {} : { onError: options.onError }),
    ...(options.onFinish === undefined ? {} : { onFinish: options.onFinish }),
    ...(options.onData === undefined ? {} : { onData: options.onData }),
    ...(options.throttleMs === undefined ? {} : { experimental_throttle: options.throttleMs }),
    resume: options.resume ?? false,
    transport,
  });
  const view = useMemo(() => foldGraphMessages<G>(chat.messages), [chat.messages]);
  const chatRef = useRef(chat);
  chatRef.current = chat;
  const stopUrl = options.stopUrl;

  const stop = useCallback(async () => {
    const id = chatRef.current.id;
    const url = stopUrl?.(id) ?? `${api}/${encodeURIComponent(id)}/stop`;
    // The server stops the run; the stream then ends by itself with what was generated and `data-run` "stopped".
    // Aborting the request instead would only detach this page: the server keeps a run a reload may come back to.
    const response = await fetch(url, { method: "POST" }).catch(() => undefined);
    if (response === undefined || !response.ok) await chatRef.current.stop();
  }, [api, stopUrl]);

  const pending = view.pending;
  const suspense = useMemo<GraphSuspense<G> | undefined>(() => {
    if (pending === undefined) return undefined;
    const data = pending as SuspenseData<G> & { responseKey: string; visit?: number };
    return {
      ...data,
      resume: (answer: unknown, resumeOptions?: { readonly text?: string }) =>
        chatRef.current.sendMessage(
          { text: resumeOptions?.text ?? answerText(answer) },
          {
            body: {
              resume: {
                responseKey: data.responseKey,
                value: answer,
                // Names the pause: an answer to one settled meanwhile is refused, never taken by a later one.
                ...(data.visit === undefined ? {} : { visit: data.visit }),
              },
            },
          },
        ),
    } as GraphSuspense<G>;
  }, [pending]);

  return {
    id: chat.id,
    messages: chat.messages,
    status: chat.status,
    error: chat.error,
    sendMessage: chat.sendMessage,
    setMessages: chat.setMessages,
    clearError: chat.clearError,
    state: view.state,
    nodes: view.nodes,
    activeNodes: view.activeNodes,
    suspense,
    run: view.run,
    stop,
  };
}
