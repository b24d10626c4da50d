// The shape of one table row and of results.json, and how targets are judged.

/** The unit a row's three numbers are in. */
type Unit = "µs/node" | "µs/run" | "µs/item" | "ms/run" | "ms" | "MB" | "B/step" | "×" | "runs/s";

/** One contender's number in a row. `estimated` marks an extrapolation, never a measurement. */
export interface Cell {
  readonly value: number;
  readonly estimated?: boolean;
  /** Raw per-repetition numbers (same unit) so results.json shows the spread. */
  readonly samples?: readonly number[];
  /** The median in CPU time of this process (same unit), for timings: robust to other load on the machine. */
  readonly cpu?: number;
  readonly note?: string;
}

/** A timing cell from a measurement in ms per repetition; `scale` converts ms per repetition to the row's unit. */
export function timeCell(
  m: { medianMs: number; samplesMs: readonly number[]; cpuMedianMs: number },
  scale: number,
): Cell {
  return { value: m.medianMs * scale, samples: m.samplesMs.map((s) => s * scale), cpu: m.cpuMedianMs * scale };
}

/** A contender that was not run, and why. */
export interface Skipped {
  readonly skipped: string;
}

/** The other engines some rows also run: Mastra workflows and DBOS Transact. */
export type Peer = "mastra" | "dbos";

export const PEER_NAMES: Readonly<Record<Peer, string>> = { mastra: "Mastra", dbos: "DBOS" };

/**
 * A performance target (the list is in tools/bench/README.md).
 * - `overheadMax`: (ours − floor) ≤ threshold, in the row's unit.
 * - `floorRatioMax`: ours / floor ≤ threshold.
 * - `floorRatioMin`: ours / floor ≥ threshold (rows where more is better, e.g. runs/s).
 * - `speedupMin`: LangGraph.js / ours ≥ threshold.
 * - `peerSpeedupMin`: the `peer`'s number / ours ≥ threshold.
 * - `max`: ours ≤ threshold, in the row's unit.
 */
export interface TargetSpec {
  readonly kind: "overheadMax" | "floorRatioMax" | "floorRatioMin" | "speedupMin" | "peerSpeedupMin" | "max";
  readonly threshold: number;
  /** For `peerSpeedupMin`: whose number ours is compared with. */
  readonly peer?: Peer;
  /** Overrides the generated description (e.g. "≤ 1 KB/step"). */
  readonly description?: string;
}

interface TargetResult extends TargetSpec {
  readonly description: string;
  readonly actual: number | null;
  /** null when the number it needs was not measured. */
  readonly met: boolean | null;
  /** true when `actual` rests on an extrapolated number. */
  readonly estimated: boolean;
}

export interface Row {
  /** Stable id, e.g. "chain-1000". */
  readonly id: string;
  /** The `--only` name of the workload it belongs to. */
  readonly workload: string;
  readonly label: string;
  readonly unit: Unit;
  readonly ours: Cell | Skipped;
  readonly floor: Cell | Skipped;
  readonly langgraph: Cell | Skipped;
  /** Mastra / DBOS, on the rows that run them. */
  readonly peers?: Readonly<Partial<Record<Peer, Cell | Skipped>>>;
  readonly targets: readonly TargetResult[];
  readonly notes: readonly string[];
  readonly details?: Readonly<Record<string, unknown>>;
  /** When the row was measured (rows kept from an earlier run by a partial `--only` run keep their own time). */
  readonly measuredAt?: string;
}

export const isCell = (value: Cell | Skipped | undefined): value is Cell => value !== undefined && "value" in value;

function judge(spec: TargetSpec, row: Pick<Row, "ours" | "floor" | "langgraph" | "peers" | "unit">): TargetResult {
  const { ours, floor, langgraph, unit } = row;
  switch (spec.kind) {
    case "floorRatioMax": {
      const actual = isCell(ours) && isCell(floor) ? ours.value / floor.value : null;
      return {
        ...spec,
        description: spec.description ?? `≤ ${spec.threshold}× the floor`,
        actual,
        met: actual === null ? null : actual <= spec.threshold,
        estimated: false,
      };
    }
    case "floorRatioMin": {
      const actual = isCell(ours) && isCell(floor) ? ours.value / floor.value : null;
      return {
        ...spec,
        description: spec.description ?? `≥ ${spec.threshold}× the floor`,
        actual,
        met: actual === null ? null : actual >= spec.threshold,
        estimated: false,
      };
    }
    case "peerSpeedupMin": {
      const peer = spec.peer ?? "mastra";
      const other = row.peers?.[peer];
      const actual = isCell(ours) && isCell(other) ? other.value / ours.value : null;
      return {
        ...spec,
        description: spec.description ?? `≥ ${spec.threshold}× ${PEER_NAMES[peer]}`,
        actual,
        met: actual === null ? null : actual >= spec.threshold,
        estimated: false,
      };
    }
    case "overheadMax": {
      const actual = isCell(ours) && isCell(floor) ? ours.value - floor.value : null;
      return {
        ...spec,
        description: spec.description ?? `overhead ≤ ${spec.threshold} ${unit}`,
        actual,
        met: actual === null ? null : actual <= spec.threshold,
        estimated: false,
      };
    }
    case "speedupMin": {
      const actual = isCell(ours) && isCell(langgraph) ? langgraph.value / ours.value : null;
      return {
        ...spec,
        description: spec.description ?? `≥ ${spec.threshold}× LangGraph`,
        actual,
        met: actual === null ? null : actual >= spec.threshold,
        estimated: isCell(langgraph) && langgraph.estimated === true,
      };
    }
    case "max": {
      const actual = isCell(ours) ? ours.value : null;
      return {
        ...spec,
        description: spec.description ?? `≤ ${spec.threshold} ${unit}`,
        actual,
        met: actual === null ? null : actual <= spec.threshold,
        estimated: false,
      };
    }
  }
}

/** Builds a row and judges its targets. */
export function row(
  input: Omit<Row, "targets" | "notes"> & {
    readonly targets?: readonly TargetSpec[];
    readonly notes?: readonly string[];
  },
): Row {
  const targets = (input.targets ?? []).map((t) => judge(t, input));
  return { ...input, targets, notes: input.notes ?? [] };
}
