// The devtools page. State is rebuilt from the server's events (Server-Sent Events, replayed from the server's
// bounded log on connect); the DOM is re-rendered at most every RENDER_INTERVAL_MS however fast events arrive.
// Every piece of run data is inserted with textContent, never as HTML.
/* global mermaid */
import { apply, state } from "./model.js";

const RENDER_INTERVAL_MS = 200; // ≤ 5 renders per second
const token = new URL(location.href).searchParams.get("token") ?? "";

const $ = (id) => document.getElementById(id);

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null) continue;
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else el.setAttribute(k, String(v));
  }
  for (const c of children) if (c !== undefined && c !== null) el.append(c instanceof Node ? c : String(c));
  return el;
}

async function api(path, body) {
  const init = { headers: { "x-devtools-token": token } };
  if (body !== undefined) {
    init.method = "POST";
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const res = await fetch(path, init);
  const json = await res.json();
  if (!res.ok) throw new Error(json.error ?? `HTTP ${res.status}`);
  return json;
}

// ───────────────────────────── rendering ─────────────────────────────

let renderTimer;
let lastRender = 0;
function scheduleRender() {
  if (renderTimer !== undefined) return;
  const wait = Math.max(0, lastRender + RENDER_INTERVAL_MS - performance.now());
  renderTimer = setTimeout(() => {
    renderTimer = undefined;
    lastRender = performance.now();
    render();
  }, wait);
}

/** The node states of what is selected: a live run's, or a stored workflow's from its last step per node. */
function currentNodes() {
  if (state.selected?.kind === "live") return state.runs.get(state.selected.id)?.nodes ?? new Map();
  const nodes = new Map();
  for (const s of state.detail?.steps ?? []) {
    if (s.nodeName.startsWith("__")) continue;
    nodes.set(s.nodeName, { state: s.status, outputs: s.values, durationMs: s.durationMs, error: s.error });
  }
  return nodes;
}

function currentGraphName() {
  if (state.selected?.kind === "live") return state.runs.get(state.selected.id)?.graph;
  return state.detail?.graphName;
}

function render() {
  state.renders++;
  document.body.dataset.renders = String(state.renders);
  document.body.dataset.connection = state.connection;
  $("connection").textContent = state.connection;
  $("notice").hidden = state.notice === "";
  $("notice").textContent = state.notice;
  renderLists();
  renderGraph();
  renderPause();
  renderDetails();
  renderHistory();
}

function renderLists() {
  const live = [...state.runs.values()].sort((a, b) => b.startedAt - a.startedAt);
  $("live").replaceChildren(
    ...live.map((r) =>
      h(
        "li",
        {
          "data-run": r.root,
          "data-status": r.status,
          "aria-selected": state.selected?.kind === "live" && state.selected.id === r.root,
          onclick: () => select({ kind: "live", id: r.root }),
        },
        `${r.root} `,
        h("span", { class: "badge", "data-state": r.status === "paused" ? "paused" : r.status }, r.status),
      ),
    ),
  );
  $("stored").replaceChildren(
    ...state.stored.map((w) =>
      h(
        "li",
        {
          "data-workflow": w.id,
          "aria-selected": state.selected?.kind === "stored" && state.selected.id === w.id,
          onclick: () => select({ kind: "stored", id: w.id }),
        },
        `${w.id} `,
        h("span", { class: "badge", "data-state": w.status }, w.status),
      ),
    ),
  );
}

let drawn = { key: "", elements: new Map() };
let drawing = 0;

/** Mermaid text with the collapsed subgraphs drawn as single nodes. */
function collapse(text) {
  const out = [];
  let skipUntil;
  for (const line of text.split("\n")) {
    if (skipUntil !== undefined) {
      if (line === skipUntil) skipUntil = undefined;
      continue;
    }
    const m = /^(\s*)subgraph (\S+) \[(.*)\]$/.exec(line);
    if (m !== null && state.collapsed.has(m[2])) {
      out.push(`${m[1]}${m[2]}[${m[3]}]`);
      skipUntil = `${m[1]}end`;
      continue;
    }
    out.push(line);
  }
  return out.join("\n");
}

function renderGraph() {
  const name = currentGraphName();
  const view = name === undefined ? undefined : state.views.get(name);
  const id = state.selected?.id;
  $("title").textContent =
    id === undefined ? "Waiting for a run…" : `${id} · graph ${name ?? "?"}${view ? "" : " (not registered)"}`;
  const key = view === undefined ? "" : `${view.name}|${[...state.collapsed].sort().join(",")}`;
  if (key !== drawn.key) {
    drawn = { key, elements: new Map() };
    if (view === undefined) $("graph").replaceChildren();
    else void draw(view, key);
  }
  const nodes = currentNodes();
  const placed = new Set();
  for (const [path, el] of drawn.elements) {
    const n = nodes.get(path);
    placed.add(path);
    el.setAttribute("data-state", n?.state ?? "idle");
    el.setAttribute("data-selected", String(state.selectedNode === path));
    const label = el.querySelector("text");
    if (label !== null && el.dataset.label !== undefined) {
      const progress = n?.total !== undefined ? ` · ${n.done}/${n.total}` : "";
      if (progress !== "") el.setAttribute("data-progress", `${n.done}/${n.total}`);
      setLabel(label, `${el.dataset.label}${progress}`);
    }
  }
  // Nodes the drawing does not show (unregistered graph, collapsed subgraph): badges under the graph.
  const rest = [...nodes].filter(([path]) => !placed.has(path));
  $("unplaced").replaceChildren(
    ...rest.map(([path, n]) =>
      h("span", { "data-row": path, class: "badge", "data-state": n.state, onclick: () => selectNode(path) }, path),
    ),
  );
}

/** Mermaid may wrap a label over several tspans: the first gets the whole text, the others are emptied. */
function setLabel(textEl, text) {
  const spans = [...textEl.querySelectorAll("tspan")].filter((s) => s.children.length === 0);
  if (spans.length === 0) {
    if (textEl.textContent !== text) textEl.textContent = text;
    return;
  }
  if (spans[0].textContent !== text) spans[0].textContent = text;
  for (const s of spans.slice(1)) s.textContent = "";
}

async function draw(view, key) {
  const generation = ++drawing;
  const { svg } = await mermaid.render(`graph-${generation}`, collapse(view.mermaid));
  if (generation !== drawing) return;
  const host = $("graph");
  host.innerHTML = svg; // Mermaid's own output (strict security level): labels are escaped by Mermaid
  const byId = new Map(view.nodes.filter((n) => n.id !== undefined).map((n) => [n.id, n]));
  const elements = new Map();
  const idOf = (el) => {
    const raw = el.id ?? "";
    const m = /flowchart-([A-Za-z0-9_]+)-\d+$/.exec(raw);
    if (m !== null) return m[1];
    for (const id of byId.keys()) if (raw === id || raw.endsWith(`-${id}`)) return id;
    return undefined;
  };
  for (const el of host.querySelectorAll("g.node, g.cluster")) {
    const node = byId.get(idOf(el));
    if (node === undefined) continue;
    el.setAttribute("data-node", node.path);
    el.setAttribute("data-type", node.type);
    if (node.mapped) {
      const text = el.querySelector("text");
      el.dataset.label = text?.textContent ?? node.path;
    }
    el.addEventListener("click", (e) => {
      e.stopPropagation();
      selectNode(node.path);
    });
    elements.set(node.path, el);
  }
  if (drawn.key === key) drawn.elements = elements;
  scheduleRender();
}

function renderPause() {
  const box = $("pause");
  let pause;
  let id;
  if (state.selected?.kind === "live") {
    const run = state.runs.get(state.selected.id);
    if (run?.status === "paused" && run.pause !== undefined) pause = run.pause;
    id = run?.root;
  } else if (state.detail?.status === "paused" && state.detail.pause !== undefined) {
    pause = state.detail.pause;
    id = state.detail.id;
  }
  box.hidden = pause === undefined;
  if (pause === undefined) {
    box.replaceChildren();
    return;
  }
  if (box.dataset.for === `${id}|${pause.nodeName}|${pause.value}`) return; // keep what the person is typing
  box.dataset.for = `${id}|${pause.nodeName}|${pause.value}`;
  const text = h("textarea", { "data-field": "answer", placeholder: "Or type an answer…" });
  const send = (action) => () => {
    box.dataset.for = "";
    box.hidden = true;
    api(`/api/workflows/${encodeURIComponent(id)}/answer`, { action, text: text.value || undefined }).catch((e) => {
      state.notice = e.message;
      scheduleRender();
    });
    state.follow = true;
  };
  box.replaceChildren(
    h("h2", {}, `Paused at ${pause.nodeName}`),
    h("pre", { "data-field": "pause-value" }, pretty(pause.value)),
    h("button", { type: "button", "data-action": "approve", onclick: send("approve") }, "Approve"),
    " ",
    h("button", { type: "button", "data-action": "reject", onclick: send("reject") }, "Reject"),
    text,
    h("button", { type: "button", "data-action": "send", onclick: send("text") }, "Send answer"),
  );
}

function pretty(json) {
  try {
    return JSON.stringify(JSON.parse(json), null, 2);
  } catch {
    return String(json);
  }
}

function renderDetails() {
  const path = state.selectedNode;
  const n = path === undefined ? undefined : currentNodes().get(path);
  if (path === undefined) return;
  const view = state.views.get(currentGraphName() ?? "");
  const info = view?.nodes.find((v) => v.path === path);
  const rows = [
    ["state", n?.state ?? "idle"],
    ["type", info?.type ?? n?.type ?? "?"],
    ["started", n?.startedAt === undefined ? "—" : new Date(n.startedAt).toLocaleTimeString()],
    ["duration", n?.durationMs === undefined ? "—" : `${n.durationMs} ms`],
    ["attempt", n?.attempt ?? 1],
  ];
  if (n?.cached) rows.push(["cached", "yes"]);
  if (n?.total !== undefined) rows.push(["items", `${n.done}/${n.total}`]);
  if (n?.decision !== undefined) rows.push(["decision", n.decision]);
  const values = (title, record) =>
    record === undefined || Object.keys(record).length === 0
      ? []
      : [h("h2", {}, title), ...Object.entries(record).flatMap(([k, v]) => [h("div", {}, k), h("pre", {}, v)])];
  const toggle =
    info?.type === "graph" && info.id !== undefined
      ? h(
          "button",
          {
            type: "button",
            "data-action": "collapse",
            onclick: () => {
              if (state.collapsed.has(info.id)) state.collapsed.delete(info.id);
              else state.collapsed.add(info.id);
              render();
            },
          },
          state.collapsed.has(info.id) ? "Expand subgraph" : "Collapse subgraph",
        )
      : undefined;
  $("details").replaceChildren(
    h("h2", {}, path),
    h("table", { "data-details": path }, ...rows.map(([k, v]) => h("tr", {}, h("th", {}, k), h("td", {}, v)))),
    ...(n?.error === undefined ? [] : [h("h2", {}, "error"), h("pre", { class: "notice" }, n.error)]),
    ...values("inputs", n?.inputs),
    ...values("outputs", n?.outputs),
    ...(toggle === undefined ? [] : [toggle]),
  );
}

function renderHistory() {
  const box = $("history");
  const d = state.selected?.kind === "stored" ? state.detail : undefined;
  box.hidden = d === undefined;
  if (d === undefined) return;
  const fork = (superstep) => async () => {
    try {
      const { workflowId } = await api(`/api/workflows/${encodeURIComponent(d.id)}/fork`, { superstep });
      state.follow = true;
      state.selected = { kind: "live", id: workflowId };
    } catch (e) {
      state.notice = e.message;
    }
    scheduleRender();
  };
  box.replaceChildren(
    h("h2", {}, `History of ${d.id} (${d.status})`),
    h(
      "table",
      {},
      h("tr", {}, h("th", {}, "step"), h("th", {}, "node"), h("th", {}, "status"), h("th", {}, "")),
      ...d.steps.map((s) =>
        h(
          "tr",
          { "data-step": s.index },
          h("td", {}, s.superstep),
          h("td", {}, s.nodeName),
          h("td", {}, s.status),
          h("td", {}, h("button", { type: "button", "data-fork": s.superstep, onclick: fork(s.superstep) }, "Fork")),
        ),
      ),
    ),
    h("h2", {}, "Final values"),
    ...Object.entries(d.values).flatMap(([k, v]) => [h("div", {}, k), h("pre", {}, v)]),
  );
}

// ───────────────────────────── actions ─────────────────────────────

function selectNode(path) {
  state.selectedNode = path;
  render();
}

async function select(sel) {
  state.selected = sel;
  state.follow = false;
  state.detail = undefined;
  state.selectedNode = undefined;
  if (sel.kind === "stored") {
    try {
      state.detail = await api(`/api/workflows/${encodeURIComponent(sel.id)}`);
    } catch (e) {
      state.notice = e.message;
    }
  }
  render();
}

async function loadStored() {
  try {
    state.stored = await api("/api/workflows");
  } catch (e) {
    state.notice = e.message;
  }
  scheduleRender();
}

async function start() {
  mermaid.initialize({
    startOnLoad: false,
    securityLevel: "strict",
    theme: "neutral",
    flowchart: { htmlLabels: false },
  });
  $("refresh").addEventListener("click", loadStored);
  for (const v of await api("/api/graphs")) state.views.set(v.name, v);
  void loadStored();
  // EventSource reconnects by itself and sends Last-Event-ID; the server replays what was missed.
  const source = new EventSource(`/api/events?token=${encodeURIComponent(token)}`);
  source.addEventListener("open", () => {
    state.connection = "live";
    scheduleRender();
  });
  source.addEventListener("error", () => {
    state.connection = "reconnecting";
    scheduleRender();
  });
  source.addEventListener("reset", () => {
    state.runs.clear();
    scheduleRender();
  });
  source.addEventListener("message", (e) => {
    const ev = JSON.parse(e.data);
    apply(ev);
    // The store records the run's end right after the event: reload the list a moment later.
    if (ev.type === "RunEnd" && ev.path === "") for (const ms of [300, 1500]) setTimeout(loadStored, ms);
    scheduleRender();
  });
  render();
}

start().catch((e) => {
  state.notice = `Could not start: ${e.message}`;
  render();
});
