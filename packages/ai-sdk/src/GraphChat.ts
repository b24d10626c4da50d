import type { Checkpointer } from "@graph/checkpoint";
import type { Graph } from "@graph/core";
import type { RunHandle, Runner } from "@graph/runtime";
import { compile, type Matcher } from "@graph/select";
import { createUIMessageStream, createUIMessageStreamResponse, type UIMessage } from "ai";
import type { ZodType } from "zod";
import { ChatRequestError, isChatRequestError } from "./errors.js";
import { answering, checkAnswer, type PendingPause } from "./internal/answers.js";
import { LiveRun } from "./internal/liveRun.js";
import type { GraphUIMessage, GraphUIMessageChunk } from "./parts.js";
import { runChunks, type StreamOptions } from "./toUIMessageStream.js";

/**
 * What a chat client sends: `useChat`'s body (`id` = the workflow id, `messages`) and, to answer a pause, `resume`
 * (what `useGraphChat`'s `suspense.resume(answer)` adds).
 *
 * @example
 * ```ts
 * const body: ChatRequest = { id: "chat-1", resume: { responseKey: "decision", value: { approved: true } } };
 * ```
 */
export interface ChatRequest {
  /** The chat's id, used as the workflow id: every turn of one chat is one durable workflow. */
  readonly id: string;
  readonly messages?: readonly UIMessage[];
  /**
   * An answer to the pending pause: resumes the workflow with `{ [responseKey]: value }`. `visit` (from the
   * `data-node-suspense` part) names the pause answered: once it was settled (answered elsewhere, timed out) the
   * answer is refused (`stale_answer`, or `no_pending_pause` when nothing waits) and never taken by a later pause.
   */
  readonly resume?: { readonly responseKey: string; readonly value: unknown; readonly visit?: number };
}

/** What {@link GraphChatOptions.input} receives for a new turn. */
export interface ChatTurn {
  /** The text of the last user message. */
  readonly text: string;
  readonly messages: readonly UIMessage[];
  readonly workflowId: string;
}

/**
 * Options of {@link GraphChat}.
 *
 * @example
 * ```ts
 * const options: GraphChatOptions = {
 *   runner,
 *   graph,
 *   input: ({ text }) => ({ question: text }),
 *   select: ["messages", "answer"],
 * };
 * ```
 */
export interface GraphChatOptions<G extends Graph = Graph> extends Pick<StreamOptions, "select" | "errorMessage"> {
  readonly runner: Runner;
  readonly graph: G;
  /** The run values of a new turn (the user's message). */
  readonly input: (turn: ChatTurn) => Readonly<Record<string, unknown>>;
  /**
   * The runner's checkpointer: lets a reconnect to a paused workflow show its pending pause again (after a server
   * restart too) and answers be checked against the stored pause. Without it, pauses are remembered in memory.
   */
  readonly checkpointer?: Checkpointer;
  /**
   * Schemas for answers, by `responseKey` or interrupt name. Default: the zod input schemas of the nodes that read
   * the answer (`inputs: { decision: z.enum(["approve", "reject"]) }`).
   */
  readonly answerSchemas?: Readonly<Record<string, ZodType>>;
}

/**
 * A chat endpoint for a graph, for `useChat` / `useGraphChat`: each chat is a durable workflow (its id is the chat
 * id), each message a turn, an answer to a pause resumes it, a client that reloads mid-run reconnects to the live run
 * (the chunks so far, then the rest) instead of starting a second one, and `stop` stops it. A client that goes away
 * does not stop the run — call {@link GraphChat.stop} (the hook's `stop()` does).
 *
 * @example
 * ```ts
 * const chat = new GraphChat({ runner, graph, input: ({ text }) => ({ question: text }) });
 *
 * // app/api/chat/route.ts (Next.js)
 * export const POST = (request: Request) => chat.POST(request);
 * // app/api/chat/[id]/stream/route.ts
 * export const GET = (_: Request, { params }: { params: { id: string } }) => chat.GET(params.id);
 * // app/api/chat/[id]/stop/route.ts
 * export const DELETE = async (_: Request, { params }: { params: { id: string } }) =>
 *   Response.json({ stopped: await chat.stop(params.id) });
 * ```
 */
export class GraphChat<G extends Graph = Graph> {
  readonly #options: GraphChatOptions<G>;
  readonly #live = new Map<string, { run: LiveRun; handle: RunHandle }>();
  /** Pauses of runs of this process, for servers without a checkpointer. */
  readonly #pauses = new Map<string, PendingPause>();

  readonly #matcher: Matcher | undefined;

  constructor(options: GraphChatOptions<G>) {
    this.#options = options;
    // Compiled up front: a bad pattern fails here, not in the middle of a request.
    this.#matcher = options.select === undefined ? undefined : compile(options.select);
  }

  /**
   * Starts the turn (or resumes the pause) a request asks for and returns its stream. Throws a
   * {@link ChatRequestError} — before anything runs or is stored — for a bad request or answer, or while the
   * workflow is running.
   */
  async stream(request: ChatRequest): Promise<ReadableStream<GraphUIMessageChunk<G>>> {
    if (typeof request !== "object" || request === null || typeof request.id !== "string" || request.id === "")
      throw new ChatRequestError("invalid_request", "A chat request needs an 'id' (the chat's workflow id).");
    const workflowId = request.id;
    if (this.#live.has(workflowId))
      throw new ChatRequestError(
        "run_in_progress",
        `Workflow '${workflowId}' is running.\n  How to fix: reconnect to it (GET …/${workflowId}/stream) or stop it first.`,
        { workflowId },
      );
    const pause = await this.#pendingPause(workflowId);
    let values: Readonly<Record<string, unknown>>;
    let named: PendingPause | undefined;
    if (request.resume !== undefined) {
      const visit = request.resume.visit;
      if (visit !== undefined && !Number.isSafeInteger(visit))
        throw new ChatRequestError(
          "invalid_request",
          `An answer's 'visit' is the integer of the data-node-suspense part it answers, got ${JSON.stringify(visit)}.`,
          { workflowId },
        );
      const answer = checkAnswer(this.#options.graph, workflowId, pause, request.resume, this.#options.answerSchemas);
      values = { [request.resume.responseKey]: answer };
      named = pause;
    } else {
      const messages = request.messages ?? [];
      const last = messages.at(-1);
      if (last === undefined || last.role !== "user")
        throw new ChatRequestError(
          "invalid_request",
          "A chat request needs a user message last, or an answer ('resume').",
          {
            workflowId,
          },
        );
      if (pause !== undefined)
        throw new ChatRequestError(
          "invalid_request",
          `Workflow '${workflowId}' waits for an answer to '${pause.nodeName}' ('${pause.responseKey}'); a new message can't start a turn until it is answered.`,
          { workflowId },
        );
      const text = last.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
      values = this.#options.input({ text, messages, workflowId });
    }
    return this.#start(workflowId, values, named).stream() as ReadableStream<GraphUIMessageChunk<G>>;
  }

  /** {@link GraphChat.stream} as a Web handler: the stream as SSE, or the refusal as JSON with its status. */
  async POST(request: Request): Promise<Response> {
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return Response.json(new ChatRequestError("invalid_request", "The request body is not JSON.").toJSON(), {
        status: 400,
      });
    }
    try {
      return createUIMessageStreamResponse({ stream: await this.stream(body as ChatRequest) });
    } catch (error) {
      if (isChatRequestError(error)) return Response.json(error.toJSON(), { status: error.status });
      throw error;
    }
  }

  /**
   * The stream of the workflow's live run (from its first chunk), or — when it is paused — its stored state and
   * pending pause; `undefined` when there is nothing to follow.
   */
  async reconnect(workflowId: string): Promise<ReadableStream<GraphUIMessageChunk<G>> | undefined> {
    const live = this.#live.get(workflowId);
    if (live !== undefined) return live.run.stream() as ReadableStream<GraphUIMessageChunk<G>>;
    const pause = await this.#pendingPause(workflowId);
    if (pause === undefined) return undefined;
    const state = await this.#options.checkpointer?.getState(workflowId);
    return createUIMessageStream<GraphUIMessage<G>>({
      execute: ({ writer }) => {
        writer.write({ type: "start" });
        if (state !== undefined && Object.keys(state).length > 0)
          writer.write({
            type: "data-state",
            data: { node: "", values: this.#selected(state) },
          } as GraphUIMessageChunk<G>);
        writer.write({
          type: "data-node-suspense",
          data: {
            name: pause.nodeName,
            responseKey: pause.responseKey,
            value: pause.value,
            workflowId,
            ...(pause.visit === undefined ? {} : { visit: pause.visit }),
          },
        } as GraphUIMessageChunk<G>);
        writer.write({ type: "data-run", data: { status: "paused", workflowId, runId: "" } });
        writer.write({ type: "finish" });
      },
    });
  }

  /** {@link GraphChat.reconnect} as a Web handler: 204 when there is nothing to follow (what `useChat` expects). */
  async GET(workflowId: string): Promise<Response> {
    const stream = await this.reconnect(workflowId);
    return stream === undefined ? new Response(null, { status: 204 }) : createUIMessageStreamResponse({ stream });
  }

  /** Stops the workflow's run (here or, through the checkpointer, in another process). False: nothing to stop. */
  async stop(workflowId: string, info?: unknown): Promise<boolean> {
    const live = this.#live.get(workflowId);
    if (live !== undefined) {
      live.handle.stop(info);
      return true;
    }
    return this.#options.runner.stop(workflowId, info);
  }

  /** Whether a run of the workflow is live in this process. */
  isRunning(workflowId: string): boolean {
    return this.#live.has(workflowId);
  }

  #start(workflowId: string, values: Readonly<Record<string, unknown>>, pause?: PendingPause): LiveRun {
    // An answer is taken only while the pause it was checked against is pending (compared in the runner's claim).
    const named = pause === undefined ? {} : answering(pause);
    const handle = this.#options.runner.start(this.#options.graph as Graph, { workflowId, values, ...named });
    this.#pauses.delete(workflowId);
    const run = new LiveRun(
      runChunks(handle, {
        messageId: `${workflowId}:${crypto.randomUUID()}`,
        ...(this.#options.select === undefined ? {} : { select: this.#options.select }),
        ...(this.#options.errorMessage === undefined ? {} : { errorMessage: this.#options.errorMessage }),
      }),
    );
    this.#live.set(workflowId, { run, handle });
    void run.finished.then(async () => {
      const result = await handle.result.catch(() => undefined);
      if (result?.status === "paused" && result.pause?.reason === "human_input")
        this.#pauses.set(workflowId, result.pause);
      this.#live.delete(workflowId);
    });
    return run;
  }

  async #pendingPause(workflowId: string): Promise<PendingPause | undefined> {
    const checkpointer = this.#options.checkpointer;
    if (checkpointer === undefined) return this.#pauses.get(workflowId);
    const record = await checkpointer.getWorkflow(workflowId);
    return record?.status === "paused" && record.pause !== undefined
      ? { ...record.pause, visit: record.lastSuperstep }
      : undefined;
  }

  #selected(values: Readonly<Record<string, unknown>>): Record<string, unknown> {
    if (this.#matcher === undefined) return { ...values };
    const matcher = this.#matcher;
    return Object.fromEntries(Object.entries(values).filter(([name]) => matcher.matches(name)));
  }
}
