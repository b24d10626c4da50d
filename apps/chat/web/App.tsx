import type { GraphUIMessage } from "@graph/ai-sdk";
import { GraphChatError, useGraphChat } from "@graph/react";
import { type FormEvent, useEffect, useState } from "react";
import type { SupportGraph } from "../src/graph.js";

type Message = GraphUIMessage<SupportGraph>;

/** The nodes of the support graph, in the order the panel lists them. */
const NODES = ["agent", "decide", "tools", "compose", "approval", "send"] as const;

const storageKey = (id: string) => `graph-chat:${id}`;

function load(id: string): Message[] {
  try {
    return JSON.parse(localStorage.getItem(storageKey(id)) ?? "[]") as Message[];
  } catch {
    return [];
  }
}

function textOf(message: Message): string {
  return message.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
}

/** What the turn of this message sent (its `answer`), so each result shows under the turn that produced it. */
function sentBy(message: Message): string | undefined {
  let sent: string | undefined;
  for (const part of message.parts)
    if (part.type === "data-state" && part.data.values.answer !== undefined) sent = String(part.data.values.answer);
  return sent;
}

/** The run status this message's turn ended with (`data-run`), if it ended. */
function endOf(message: Message): string | undefined {
  let status: string | undefined;
  for (const part of message.parts) if (part.type === "data-run") status = part.data.status;
  return status;
}

function Tools({ message }: { message: Message }) {
  const calls = message.parts.filter((p) => p.type.startsWith("tool-")) as unknown as {
    toolCallId: string;
    type: string;
    state: string;
    input?: { orderId?: string };
    output?: { status?: string };
  }[];
  if (calls.length === 0) return null;
  return (
    <ul className="tools">
      {calls.map((c) => (
        <li key={c.toolCallId} data-tool={c.type.slice(5)} data-state={c.state}>
          looked up order {c.input?.orderId ?? "…"}
          {c.output?.status ? `: ${c.output.status}` : ""}
        </li>
      ))}
    </ul>
  );
}

export function App({ id }: { id: string }) {
  const [initial] = useState(() => load(id));
  const chat = useGraphChat<SupportGraph>({ id, resume: true, messages: initial });
  const [input, setInput] = useState("");
  const [note, setNote] = useState("");
  const busy = chat.status === "submitted" || chat.status === "streaming";

  // The transcript survives a reload; an answer still streaming is not saved (the reconnect replays it whole).
  useEffect(() => {
    const last = chat.messages.at(-1);
    const settled = busy && last?.role === "assistant" ? chat.messages.slice(0, -1) : chat.messages;
    localStorage.setItem(storageKey(id), JSON.stringify(settled));
  }, [chat.messages, busy, id]);

  const send = (event: FormEvent) => {
    event.preventDefault();
    if (input.trim() === "") return;
    void chat.sendMessage({ text: input });
    setInput("");
  };
  const status = (name: string) => chat.nodes.find((n) => n.path === name)?.status ?? "idle";

  return (
    <div className="layout">
      <main className="chat">
        <h1>Support</h1>
        <ol className="messages">
          {chat.messages.map((m, i) => {
            const sent = m.role === "assistant" ? sentBy(m) : undefined;
            const stopped = m.role === "assistant" && endOf(m) === "stopped";
            // A continuation that only ran nodes (no text, no tool, no result) shows in the panel, not as a bubble.
            return textOf(m) === "" && sent === undefined && !m.parts.some((p) => p.type.startsWith("tool-")) ? null : (
              <li
                key={m.id}
                className={m.role}
                data-testid="message"
                data-role={m.role}
                data-latest={i === chat.messages.length - 1 ? "true" : undefined}
              >
                <Tools message={m} />
                <span className="text">{textOf(m)}</span>
                {stopped && (
                  <small className="mark" data-testid="stopped-mark">
                    stopped
                  </small>
                )}
                {sent !== undefined && (
                  <p className="sent" data-testid="answer">
                    {sent}
                  </p>
                )}
              </li>
            );
          })}
        </ol>
        {chat.suspense && !busy && (
          <form
            className="suspense"
            data-testid="suspense"
            data-response-key={chat.suspense.responseKey}
            onSubmit={(e) => e.preventDefault()}
          >
            <p>
              <strong>Approval needed</strong> ({chat.suspense.nodeName}): send this reply?
            </p>
            <blockquote>{String(chat.suspense.value)}</blockquote>
            <input
              data-testid="note"
              placeholder="Note for the customer (optional)"
              value={note}
              onChange={(e) => setNote(e.target.value)}
            />
            <button
              type="button"
              data-testid="approve"
              onClick={() =>
                void chat.suspense?.resume(
                  { approved: true, ...(note ? { note } : {}) },
                  { text: `Approved${note ? `: ${note}` : ""}` },
                )
              }
            >
              Approve
            </button>
            <button
              type="button"
              data-testid="reject"
              onClick={() =>
                void chat.suspense?.resume(
                  { approved: false, ...(note ? { note } : {}) },
                  { text: `Rejected${note ? `: ${note}` : ""}` },
                )
              }
            >
              Reject
            </button>
          </form>
        )}
        {chat.error && (
          <div
            className="error"
            data-testid="error"
            data-code={chat.error instanceof GraphChatError ? chat.error.code : undefined}
          >
            <p>{chat.error.message}</p>
            {chat.error instanceof GraphChatError && chat.error.issues.length > 0 && (
              <ul data-testid="issues">
                {chat.error.issues.map((issue) => (
                  <li key={issue}>{issue}</li>
                ))}
              </ul>
            )}
          </div>
        )}
        <form className="composer" onSubmit={send}>
          <input
            data-testid="input"
            placeholder={chat.suspense ? "Answer the approval first" : "Ask about an order, e.g. A-123"}
            value={input}
            disabled={chat.suspense !== undefined}
            onChange={(e) => setInput(e.target.value)}
          />
          {busy ? (
            <button type="button" data-testid="stop" onClick={() => void chat.stop()}>
              Stop
            </button>
          ) : (
            <button type="submit" data-testid="send" disabled={chat.suspense !== undefined}>
              Send
            </button>
          )}
        </form>
      </main>
      <aside
        className="panel"
        data-testid="panel"
        data-chat-status={chat.status}
        data-run-status={chat.run?.status ?? (busy ? "running" : "idle")}
      >
        <h2>Workflow {id}</h2>
        <ul>
          {NODES.map((name) => {
            const node = chat.nodes.find((n) => n.path === name);
            return (
              <li
                key={name}
                data-node={name}
                data-status={status(name)}
                data-active={chat.activeNodes.includes(name) ? "true" : undefined}
              >
                <span className="dot" />
                {name}
                {node !== undefined && node.runs > 1 && <span data-testid="runs">×{node.runs}</span>}
                {node?.durationMs !== undefined && <small>{node.durationMs} ms</small>}
              </li>
            );
          })}
        </ul>
        <p className="status">
          run:{" "}
          <b data-testid="run-status" data-status={chat.run?.status ?? (busy ? "running" : "idle")}>
            {chat.run?.status ?? (busy ? "running" : "—")}
          </b>
        </p>
      </aside>
    </div>
  );
}
