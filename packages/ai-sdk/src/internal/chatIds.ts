/**
 * Who may touch which workflow. A client names a chat, never a workflow: the server derives the workflow id from
 * its own prefix, the caller's scope (what `authorize` returned) and the chat id, so a client can only reach chats
 * of its own scope, and never a workflow some other code keeps in the same store.
 */
import { InvalidOptionError } from "@graph/runtime";
import { ChatRequestError } from "../errors.js";

/** One path segment: letters, digits, `.`, `_`, `:`, `-`; not starting with a dot; at most 128 characters. */
const SEGMENT = /^[A-Za-z0-9_:-][A-Za-z0-9._:-]{0,127}$/;

/** The scope every caller of a server constructed for a single local user gets. */
export const LOCAL_SCOPE = "local";

const isSegment = (value: unknown): value is string => typeof value === "string" && SEGMENT.test(value);

/** The client's chat id, or a 400 saying what a chat id may be (before anything is read). */
export function checkChatId(chatId: unknown): string {
  if (isSegment(chatId)) return chatId;
  const got =
    typeof chatId === "string" ? `'${chatId.length > 40 ? `${chatId.slice(0, 40)}…` : chatId}'` : typeof chatId;
  throw new ChatRequestError(
    "invalid_chat_id",
    `The chat id ${got} is not valid: a chat id is 1 to 128 letters, digits, '.', '_', ':' or '-' (no '/', not starting with '.').\n  How to fix: use the id useChat generates, or one of those characters.`,
  );
}

/** The workflow a chat of a scope is, `<prefix>/<scope>/<chatId>`. */
export const workflowIdOf = (prefix: string, scope: string, chatId: string): string => `${prefix}/${scope}/${chatId}`;

export type Authorize<R> = (caller: {
  readonly request: R;
  readonly chatId: string;
}) => string | false | null | undefined | Promise<string | false | null | undefined>;

/** The caller's scope, or a 403 when `authorize` refuses (a scope that is not one path segment is a server bug). */
export async function scopeOf<R>(
  where: string,
  authorize: Authorize<R> | undefined,
  request: R | undefined,
  chatId: string,
  subject = `the chat '${chatId}'`,
): Promise<string> {
  if (authorize === undefined) return LOCAL_SCOPE;
  if (request === undefined)
    throw new InvalidOptionError(
      `${where}: this server has 'authorize', so every call needs the caller's request, got none.\n  How to fix: pass the request as the second argument (chat.stream(body, request), chat.reconnect(chatId, request), chat.stop(chatId, request)).`,
      "request",
    );
  const scope = await authorize({ request, chatId });
  if (scope === false || scope === null || scope === undefined)
    throw new ChatRequestError("forbidden", `You may not use ${subject}; nothing was read or written.`);
  if (!isSegment(scope))
    throw new InvalidOptionError(
      `${where}: 'authorize' returned ${JSON.stringify(scope)}, which is not a scope: a scope is 1 to 128 letters, digits, '.', '_', ':' or '-' (it becomes one segment of the workflow id).\n  How to fix: return the user's (or tenant's) id, or false to refuse.`,
      "authorize",
    );
  return scope;
}

/** Checks the options that decide who may use a server: `authorize`, or the explicit single-user, local mode. */
export function checkAccessOptions(
  where: string,
  options: { authorize?: unknown; localSingleUser?: unknown; workflowPrefix?: unknown },
  defaultPrefix: string,
): string {
  const { authorize, localSingleUser, workflowPrefix } = options;
  if (authorize !== undefined && typeof authorize !== "function")
    throw new InvalidOptionError(
      `${where}: option 'authorize' must be a function ({ request, chatId }) => scope | false, got ${typeof authorize}.`,
      "authorize",
    );
  if (localSingleUser !== undefined && localSingleUser !== true)
    throw new InvalidOptionError(
      `${where}: option 'localSingleUser' must be true or left out, got ${JSON.stringify(localSingleUser)}.`,
      "localSingleUser",
    );
  if (authorize === undefined && localSingleUser !== true)
    throw new InvalidOptionError(
      `${where}: no 'authorize': any client could read, answer or stop any other user's chats and workflows.\n  How to fix: pass authorize: ({ request, chatId }) => the caller's user id (or false to refuse), or localSingleUser: true for a server only you use on your machine.`,
      "authorize",
    );
  if (authorize !== undefined && localSingleUser === true)
    throw new InvalidOptionError(
      `${where}: 'authorize' and 'localSingleUser' exclude each other.\n  How to fix: keep 'authorize' for a server with users, or only 'localSingleUser: true' for a local one.`,
      "localSingleUser",
    );
  if (workflowPrefix !== undefined && !isSegment(workflowPrefix))
    throw new InvalidOptionError(
      `${where}: option 'workflowPrefix' must be 1 to 128 letters, digits, '.', '_', ':' or '-', got ${JSON.stringify(workflowPrefix)}.`,
      "workflowPrefix",
    );
  return (workflowPrefix as string | undefined) ?? defaultPrefix;
}
