import type { Checkpointer } from "@graph/checkpoint";
import type { Graph, RunValuesOf } from "@graph/core";
import { InvalidOptionError, type RunHandle, type Runner } from "@graph/runtime";
import { compile, type Matcher } from "@graph/select";
import { createUIMessageStream, createUIMessageStreamResponse, type UIMessage } from "ai";
import type { ZodType } from "zod";
import { ChatRequestError, isChatRequestError } from "./errors.js";
import { answering, checkAnswer, type PendingPause } from "./internal/answers.js";
import { type Authorize, checkAccessOptions, checkChatId, scopeOf, workflowIdOf } from "./internal/chatIds.js";
import { LiveRun } from "./internal/liveRun.js";
import type { GraphUIMessage, GraphUIMessageChunk } from "./parts.js";
import { runChunks, type StreamOptions } from "./toUIMessageStream.js";

/**
 * What a chat client sends: `useChat`'s body (`id` = the chat id, `messages`) and, to answer a pause, `resume`
 * (what `useGraphChat`'s `suspense.resume(answer)` adds).
 *
 * @example
 * ```ts
 * const body: ChatRequest = { id: "chat-1", resume: { responseKey: "decision", value: { approved: true } } };
 * ```
 */
export interface ChatRequest {
  /**
   * The chat's id (1 to 128 letters, digits, `.`, `_`, `:` or `-`). Every turn of one chat is one durable workflow,
   * `<workflowPrefix>/<scope>/<id>`: the client never names a workflow itself.
   */
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
  /** The chat's workflow, `<workflowPrefix>/<scope>/<chatId>`. */
  readonly workflowId: string;
  readonly chatId: string;
  /** What `authorize` returned for the caller (`"local"` on a single-user server). */
  readonly scope: string;
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
 *   authorize: ({ request }) => userIdFromSession(request) ?? false,
 * };
 * ```
 */
export interface GraphChatOptions<G extends Graph = Graph, R = Request>
  extends Pick<StreamOptions, "select" | "errorMessage"> {
  readonly runner: Runner;
  readonly graph: G;
  /** The run values of a new turn (the user's message), typed by the graph's inputs. */
  readonly input: (turn: ChatTurn) => Partial<RunValuesOf<G>>;
  /**
   * Called when a turn's run fails (a missing input, a node's error), with the whole error — the client only gets
   * `errorMessage(error)`. Default: `console.error` with the workflow id.
   */
  readonly onRunError?: (error: unknown, info: { readonly workflowId: string; readonly chatId: string }) => void;
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
  /**
   * Who the caller is: return their scope (a user or tenant id: 1 to 128 letters, digits, `.`, `_`, `:` or `-`) to
   * let them use the chat, or `false` to refuse (403, before anything is read or written). A chat lives in its
   * caller's scope, so one user never reaches another's chats. Required unless {@link localSingleUser} is set.
   */
  readonly authorize?: Authorize<R>;
  /**
   * The server has one user on their own machine (a local tool, a demo): no `authorize`, every caller shares the
   * scope `"local"`. Never set it on a server others can reach.
   */
  readonly localSingleUser?: true;
  /** The first segment of every chat's workflow id. Default `"chat"`. */
  readonly workflowPrefix?: string;
}

const OPTION_KEYS = new Set([
  "runner",
  "graph",
  "input",
  "checkpointer",
  "answerSchemas",
  "select",
  "errorMessage",
  "authorize",
  "localSingleUser",
  "workflowPrefix",
  "onRunError",
]);

function checkOptions(options: Readonly<Record<string, unknown>>): string {
  for (const key of Object.keys(options))
    if (!OPTION_KEYS.has(key))
      throw new InvalidOptionError(
        `GraphChat: unknown option '${key}'.\n  How to fix: use only ${[...OPTION_KEYS].join(", ")}.`,
        key,
      );
  for (const key of ["runner", "graph"] as const)
    if (typeof options[key] !== "object" || options[key] === null)
      throw new InvalidOptionError(`GraphChat: option '${key}' is required.`, key);
  if (typeof options.input !== "function")
    throw new InvalidOptionError(
      "GraphChat: option 'input' must be a function ({ text, messages }) => the run's values.",
      "input",
    );
  return checkAccessOptions("GraphChat", options, "chat");
}

/**
 * A chat endpoint for a graph, for `useChat` / `useGraphChat`: each chat is a durable workflow
 * (`<workflowPrefix>/<scope>/<chat id>`, the scope being what `authorize` returned for the caller), each message a
 * turn, an answer to a pause resumes it, a client that reloads mid-run reconnects to the live run (the chunks so far,
 * then the rest) instead of starting a second one, and `stop` stops it. A client that goes away does not stop the
 * run — call {@link GraphChat.stop} (the hook's `stop()` posts to the stop route).
 *
 * @example
 * ```ts
 * const chat = new GraphChat({
 *   runner,
 *   graph,
 *   input: ({ text }) => ({ question: text }),
 *   authorize: async ({ request }) => (await session(request))?.userId ?? false,
 * });
 *
 * // app/api/chat/route.ts (Next.js)
 * export const POST = (request: Request) => chat.POST(request);
 * // app/api/chat/[id]/stream/route.ts
 * export const GET = async (request: Request, { params }: { params: Promise<{ id: string }> }) =>
 *   chat.GET(request, (await params).id);
 * ```
 *
 * ```ts
 * // app/api/chat/[id]/stop/route.ts — POST, the method useGraphChat().stop() sends
 * export const POST = async (request: Request, { params }: { params: Promise<{ id: string }> }) =>
 *   chat.STOP(request, (await params).id);
 * ```
 */
export class GraphChat<G extends Graph = Graph, R = Request> {
  readonly #options: GraphChatOptions<G, R>;
  readonly #prefix: string;
  readonly #live = new Map<string, { run: LiveRun; handle: RunHandle }>();
  /** Pauses of runs of this process, for servers without a checkpointer. */
  readonly #pauses = new Map<string, PendingPause>();

  readonly #matcher: Matcher | undefined;

  constructor(options: GraphChatOptions<G, R>) {
    this.#prefix = checkOptions(options as unknown as Record<string, unknown>);
    this.#options = options;
    // Compiled up front: a bad pattern fails here, not in the middle of a request.
    this.#matcher = options.select === undefined ? undefined : compile(options.select);
  }

  /**
   * Starts the turn (or resumes the pause) a request asks for and returns its stream. Throws a
   * {@link ChatRequestError} — before anything runs or is stored — for a bad request or answer, a caller `authorize`
   * refuses, or while the workflow is running. `request` is what `authorize` reads (required when it is set).
   */
  async stream(body: ChatRequest, request?: R): Promise<ReadableStream<GraphUIMessageChunk<G>>> {
    if (typeof body !== "object" || body === null || typeof body.id !== "string" || body.id === "")
      throw new ChatRequestError("invalid_request", "A chat request needs an 'id' (the chat's id).");
    const { chatId, scope, workflowId } = await this.#access(body.id, request);
    if (this.#live.has(workflowId))
      throw new ChatRequestError(
        "run_in_progress",
        `Chat '${chatId}' is running.\n  How to fix: reconnect to it (GET …/${chatId}/stream) or stop it first.`,
        { workflowId },
      );
    const pause = await this.#pendingPause(workflowId);
    let values: Readonly<Record<string, unknown>>;
    let named: PendingPause | undefined;
    if (body.resume !== undefined) {
      const visit = body.resume.visit;
      if (visit !== undefined && !Number.isSafeInteger(visit))
        throw new ChatRequestError(
          "invalid_request",
          `An answer's 'visit' is the integer of the data-node-suspense part it answers, got ${JSON.stringify(visit)}.`,
          { workflowId },
        );
      const answer = checkAnswer(this.#options.graph, workflowId, pause, body.resume, this.#options.answerSchemas);
      values = { [body.resume.responseKey]: answer };
      named = pause;
    } else {
      const messages = body.messages ?? [];
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
          `Chat '${chatId}' waits for an answer to '${pause.nodeName}' ('${pause.responseKey}'); a new message can't start a turn until it is answered.`,
          { workflowId },
        );
      const text = last.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
      values = this.#options.input({ text, messages, workflowId, chatId, scope });
    }
    return this.#start(workflowId, chatId, values, named).stream() as ReadableStream<GraphUIMessageChunk<G>>;
  }

  /** {@link GraphChat.stream} as a Web handler: the stream as SSE, or the refusal as JSON with its status. */
  async POST(this: GraphChat<G, Request>, request: Request): Promise<Response> {
    let body: unknown;
    try {
      body = await request.json();
    } catch {
      return Response.json(new ChatRequestError("invalid_request", "The request body is not JSON.").toJSON(), {
        status: 400,
      });
    }
    return respond(async () =>
      createUIMessageStreamResponse({ stream: await this.stream(body as ChatRequest, request) }),
    );
  }

  /**
   * The stream of the chat's live run (from its first chunk), or — when it is paused — its stored state and pending
   * pause; `undefined` when there is nothing to follow.
   */
  async reconnect(chatId: string, request?: R): Promise<ReadableStream<GraphUIMessageChunk<G>> | undefined> {
    const { workflowId } = await this.#access(chatId, request);
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
            nodeName: pause.nodeName,
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
  async GET(this: GraphChat<G, Request>, request: Request, chatId: string): Promise<Response> {
    return respond(async () => {
      const stream = await this.reconnect(chatId, request);
      return stream === undefined ? new Response(null, { status: 204 }) : createUIMessageStreamResponse({ stream });
    });
  }

  /**
   * Stops the chat's run (here or, through the checkpointer, in another process). False: nothing to stop. Throws a
   * {@link ChatRequestError} for a chat id that is not valid or a caller `authorize` refuses.
   */
  async stop(chatId: string, request?: R, info?: unknown): Promise<boolean> {
    const { workflowId } = await this.#access(chatId, request);
    const live = this.#live.get(workflowId);
    if (live !== undefined) {
      live.handle.stop(info);
      return true;
    }
    return this.#options.runner.stop(workflowId, info);
  }

  /**
   * {@link GraphChat.stop} as a Web handler for `POST …/{id}/stop` (the method `useGraphChat().stop()` sends):
   * `200 { stopped }`, or the refusal as JSON with its status.
   */
  async STOP(this: GraphChat<G, Request>, request: Request, chatId: string): Promise<Response> {
    return respond(async () => Response.json({ stopped: await this.stop(chatId, request) }));
  }

  /** The workflow id of a chat of a scope (what `authorize` returns), e.g. to read it from the store. */
  workflowIdOf(chatId: string, scope: string): string {
    return workflowIdOf(this.#prefix, scope, checkChatId(chatId));
  }

  /** Whether a run of the workflow is live in this process. */
  isRunning(workflowId: string): boolean {
    return this.#live.has(workflowId);
  }

  /** The caller's scope and the chat's workflow; refused before anything is read. */
  async #access(chatId: unknown, request: R | undefined) {
    const id = checkChatId(chatId);
    const scope = await scopeOf("GraphChat", this.#options.authorize, request, id);
    const workflowId = workflowIdOf(this.#prefix, scope, id);
    const record = await this.#options.checkpointer?.getWorkflow(workflowId);
    // Defence in depth: a workflow some other code stored under this id is not a chat of this graph.
    if (record != null && record.graphName !== (this.#options.graph.name ?? "graph"))
      throw new ChatRequestError(
        "invalid_chat_id",
        `'${id}' is not a chat of this server; nothing was read or written.\n  How to fix: start a new chat (a new id).`,
      );
    return { chatId: id, scope, workflowId };
  }

  #start(workflowId: string, chatId: string, values: Readonly<Record<string, unknown>>, pause?: PendingPause): LiveRun {
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
      const result = await handle.result.catch((error: unknown) => {
        this.#logFailure(error, workflowId, chatId);
        return undefined;
      });
      if (result?.status === "failed") this.#logFailure(result.error, workflowId, chatId);
      if (result?.status === "paused" && result.pause?.reason === "human_input")
        this.#pauses.set(workflowId, result.pause);
      this.#live.delete(workflowId);
    });
    return run;
  }

  #logFailure(error: unknown, workflowId: string, chatId: string): void {
    const onRunError = this.#options.onRunError;
    if (onRunError !== undefined) onRunError(error, { workflowId, chatId });
    else console.error(`GraphChat: the run of workflow '${workflowId}' failed:`, error);
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

/** Answers a refused request with its status and JSON body; anything else is the server's own error. */
async function respond(handler: () => Promise<Response>): Promise<Response> {
  try {
    return await handler();
  } catch (error) {
    if (isChatRequestError(error)) return Response.json(error.toJSON(), { status: error.status });
    throw error;
  }
}
