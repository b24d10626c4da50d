// The page's model: what the server's events say about each run and node. No DOM here.

export const state = {
  views: new Map(), // graph name → { name, mermaid, nodes: [{ path, id, type, mapped }] }
  runs: new Map(), // root workflow id → live run
  stored: [], // stored workflows (list)
  selected: undefined, // { kind: "live" | "stored", id }
  detail: undefined, // the selected stored workflow's detail
  selectedNode: undefined,
  collapsed: new Set(), // Mermaid ids of collapsed subgraphs
  follow: true, // select the newest live run automatically
  notice: "",
  connection: "connecting",
  renders: 0,
};

// ───────────────────────────── events → state ─────────────────────────────

function nodeOf(run, path) {
  let n = run.nodes.get(path);
  if (n === undefined) {
    n = { state: "idle", attempt: 1 };
    run.nodes.set(path, n);
  }
  return n;
}

/** Applies one server event to the model. */
export function apply(ev) {
  if (ev.type === "Notice") {
    state.notice = ev.message;
    return;
  }
  if (ev.type === "RunStart" && ev.depth === 0) {
    // A new run of the workflow (first run or a resume): states start over, replayed steps follow. What the
    // earlier run showed (inputs, outputs, timings) stays in the side panel.
    const previous = state.runs.get(ev.root);
    for (const n of previous?.nodes.values() ?? []) n.state = "idle";
    state.runs.set(ev.root, {
      root: ev.root,
      graph: ev.graph,
      status: "running",
      nodes: previous?.nodes ?? new Map(),
      pause: undefined,
      startedAt: ev.timestamp,
    });
    if (state.follow) state.selected = { kind: "live", id: ev.root };
    return;
  }
  const run = state.runs.get(ev.root);
  if (run === undefined) return;
  switch (ev.type) {
    case "RunEnd":
      if (ev.path === "") {
        run.status = ev.status;
        run.error = ev.error;
        if (ev.status !== "paused") run.pause = undefined;
      }
      return;
    case "NodeStart": {
      const n = nodeOf(run, ev.path);
      Object.assign(n, { state: "running", startedAt: ev.timestamp, inputs: ev.inputs, type: ev.nodeType });
      Object.assign(n, { outputs: undefined, error: undefined, durationMs: undefined, attempt: 1, cached: false });
      return;
    }
    case "NodeEnd": {
      const n = nodeOf(run, ev.path);
      n.state = ev.replayed ? "replayed" : ev.status;
      if (ev.replayed) {
        // A replayed GraphNode does not run its subgraph again: its nodes count as replayed too. The timings
        // shown stay those of the run that computed the value.
        for (const [p, m] of run.nodes) if (p.startsWith(`${ev.path}/`)) m.state = "replayed";
        return;
      }
      Object.assign(n, { durationMs: ev.durationMs, outputs: ev.outputs, cached: ev.cached || n.cached });
      return;
    }
    case "NodeError": {
      const n = nodeOf(run, ev.path);
      n.error = ev.error;
      if (ev.willRetry) n.attempt = ev.attempt + 1;
      else n.state = "failed";
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
    case "RouteDecision": {
      const n = nodeOf(run, ev.path);
      n.decision = ev.decision === null ? "none" : ev.decision.join(", ");
      // Gates have no replayed NodeEnd: their restored decision is what shows they were replayed.
      if (ev.replayed) n.state = "replayed";
      return;
    }
    case "StopRequested":
      run.stopRequested = true;
      return;
  }
}
