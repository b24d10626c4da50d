// DOM helpers of the page. Every piece of run data (node names, values, errors, workflow ids) reaches the DOM as
// text through h() — never as HTML.

export const $ = (id) => document.getElementById(id);

/** An element with attributes (`on…` are listeners) and children (nodes, or strings inserted as text). */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, String(v));
  }
  for (const c of children.flat())
    if (c !== undefined && c !== null && c !== false) el.append(c instanceof Node ? c : String(c));
  return el;
}

const token = new URL(location.href).searchParams.get("token") ?? "";
export const eventsUrl = () => `/api/events?token=${encodeURIComponent(token)}`;

/** An API error: the server's message and, for a refused answer or run, its issues. */
export class ApiError extends Error {
  constructor(status, body) {
    super(body.error ?? `HTTP ${status}`);
    this.status = status;
    this.issues = body.issues ?? [];
  }
}

/** GET (no body) or POST (JSON body) to the devtools API, with the token. */
export async function api(path, body) {
  const init = { headers: { "x-devtools-token": token } };
  if (body !== undefined) {
    init.method = "POST";
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const json = await res.json();
  if (!res.ok) throw new ApiError(res.status, json);
  return json;
}

export const workflowPath = (id, action) =>
  `/api/workflows/${encodeURIComponent(id)}${action === undefined ? "" : `/${action}`}`;

/** A previewed JSON value, indented when it parses. */
export function pretty(json) {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return String(json);
  }
}

/** An error box: the message and the issues, one per line. */
export function errorBox(field, error) {
  if (error === undefined) return h("div", { "data-field": field, hidden: true });
  return h(
    "div",
    { "data-field": field, class: "notice", "data-status": error.status ?? "" },
    h("div", {}, error.message),
    error.issues?.length ? h("ul", {}, ...error.issues.map((i) => h("li", { "data-issue": "" }, i))) : undefined,
  );
}

/** Replaces an element's children; `undefined`, `null` and `false` entries are skipped (never the text "undefined"). */
export function put(el, ...children) {
  el.replaceChildren(...children.flat().filter((c) => c !== undefined && c !== null && c !== false));
  return el;
}
