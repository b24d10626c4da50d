import { type Graph, GraphConfigError, isGraph } from "@graph/core";
import { InvalidOptionError } from "../errors.js";
import type { ScheduleHandle, ScheduleOptions } from "../schedule.js";
import { checkChildIdRoom } from "./childIds.js";
import { checkCronSpec } from "./cron.js";
import { ScheduleEntry, type ScheduleHost } from "./scheduleEntry.js";

const WHERE = "runner.schedule()";
const OPTIONS = new Set([
  "id",
  "cron",
  "timezone",
  "values",
  "overlap",
  "catchUp",
  "catchUpWindowMs",
  "paused",
  "onEvent",
]);

function invalid(option: string, message: string): never {
  throw new InvalidOptionError(`${WHERE}: ${message}`, option);
}

/** Checks everything but the pattern (`checkCronSpec`) at call time: a bad schedule never arms a timer. */
function checkOptions(options: ScheduleOptions): void {
  for (const key of Object.keys(options))
    if (!OPTIONS.has(key)) invalid(key, `unknown option '${key}'.\n  How to fix: use only ${[...OPTIONS].join(", ")}.`);
  const { overlap, catchUp, catchUpWindowMs, paused, onEvent, values } = options;
  if (overlap !== undefined && overlap !== "skip" && overlap !== "queue" && overlap !== "allow")
    invalid(
      "overlap",
      `option 'overlap' must be "skip", "queue" or "allow", got ${JSON.stringify(overlap)}.\n  How to fix: pick one, or leave it out ("skip").`,
    );
  if (catchUp !== undefined && catchUp !== "latest" && catchUp !== "none")
    invalid(
      "catchUp",
      `option 'catchUp' must be "latest" or "none", got ${JSON.stringify(catchUp)}.\n  How to fix: pick one, or leave it out ("latest").`,
    );
  if (
    catchUpWindowMs !== undefined &&
    !(typeof catchUpWindowMs === "number" && catchUpWindowMs >= 0 && Number.isFinite(catchUpWindowMs))
  )
    invalid(
      "catchUpWindowMs",
      `option 'catchUpWindowMs' must be a finite number of milliseconds ≥ 0, got ${String(catchUpWindowMs)}.\n  How to fix: e.g. catchUpWindowMs: 3_600_000 (one hour).`,
    );
  if (paused !== undefined && typeof paused !== "boolean")
    invalid("paused", `option 'paused' must be true or false, got ${String(paused)}.`);
  if (onEvent !== undefined && typeof onEvent !== "function")
    invalid("onEvent", `option 'onEvent' must be a function (event) => void, got ${typeof onEvent}.`);
  if (values !== undefined && (typeof values !== "object" || values === null || Array.isArray(values)))
    invalid(
      "values",
      `option 'values' must be an object of the graph's input values, got ${Array.isArray(values) ? "an array" : String(values)}.`,
    );
}

/** The schedules of one runner. */
export class Schedules {
  readonly #entries = new Map<string, ScheduleEntry>();
  #closed = false;

  constructor(readonly host: ScheduleHost) {}

  add(graph: Graph, options: ScheduleOptions): ScheduleHandle {
    if (this.#closed) throw new GraphConfigError(`${WHERE} was called after runner.close(). Create a new Runner.`);
    if (!isGraph(graph))
      throw new GraphConfigError(`${WHERE} expects a Graph as its first argument (new Graph([...])).`);
    const spec = checkCronSpec(WHERE, options);
    checkOptions(options);
    if (this.#entries.has(spec.id))
      invalid(
        "id",
        `a schedule '${spec.id}' already runs on this runner.\n  How to fix: pick another id, or delete the old one first (runner.schedules().find((s) => s.id === '${spec.id}')?.delete()).`,
      );
    // A firing's id (and its nested graphs' child ids) must fit the store: fail now, not at the first firing.
    if (this.host.hasStore) checkChildIdRoom(WHERE, spec.firingId(Date.UTC(2000, 0, 1)), graph);
    const entry = new ScheduleEntry(spec, graph, options, this.host, (e) => this.#entries.delete(e.id));
    this.#entries.set(spec.id, entry);
    entry.start();
    return entry;
  }

  list(): readonly ScheduleHandle[] {
    return [...this.#entries.values()];
  }

  /** Stops every timer; queued firings don't start. Runs already started are the runner's to stop. */
  close(): void {
    this.#closed = true;
    for (const entry of this.#entries.values()) entry.close();
    this.#entries.clear();
  }
}
