import { TaggedError } from "@graph/errors";

/**
 * Why a chat request was refused, with the HTTP status a handler answers with:
 * - `invalid_request` (400): the body is not a chat request (no `id`, no message and no answer);
 * - `invalid_chat_id` (400): the chat id is not 1 to 128 letters, digits, `.`, `_`, `:` or `-`;
 * - `forbidden` (403): `authorize` refused the caller; nothing was read or written;
 * - `no_pending_pause` (400): an answer came for a workflow that waits for none;
 * - `wrong_response_key` (400): the answer is keyed by another name than the pending pause's `responseKey`;
 * - `invalid_answer` (400): the answer does not match the schema the graph declares for it;
 * - `run_in_progress` (409): the workflow is running; reconnect to it or stop it first;
 * - `stale_answer` (409): the answer names a pause (its `visit`) that was settled since: answered, timed out.
 *
 * @example
 * ```ts
 * const code: ChatRequestCode = "invalid_answer";
 * ```
 */
export type ChatRequestCode =
  | "invalid_request"
  | "invalid_chat_id"
  | "forbidden"
  | "no_pending_pause"
  | "wrong_response_key"
  | "invalid_answer"
  | "run_in_progress"
  | "stale_answer";

/**
 * A chat request the server refuses before anything runs or is stored. `status` is the HTTP status to answer with,
 * `issues` the schema's complaints for `invalid_answer`.
 *
 * @example
 * ```ts
 * try {
 *   await chat.stream(body);
 * } catch (e) {
 *   if (isChatRequestError(e)) console.log(e.status, e.code, e.message);
 * }
 * ```
 */
export class ChatRequestError extends TaggedError("ChatRequestError")<{
  readonly code: ChatRequestCode;
  readonly status: 400 | 403 | 409;
  readonly workflowId: string | undefined;
  readonly issues: readonly string[];
}> {
  constructor(
    code: ChatRequestCode,
    message: string,
    fields: { workflowId?: string; issues?: readonly string[] } = {},
  ) {
    super({
      message,
      code,
      status: code === "run_in_progress" || code === "stale_answer" ? 409 : code === "forbidden" ? 403 : 400,
      workflowId: fields.workflowId,
      issues: fields.issues ?? [],
    });
  }

  /** The JSON body a handler answers with. */
  toJSON(): { error: string; code: ChatRequestCode; message: string; issues: readonly string[] } {
    return { error: this._tag, code: this.code, message: this.message, issues: this.issues };
  }
}

/**
 * True for a {@link ChatRequestError} (checks the brand, so it works across package copies).
 *
 * @example
 * ```ts
 * declare const e: unknown;
 * if (isChatRequestError(e)) console.log(e.code);
 * ```
 */
export const isChatRequestError = (value: unknown): value is ChatRequestError => ChatRequestError.is(value);
