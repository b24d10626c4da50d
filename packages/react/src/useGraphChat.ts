import { type UseChatHelpers, useChat } from "@ai-sdk/react";
import type { GraphUIMessage, RunData, StateData, SuspenseData } from "@graph/ai-sdk";
import type { Graph, OutputsOf } from "@graph/core";
import { type ChatInit, DefaultChatTransport } from "ai";
import { useCallback, useMemo, useRef, useState } from "react";
import { GraphChatError, refusalOf } from "./errors.js";
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
  /** Where `stop()` sends `POST` to stop the run on the server. Default `${api}/${id}/stop`. */
  readonly stopUrl?: (id: string) => string;
  /** Re-render at most this often (ms) while tokens stream. */
  readonly throttleMs?: number;
}

/**
 * The answer a pause under `K` takes: the type of the graph's value of that name (the interrupt's `schema`, or its
 * handler's answer type); `unknown` for an untyped graph.
 */
type AnswerOf<G, K> = G extends Graph
  ? K extends keyof OutputsOf<G>
    ? unknown extends OutputsOf<G>[K]
      ? unknown
      : Exclude<OutputsOf<G>[K], undefined>
    : unknown
  : unknown;

type WithResume<G, S> = S extends { readonly responseKey: infer K }
  ? S & {
      /**
       * Answers the pause: a user message showing the answer (`text`, default the answer itself, as JSON unless it
       * is a string), and the workflow resumed with it on the server. When the server refuses the answer (it does
       * not match the schema, the pause was answered elsewhere), the message is taken back, the pause stays pending
       * and `error` is a {@link GraphChatError} with the server's message and `issues`.
       */
      resume(answer: AnswerOf<G, K>, options?: { readonly text?: string }): Promise<void>;
    }
  : never;

/**
 * The pending pause, typed by the graph's interrupts, and how to answer it (the answer typed by the interrupt's
 * `schema`).
 *
 * @example
 * ```ts
 * declare const suspense: GraphSuspense;
 * await suspense.resume({ approved: true });
 * ```
 */
export type GraphSuspense<G extends Graph = Graph> = WithResume<G, SuspenseData<G>>;

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
    "id" | "messages" | "status" | "sendMessage" | "setMessages" | "clearError"
  > {
  /**
   * The last request's failure. A request the server refused — a turn, an answer, a stop — is a
   * {@link GraphChatError} (the server's `message`, `code`, `issues`, `status`); a refused message or answer was
   * taken back from `messages`.
   */
  readonly error: Error | undefined;
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
  /**
   * Stops the run on the server (`POST` to the stop route; with it the model call); the stream then ends with
   * `data-run` `stopped`. A stop the server did not confirm sets `error` (a {@link GraphChatError} with `action:
   * "stop"`): the run goes on, and the page keeps following it.
   */
  stop(): Promise<void>;
}

function isAnswer(body: string): boolean {
  try {
    return (JSON.parse(body) as { resume?: unknown }).resume !== undefined;
  } catch {
    return false;
  }
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
  // The last refusal of a turn or answer, for the call that sent it to take its message back.
  const refusal = useRef<GraphChatError | undefined>(undefined);
  const transport = useMemo(
    () =>
      new DefaultChatTransport<GraphUIMessage<G>>({
        api,
        // The SDK turns a refused response into an Error holding the raw body; the server's own message, code and
        // issues are what the page should see.
        fetch: async (input, init) => {
          const response = await fetch(input, init);
          if (response.ok || response.status === 204) return response;
          const isResume = typeof init?.body === "string" && isAnswer(init.body);
          const error = await refusalOf(response, isResume ? "resume" : "send");
          if (init?.method === "POST") refusal.current = error;
          throw error;
        },
      }),
    [api],
  );
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
  const [stopError, setStopError] = useState<GraphChatError | undefined>(undefined);

  /** Sends, and takes the optimistic user message back when the server refused it (nothing was stored). */
  const send = useCallback(async (...args: Parameters<typeof chat.sendMessage>) => {
    const before = new Set(chatRef.current.messages.map((m) => m.id));
    refusal.current = undefined;
    setStopError(undefined);
    await chatRef.current.sendMessage(...args);
    if (refusal.current !== undefined) chatRef.current.setMessages((all) => all.filter((m) => before.has(m.id)));
  }, []) as typeof chat.sendMessage;

  const stop = useCallback(async () => {
    const id = chatRef.current.id;
    const url = stopUrl?.(id) ?? `${api}/${encodeURIComponent(id)}/stop`;
    setStopError(undefined);
    // The server stops the run; the stream then ends by itself with what was generated and `data-run` "stopped".
    // Aborting the request instead would only detach this page: the server keeps a run a reload may come back to.
    let response: Response;
    try {
      response = await fetch(url, { method: "POST" });
    } catch (cause) {
      setStopError(
        new GraphChatError(
          `The stop did not reach the server (${(cause as Error)?.message ?? String(cause)}); the run goes on. Try again.`,
          { status: 0, code: "unreachable", action: "stop" },
        ),
      );
      return;
    }
    if (!response.ok) {
      setStopError(await refusalOf(response, "stop"));
      return;
    }
    // Nothing ran on the server any more: a stream this page still follows has nothing left to wait for.
    const body = (await response.json().catch(() => ({}))) as { stopped?: unknown };
    if (body.stopped === false) await chatRef.current.stop();
  }, [api, stopUrl]);

  const clearError = useCallback(() => {
    setStopError(undefined);
    chatRef.current.clearError();
  }, []);

  const pending = view.pending;
  const suspense = useMemo<GraphSuspense<G> | undefined>(() => {
    if (pending === undefined) return undefined;
    const data = pending as SuspenseData<G> & { responseKey: string; visit?: number };
    return {
      ...data,
      resume: (answer: unknown, resumeOptions?: { readonly text?: string }) =>
        send(
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
  }, [pending, send]);

  return {
    id: chat.id,
    messages: chat.messages,
    status: chat.status,
    error: stopError ?? chat.error,
    sendMessage: send,
    setMessages: chat.setMessages,
    clearError,
    state: view.state,
    nodes: view.nodes,
    activeNodes: view.activeNodes,
    suspense,
    run: view.run,
    stop,
  };
}
