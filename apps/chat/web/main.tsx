import { StrictMode } from "react";
import { createRoot } from "react-dom/client";
import { App } from "./App.js";

/** The chat's id (the workflow id) lives in the URL, so a reload comes back to the same workflow. */
function chatId(): string {
  const url = new URL(window.location.href);
  let id = url.searchParams.get("chat");
  if (id === null) {
    id = `chat-${crypto.randomUUID().slice(0, 8)}`;
    url.searchParams.set("chat", id);
    window.history.replaceState(null, "", url);
  }
  return id;
}

createRoot(document.getElementById("root")!).render(
  <StrictMode>
    <App id={chatId()} />
  </StrictMode>,
);
