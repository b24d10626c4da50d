/**
 * Time as the runner sees it. Everything that waits for a due time (sleeps, timed pauses, delayed starts,
 * schedules) reads `now()` and arms `setTimer` through one `Clock`, so tests can swap in {@link testClock} and run a
 * "4h" wait in milliseconds. Due times are always stored; a timer is only the reminder to look at the store.
 *
 * @module
 */

/**
 * A source of the current time and of one-shot timers.
 *
 * @example
 * ```ts
 * const clock: Clock = systemClock;
 * const cancel = clock.setTimer(clock.now() + 1_000, () => console.log("a second later"));
 * cancel();
 * ```
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  readonly now: () => number;
  /**
   * Calls `fire` once, as soon as `now()` has reached `at` (milliseconds since the epoch); a time in the past fires
   * on the next turn of the event loop. Returns a function that cancels the timer (a no-op once fired).
   */
  readonly setTimer: (at: number, fire: () => void) => () => void;
}

// setTimeout's delay is a signed 32-bit number of milliseconds; longer waits are chained.
const MAX_TIMEOUT_MS = 2_147_483_647;

/**
 * The wall clock: `Date.now()` and `setTimeout`. Timers are `unref`'d: a pending due time never keeps a process
 * alive on its own (the due time is in the store; a restarted process re-arms it).
 */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(at, fire) {
    let handle: ReturnType<typeof setTimeout> | undefined;
    let cancelled = false;
    const arm = (): void => {
      const wait = Math.min(Math.max(0, at - Date.now()), MAX_TIMEOUT_MS);
      handle = setTimeout(() => {
        if (cancelled) return;
        if (Date.now() < at) arm();
        else fire();
      }, wait);
      handle.unref?.();
    };
    arm();
    return () => {
      cancelled = true;
      if (handle !== undefined) clearTimeout(handle);
    };
  },
};

/**
 * A {@link Clock} that only moves when told to: for tests of sleeps, timeouts and schedules.
 *
 * @example
 * ```ts
 * const clock = testClock(new Date("2026-01-01T00:00:00Z"));
 * let fired = 0;
 * clock.setTimer(clock.now() + 4 * 3_600_000, () => fired++);
 * await clock.advance(4 * 3_600_000); // fires the timer
 * // fired === 1
 * ```
 */
export interface TestClock extends Clock {
  /**
   * Moves time forward by `ms`, firing due timers in due-time order and giving the work each one starts a few turns
   * of the event loop. Work that waits on I/O (a PostgreSQL write) may still be running: await its result.
   */
  readonly advance: (ms: number) => Promise<void>;
  /** Moves time to `to` (never backwards), like {@link TestClock.advance}. */
  readonly set: (to: number | Date) => Promise<void>;
  /** How many timers are armed and not yet fired or cancelled. */
  readonly pending: () => number;
}

interface ArmedTimer {
  readonly at: number;
  readonly seq: number;
  readonly fire: () => void;
}

/** Lets promise chains and I/O callbacks started by fired timers run before `advance` returns. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * A manual clock starting at `start` (default: the current wall time).
 *
 * @example
 * ```ts
 * const clock = testClock(0);
 * await clock.set(60_000);
 * // clock.now() === 60_000
 * ```
 */
export function testClock(start: number | Date = Date.now()): TestClock {
  let current = typeof start === "number" ? start : start.getTime();
  let seq = 0;
  const armed = new Set<ArmedTimer>();

  const nextDue = (until: number): ArmedTimer | undefined => {
    let best: ArmedTimer | undefined;
    for (const timer of armed) {
      if (timer.at > until) continue;
      if (best === undefined || timer.at < best.at || (timer.at === best.at && timer.seq < best.seq)) best = timer;
    }
    return best;
  };

  const moveTo = async (target: number): Promise<void> => {
    if (!Number.isFinite(target)) throw new RangeError(`testClock: cannot move to ${target}`);
    await settle();
    for (;;) {
      const timer = nextDue(target);
      if (timer === undefined) break;
      armed.delete(timer);
      current = Math.max(current, timer.at);
      timer.fire();
      await settle();
    }
    current = Math.max(current, target);
    await settle();
  };

  return {
    now: () => current,
    setTimer(at, fire) {
      const timer: ArmedTimer = { at: Math.max(at, current), seq: seq++, fire };
      armed.add(timer);
      // A timer already due fires on the next turn, as with the system clock.
      if (timer.at <= current) {
        setImmediate(() => {
          if (armed.delete(timer)) fire();
        });
      }
      return () => {
        armed.delete(timer);
      };
    },
    advance: (ms) => moveTo(current + ms),
    set: (to) => moveTo(typeof to === "number" ? to : to.getTime()),
    pending: () => armed.size,
  };
}
