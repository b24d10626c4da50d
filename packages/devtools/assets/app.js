// The devtools page. State is rebuilt from the server's events (Server-Sent Events, replayed from the server's
// bounded log on connect); the DOM is re-rendered at most every RENDER_INTERVAL_MS however fast events arrive.
// Every piece of run data is inserted as text, never as HTML (see dom.js and graph.js).
/* global mermaid */
import { $, api, eventsUrl, h, put, workflowPath } from "./dom.js";
import { renderGraph } from "./graph.js";
import { renderHistory } from "./history.js";
import { apply, state } from "./model.js";
import { renderActions, renderDetails, renderPause, renderStart, renderStepDetails, setRerender } from "./panels.js";
import { liveTimeline } from "./timeline.js";

const RENDER_INTERVAL_MS = 200; // ≤ 5 renders per second

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
setRerender(scheduleRender);

/** The node states of what is selected: a live run's, or a stored workflow's from its last step per node. */
function currentNodes() {
  if (state.selected?.kind === "live") return state.runs.get(state.selected.id)?.nodes ?? new Map();
  const nodes = new Map();
  for (const s of state.detail?.steps ?? []) {
    if (s.kind === "input") continue;
    nodes.set(s.nodeName, {
      state: s.status,
      outputs: s.values,
      durationMs: s.durationMs,
      error: s.error,
      diff: s.changes,
    });
  }
  return nodes;
}

function currentGraphName() {
  if (state.selected?.kind === "live") {
    const run = state.runs.get(state.selected.id);
    // A run whose start was dropped came with no graph name: the stored workflow knows it.
    return run?.graph ?? state.stored.find((w) => w.id === run?.root)?.graphName;
  }
  return state.detail?.graphName;
}

/**
 * A live run's status as the page shows it. Events tell what this process ran; the store tells what happened
 * since without events: a paused workflow cancelled (no run, so no RunEnd), a running one whose process died.
 */
function liveStatus(run) {
  const stored = state.stored.find((w) => w.id === run.root);
  if (stored === undefined) return run.status;
  if (run.status === "running") return stored.status === "dead" ? "dead" : "running";
  return stored.status === "running" ? run.status : stored.status;
}

/** The selected workflow with the status the page acts on. */
function currentTarget() {
  const sel = state.selected;
  if (sel === undefined) return undefined;
  if (sel.kind === "live") {
    const run = state.runs.get(sel.id);
    return run === undefined ? undefined : { id: sel.id, status: liveStatus(run) };
  }
  return state.detail === undefined ? undefined : { id: state.detail.id, status: state.detail.status };
}

function render() {
  state.renders++;
  document.body.dataset.renders = String(state.renders);
  document.body.dataset.connection = state.connection;
  $("connection").textContent = state.connection;
  $("notice").hidden = state.notice === "";
  $("notice").textContent = state.notice;
  renderLists();
  const name = currentGraphName();
  const view = name === undefined ? undefined : state.views.get(name);
  const id = state.selected?.id;
  $("title").textContent =
    id === undefined ? "Waiting for a run…" : `${id} · graph ${name ?? "?"}${view ? "" : " (not registered)"}`;
  const nodes = currentNodes();
  renderGraph(view, nodes, selectNode, scheduleRender);
  renderActions(currentTarget());
  renderStart();
  const live = state.selected?.kind === "live" ? state.runs.get(state.selected.id) : undefined;
  renderDropped(live);
  put(
    $("timeline"),
    ...(live === undefined ? [] : [h("h2", {}, "Timeline"), ...liveTimeline(live, selectNode, scheduleRender)]),
  );
  if (live !== undefined) renderPause(live.status === "paused" ? live.pause : undefined, live.root, live.graph);
  else {
    const d = state.detail;
    renderPause(d?.status === "paused" ? d.pause : undefined, d?.id, d?.graphName);
  }
  const step = state.detail?.steps.find((s) => s.index === state.selectedStep);
  if (state.selected?.kind === "stored" && step !== undefined) renderStepDetails(step);
  else if (state.selectedNode !== undefined) {
    const info = view?.nodes.find((v) => v.path === state.selectedNode);
    renderDetails(state.selectedNode, nodes.get(state.selectedNode), info);
  } else
    put(
      $("details"),
      h("p", { class: "muted" }, "Click a node or a step to see its inputs, outputs, timings and what it changed."),
    );
  renderHistory(state.selected?.kind === "stored" ? state.detail : undefined);
}

/** The marker of a live run some of whose events never reached the page. */
function renderDropped(run) {
  const count = run?.dropped ?? 0;
  const el = $("dropped");
  el.hidden = count === 0;
  el.dataset.dropped = String(count);
  const stored = state.stored.some((w) => w.id === run?.root);
  el.textContent =
    count === 0
      ? ""
      : `⚠ ${count} event${count === 1 ? "" : "s"} of this run were dropped before reaching devtools (the run handle's event buffer was full): node states and the timeline may be incomplete.${stored ? " The stored workflow has the full history." : ""}`;
}

function renderLists() {
  const live = [...state.runs.values()].sort((a, b) => b.startedAt - a.startedAt);
  put(
    $("live"),
    ...live.map((r) =>
      h(
        "li",
        {
          "data-run": r.root,
          "data-status": liveStatus(r),
          "aria-selected": state.selected?.kind === "live" && state.selected.id === r.root,
          onclick: () => select({ kind: "live", id: r.root }),
        },
        `${r.root} `,
        h("span", { class: "badge", "data-state": liveStatus(r) }, liveStatus(r)),
        ...(r.dropped > 0
          ? [
              h(
                "span",
                { class: "badge dropped", "data-dropped": r.dropped, title: "events dropped before reaching devtools" },
                `⚠ ${r.dropped} dropped`,
              ),
            ]
          : []),
      ),
    ),
  );
  put(
    $("stored"),
    ...state.stored.map((w) =>
      h(
        "li",
        {
          "data-workflow": w.id,
          "data-status": w.status,
          "aria-selected": state.selected?.kind === "stored" && state.selected.id === w.id,
          onclick: () => select({ kind: "stored", id: w.id }),
        },
        `${w.id} `,
        h("span", { class: "badge", "data-state": w.status }, w.status),
      ),
    ),
  );
}

function selectNode(path) {
  state.selectedNode = path;
  state.selectedStep = undefined;
  render();
}

async function loadDetail() {
  if (state.selected?.kind !== "stored") return;
  try {
    state.detail = await api(workflowPath(state.selected.id));
  } catch (e) {
    state.notice = e.message;
  }
}

async function select(sel) {
  state.selected = sel;
  state.follow = false;
  state.detail = undefined;
  state.selectedNode = undefined;
  state.selectedStep = undefined;
  state.children.clear();
  state.errors = {};
  await loadDetail();
  render();
}

async function loadStored() {
  try {
    state.stored = await api("/api/workflows");
  } catch (e) {
    state.notice = e.message;
  }
  await loadDetail();
  scheduleRender();
}

async function start() {
  mermaid.initialize({
    startOnLoad: false,
    securityLevel: "strict",
    theme: "neutral",
    // Labels as SVG text, not HTML in a foreignObject (which the page removes: see graph.js).
    htmlLabels: false,
  });
  $("refresh").addEventListener("click", loadStored);
  window.addEventListener("devtools:reload", loadStored);
  for (const v of await api("/api/graphs")) state.views.set(v.name, v);
  void loadStored();
  // EventSource reconnects by itself and sends Last-Event-ID; the server replays what was missed.
  const source = new EventSource(eventsUrl());
  source.addEventListener("open", () => {
    state.connection = "live";
    scheduleRender();
  });
  source.addEventListener("error", () => {
    state.connection = "reconnecting";
    scheduleRender();
  });
  source.addEventListener("reset", (e) => {
    state.runs.clear();
    // The server's log is bounded: what it no longer keeps, this page can't show.
    const notKept = JSON.parse(e.data).notKept ?? 0;
    if (notKept > 0)
      state.notice = `${notKept} earlier event${notKept === 1 ? " is" : "s are"} no longer kept by devtools (bufferSize): runs that began before show only what followed.`;
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
