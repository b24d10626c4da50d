// The page's model: what the server's events say about each run and node. No DOM here.

export const state = {
  views: new Map(), // graph name → { name, mermaid, nodes: [{ path, id, type, mapped, answer }], inputs }
  runs: new Map(), // root workflow id → live run
  stored: [], // stored workflows (list)
  selected: undefined, // { kind: "live" | "stored", id }
  detail: undefined, // the selected stored workflow's detail
  children: new Map(), // stored child workflow id → its detail or map items (loaded when opened)
  toggled: new Set(), // timeline rows flipped from their default (nested graphs open, map items closed)
  selectedNode: undefined,
  selectedStep: undefined, // index of the stored step whose diff is shown
  forkEditor: undefined, // { workflowId, superstep, values: [{ name, json, editable }] } while editing a fork
  errors: {}, // the last refused request per form: { answer, start, fork, action }
  collapsed: new Set(), // Mermaid ids of collapsed subgraphs
  follow: true, // select the newest live run automatically
  notice: "",
  connection: "connecting",
  renders: 0,
};

/** Map items kept one by one per mapped node (for the timeline); beyond that only counted. */
const MAX_ITEM_ROWS = 500;

function nodeOf(run, path) {
  let n = run.nodes.get(path);
  if (n === undefined) {
    n = { state: "idle", attempt: 1 };
    run.nodes.set(path, n);
  }
  return n;
}

/**
 * What a mapped node's items did: `done/total` while all is well, `225 stopped / 75 done` once a stop (or failures)
 * cut it short. Items that never ran because of the stop count as stopped.
 */
export function progressOf(n) {
  const c = n.itemCounts;
  if (c === undefined && n.total === undefined) return undefined;
  const done = c?.completed ?? n.done ?? 0;
  const failed = c?.failed ?? 0;
  const total = Math.max(n.total ?? 0, c?.started ?? 0);
  const cut = n.state === "stopped" || n.state === "failed" || (c?.stopped ?? 0) > 0;
  if (!cut && failed === 0) return `${done}/${total}`;
  const parts = [];
  if (cut) parts.push(`${Math.max(0, total - done - failed)} stopped`);
  parts.push(`${done} done`);
  if (failed > 0) parts.push(`${failed} failed`);
  return parts.join(" / ");
}

function itemEvent(run, ev) {
  const n = nodeOf(run, ev.path);
  n.itemCounts ??= { started: 0, completed: 0, failed: 0, stopped: 0, paused: 0 };
  n.items ??= new Map();
  if (ev.type === "RunStart") {
    n.itemCounts.started++;
    if (n.items.size < MAX_ITEM_ROWS) n.items.set(ev.item, { startedAt: ev.timestamp, state: "running" });
    return;
  }
  n.itemCounts[ev.status] = (n.itemCounts[ev.status] ?? 0) + 1;
  const item = n.items.get(ev.item);
  if (item !== undefined) Object.assign(item, { state: ev.status, durationMs: ev.durationMs, error: ev.error });
}

/**
 * The runtime dropped events of this workflow before devtools got them (a run handle's buffer was full): count them
 * for the marker. When the run's start was among them, the run is shown from what arrives next.
 */
function dropped(ev) {
  let run = state.runs.get(ev.root);
  if (run === undefined) {
    run = {
      root: ev.root,
      graph: ev.graph,
      status: "running",
      nodes: new Map(),
      values: new Map(),
      pause: undefined,
      startedAt: ev.timestamp,
      firstStartedAt: ev.timestamp,
      resumes: 0,
      dropped: 0,
    };
    state.runs.set(ev.root, run);
    if (state.follow) state.selected = { kind: "live", id: ev.root };
  }
  run.dropped = ev.dropped ?? run.dropped + ev.count;
}

/** The one registered graph with a node at `path` (a run whose start was dropped names no graph), if any. */
function graphHaving(path) {
  const names = [...state.views.values()].filter((v) => v.nodes.some((n) => n.path === path)).map((v) => v.name);
  return names.length === 1 ? names[0] : undefined;
}

/** Applies one server event to the model. */
export function apply(ev) {
  if (ev.type === "Notice") {
    state.notice = ev.message;
    return;
  }
  if (ev.type === "RunStart" && ev.depth === 0) {
    // A new run of the workflow (first run or a resume). What the earlier run showed stays as history, marked
    // `earlier`: replayed steps confirm it, nodes that run again get a new state.
    const previous = state.runs.get(ev.root);
    for (const n of previous?.nodes.values() ?? []) n.earlier = true;
    state.runs.set(ev.root, {
      root: ev.root,
      graph: ev.graph,
      status: "running",
      nodes: previous?.nodes ?? new Map(),
      values: previous?.values ?? new Map(),
      pause: undefined,
      startedAt: ev.timestamp,
      firstStartedAt: previous?.firstStartedAt ?? ev.timestamp,
      resumes: previous === undefined ? 0 : previous.resumes + 1,
      dropped: previous?.dropped ?? 0,
    });
    if (state.follow) state.selected = { kind: "live", id: ev.root };
    return;
  }
  if (ev.type === "EventsDropped") return dropped(ev);
  const run = state.runs.get(ev.root);
  if (run === undefined) return;
  if (run.graph === undefined && ev.path) run.graph = graphHaving(ev.path);
  if ((ev.type === "RunStart" || ev.type === "RunEnd") && ev.item !== undefined) return itemEvent(run, ev);
  switch (ev.type) {
    case "RunEnd":
      if (ev.path === "") {
        run.status = ev.status;
        run.error = ev.error;
        run.endedAt = ev.timestamp;
        if (ev.status !== "paused") run.pause = undefined;
      }
      return;
    case "NodeStart": {
      const n = nodeOf(run, ev.path);
      Object.assign(n, { state: "running", startedAt: ev.timestamp, inputs: ev.inputs, type: ev.nodeType });
      n.waiting = undefined;
      Object.assign(n, { outputs: undefined, error: undefined, durationMs: undefined, attempt: 1, cached: false });
      Object.assign(n, { earlier: false, replayed: false, diff: undefined });
      if (n.items !== undefined) Object.assign(n, { items: undefined, itemCounts: undefined, done: undefined });
      return;
    }
    case "NodeEnd": {
      const n = nodeOf(run, ev.path);
      if (ev.replayed) {
        // History, not a new state: the step completed in an earlier run and is restored from the checkpoint. A
        // page that saw that run keeps its timings; one that opened later learns the outputs now.
        Object.assign(n, { state: ev.status, earlier: true, replayed: true });
        n.outputs ??= ev.outputs;
        for (const [p, m] of run.nodes) {
          if (!p.startsWith(`${ev.path}/`)) continue;
          m.earlier = true;
          if (m.state === "idle" || m.state === "running") m.state = "completed";
        }
        for (const [k, v] of Object.entries(ev.outputs)) run.values.set(k, v);
        return;
      }
      const diff = {};
      for (const [k, v] of Object.entries(ev.outputs)) {
        diff[k] = run.values.has(k) ? { before: run.values.get(k), after: v } : { after: v };
        run.values.set(k, v);
      }
      Object.assign(n, { state: ev.status, durationMs: ev.durationMs, outputs: ev.outputs, diff });
      n.cached = ev.cached || n.cached;
      n.truncated = ev.truncated;
      return;
    }
    case "NodeError": {
      const n = nodeOf(run, ev.path);
      n.error = ev.error;
      if (ev.willRetry) n.attempt = ev.attempt + 1;
      else {
        n.state = "failed";
        n.durationMs ??= ev.timestamp - (n.startedAt ?? ev.timestamp);
      }
      return;
    }
    case "Paused": {
      const n = nodeOf(run, ev.path);
      n.state = "paused";
      n.durationMs = ev.timestamp - (n.startedAt ?? ev.timestamp);
      if (ev.workflowId === run.root) run.pause = { path: ev.path, nodeName: ev.nodeName, value: ev.value };
      return;
    }
    case "MapProgress": {
      const n = nodeOf(run, ev.path);
      n.done = ev.completed;
      n.total = ev.total;
      return;
    }
    case "CacheHit":
      nodeOf(run, ev.path).cached = true;
      return;
    case "NodeWaiting": {
      // Its concurrency limit is full: the call waits for a permit (its NodeStart comes once it has one).
      const n = nodeOf(run, ev.path);
      n.state = "waiting";
      n.waiting = {
        kind: ev.limitKind,
        where: ev.where,
        key: ev.key,
        limit: ev.limit,
        active: ev.active,
        queued: ev.queued,
      };
      return;
    }
    case "RouteDecision": {
      const n = nodeOf(run, ev.path);
      n.decision = ev.decision === null ? "none" : ev.decision.join(", ");
      // Gates have no replayed NodeEnd: a restored decision is what says the gate is history from an earlier run.
      if (ev.replayed) {
        n.earlier = true;
        if (n.state === "idle") n.state = "completed";
      }
      return;
    }
    case "StopRequested":
      run.stopRequested = true;
      return;
  }
}
