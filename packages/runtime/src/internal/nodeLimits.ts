/**
 * A node's own limits (`node({ concurrency, rateLimit })`) around its call. Each limit is a permit taken before the
 * call: first from the runner's in-process permits (so one runner never queues more than the limit against the
 * store), then, with a checkpointer, from the store's permit slots (shared by every runner on the store). A stop
 * cuts any wait short; permits taken are given back whatever happens (rate permits expire on their own).
 */
import type { FunctionNode } from "@graph/core";
import * as Deferred from "effect/Deferred";
import * as Effect from "effect/Effect";
import type { EngineHost } from "./host.js";
import { type Execution, type Outcome, stopped } from "./outcome.js";

type Release = () => void;

/** One permit to take: `now` takes it at once when it is free (undefined: it is not), `wait` waits for it. */
interface Gate {
  readonly now?: () => Release | undefined;
  readonly wait: Effect.Effect<Release, unknown>;
}
const STOPPED = Symbol("stopped");

/**
 * A rate permit is held a little longer than its window: the limit is on calls, and a call starts a moment after its
 * permit is granted (later on a loaded machine). 10% of the window, at most 100 ms.
 */
const rateHoldMs = (per: number): number => per + Math.min(100, per * 0.1);

interface Limit {
  readonly kind: "concurrency" | "rate";
  /** `<kind>\0<scope>\0<key>`: what shares the permits. */
  readonly id: string;
  readonly key: string;
  readonly limit: number;
  /** Rate limits: how long a permit is held from the call's start. */
  readonly holdMs: number | undefined;
}

/** The node's limits for this call; throws what a key function throws. */
function limitsOf(n: FunctionNode, inputs: Readonly<Record<string, unknown>>): Limit[] {
  const limits: Limit[] = [];
  const concurrency = n.concurrency;
  if (concurrency !== undefined) {
    const plain = typeof concurrency === "number";
    const key = plain ? "" : String(concurrency.key(inputs));
    const scope = plain ? n.name : (concurrency.scope ?? n.name);
    const limit = plain ? concurrency : concurrency.limit;
    limits.push({ kind: "concurrency", id: `concurrency\u0000${scope}\u0000${key}`, key, limit, holdMs: undefined });
  }
  const rate = n.rateLimit;
  if (rate !== undefined) {
    const key = rate.key === undefined ? "" : String(rate.key(inputs));
    const id = `rate\u0000${rate.scope ?? n.name}\u0000${key}`;
    limits.push({ kind: "rate", id, key, limit: rate.limit, holdMs: rateHoldMs(rate.per as number) });
  }
  return limits;
}

/** Runs `run` (a function node's call) under the node's limits. */
export function withNodeLimits<E>(
  host: EngineHost,
  ex: Execution,
  n: FunctionNode,
  run: Effect.Effect<Outcome, E>,
): Effect.Effect<Outcome, E> {
  return Effect.suspend(() => {
    let limits: Limit[];
    try {
      limits = limitsOf(n, ex.inputs);
    } catch (error) {
      host.event("NodeError", { nodeName: n.name, error, attempt: 1, willRetry: false }, ex.spanId);
      return Effect.succeed<Outcome>({ kind: "failed", error, reported: true });
    }
    const control = host.config.control;
    if (control.stopRequested && !host.config.completeOnStop) return Effect.succeed(stopped());
    const stop = control.stopRequested ? undefined : Deferred.await(control.stopped);
    const gates = limits.flatMap((limit) => permitsFor(host, ex, n, limit));
    return Effect.uninterruptibleMask((restore) => {
      const releases: Release[] = [];
      const releaseAll = Effect.sync(() => {
        for (const release of releases.splice(0).reverse()) release();
      });
      const take = (gate: Gate): Effect.Effect<boolean, unknown> => {
        // A permit free right now is taken without a race (the common case: a limit that is not reached).
        const now = gate.now?.();
        if (now !== undefined) {
          releases.push(now);
          return Effect.succeed(true);
        }
        return restore(stop === undefined ? gate.wait : Effect.raceFirst(gate.wait, Effect.as(stop, STOPPED))).pipe(
          Effect.map((got) => {
            if (got === STOPPED) return false;
            releases.push(got);
            return true;
          }),
        );
      };
      const takeAll = Effect.reduce(gates, true, (ok, gate) => (ok ? take(gate) : Effect.succeed(false)));
      return takeAll.pipe(
        Effect.flatMap((ok) => (ok ? restore(run) : Effect.succeed(stopped()))),
        Effect.ensuring(releaseAll),
        Effect.catchAll((error) => {
          host.event("NodeError", { nodeName: n.name, error, attempt: 1, willRetry: false }, ex.spanId);
          return Effect.succeed<Outcome>({ kind: "failed", error, reported: true });
        }),
      );
    });
  });
}

/** The permits one limit takes: the runner's own, then the store's when the runner has a checkpointer. */
function permitsFor(host: EngineHost, ex: Execution, n: FunctionNode, limit: Limit): Gate[] {
  const shared = host.config.shared;
  const waiting = (where: "runner" | "store", active?: number, queued?: number) =>
    host.event(
      "NodeWaiting",
      {
        nodeName: n.name,
        limitKind: limit.kind,
        where,
        key: limit.key,
        limit: limit.limit,
        ...(active === undefined ? {} : { active }),
        ...(queued === undefined ? {} : { queued }),
      },
      ex.spanId,
    );
  const local = shared.nodePermits;
  const held = (): Release => {
    if (limit.holdMs === undefined) return () => local.release(limit.id);
    const timer = setTimeout(() => local.release(limit.id), limit.holdMs);
    timer.unref?.();
    return () => {};
  };
  const runnerPermit: Gate = {
    now: () => (local.tryAcquire(limit.id, limit.limit) ? held() : undefined),
    wait: local
      .acquire(limit.id, limit.limit, (active, queued) => waiting("runner", active, queued))
      .pipe(Effect.map(held)),
  };
  const store = shared.storePermits;
  if (store === undefined) return [runnerPermit];
  const storePermit: Gate = {
    wait: Effect.tryPromise({
      try: (signal) => store.acquire(limit.id, limit.limit, limit.holdMs, signal, () => waiting("store")),
      catch: (error) => error,
    }).pipe(
      Effect.map(
        (permit): Release =>
          () =>
            void store.release(permit).catch(() => {
              // The lease expires on its own; a failed release only delays the next holder by the TTL.
            }),
      ),
    ),
  };
  return [runnerPermit, storePermit];
}
