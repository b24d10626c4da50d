/**
 * Why the chat server refused a request (or never got it), as the page shows it: the server's own message, its
 * `code` and the answer schema's `issues` — not the raw response body.
 *
 * @example
 * ```ts
 * declare const error: Error | undefined;
 * if (error instanceof GraphChatError) console.log(error.status, error.code, error.issues);
 * ```
 */
export class GraphChatError extends Error {
  override readonly name = "GraphChatError";
  /** The HTTP status; 0 when the request did not reach the server. */
  readonly status: number;
  /** The server's code (`invalid_answer`, `run_in_progress`, `forbidden`, …), or `unreachable`/`http_error`. */
  readonly code: string;
  /** What the answer's schema objected to (for `invalid_answer`); empty otherwise. */
  readonly issues: readonly string[];
  /** What the page asked for. */
  readonly action: "send" | "resume" | "stop";

  constructor(
    message: string,
    fields: { status: number; code: string; issues?: readonly string[]; action: GraphChatError["action"] },
  ) {
    super(message);
    this.status = fields.status;
    this.code = fields.code;
    this.issues = fields.issues ?? [];
    this.action = fields.action;
  }
}

/** The error a refused response stands for: the JSON body `GraphChat` answers with, else the status and text. */
export async function refusalOf(response: Response, action: GraphChatError["action"]): Promise<GraphChatError> {
  const text = await response.text().catch(() => "");
  try {
    const body = JSON.parse(text) as { message?: unknown; code?: unknown; issues?: unknown };
    if (typeof body.message === "string")
      return new GraphChatError(body.message, {
        status: response.status,
        code: typeof body.code === "string" ? body.code : "http_error",
        issues: Array.isArray(body.issues) ? body.issues.map(String) : [],
        action,
      });
  } catch {
    // Not GraphChat's JSON: a proxy's or framework's page; the status says enough.
  }
  return new GraphChatError(
    `The chat server answered ${response.status}${response.statusText ? ` ${response.statusText}` : ""}${text ? `: ${text.slice(0, 200)}` : ""}.`,
    { status: response.status, code: "http_error", action },
  );
}
