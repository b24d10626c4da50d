import { describe, expect, it } from "vitest";
import { systemClock, testClock } from "../src/index.js";

describe("testClock", () => {
  it("fires due timers in due-time order, once, and only when time reaches them", async () => {
    const clock = testClock(1_000);
    const fired: string[] = [];
    clock.setTimer(1_000 + 300, () => fired.push(`b@${clock.now()}`));
    clock.setTimer(1_000 + 100, () => fired.push(`a@${clock.now()}`));
    const cancel = clock.setTimer(1_000 + 200, () => fired.push("cancelled"));
    cancel();
    expect(clock.pending()).toBe(2);
    await clock.advance(99);
    expect(fired).toEqual([]);
    await clock.advance(500);
    expect(fired).toEqual(["a@1100", "b@1300"]);
    expect(clock.now()).toBe(1_599);
    expect(clock.pending()).toBe(0);
  });

  it("fires a timer armed for the past on the next turn, and a timer armed by a firing timer in the same advance", async () => {
    const clock = testClock(new Date("2026-01-01T00:00:00Z"));
    const fired: number[] = [];
    clock.setTimer(0, () => fired.push(clock.now()));
    await new Promise((resolve) => setImmediate(resolve));
    expect(fired).toEqual([Date.parse("2026-01-01T00:00:00Z")]);
    clock.setTimer(clock.now() + 10, () => clock.setTimer(clock.now() + 10, () => fired.push(clock.now())));
    await clock.set(clock.now() + 25);
    expect(fired[1]).toBe(Date.parse("2026-01-01T00:00:00Z") + 20);
  });

  it("never moves backwards and refuses a non-finite time", async () => {
    const clock = testClock(5_000);
    await clock.set(1_000);
    expect(clock.now()).toBe(5_000);
    await expect(clock.advance(Number.NaN)).rejects.toThrow(/cannot move to NaN/);
  });
});

describe("systemClock", () => {
  it("fires after the due time and can be cancelled", async () => {
    const start = systemClock.now();
    const at = await new Promise<number>((resolve) => systemClock.setTimer(start + 20, () => resolve(Date.now())));
    expect(at).toBeGreaterThanOrEqual(start + 20);
    let fired = false;
    systemClock.setTimer(systemClock.now() + 5, () => {
      fired = true;
    })();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(fired).toBe(false);
  });
});
