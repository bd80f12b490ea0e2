import { afterEach, describe, expect, it, vi } from "vitest";
import { settleWithin } from "../../src/timer-delay.js";
import { WebhookProcessingError } from "../../src/webhooks/errors.js";
import {
  handlerTimeoutError,
  TIMED_OUT,
  withinHandlerTimeLimit,
} from "../../src/webhooks/pipeline/handler-time-limit.js";

describe("withinHandlerTimeLimit", () => {
  it("resolves with the handlers' value, or rejects with their error, when they end in time", async () => {
    await expect(withinHandlerTimeLimit(Promise.resolve("done"), 50)).resolves.toBe("done");
    await expect(withinHandlerTimeLimit(Promise.reject(new Error("failed")), 50)).rejects.toThrow("failed");
  });

  it("resolves with TIMED_OUT at the limit and leaves the handlers' promise to settle on its own", async () => {
    let finish!: () => void;
    const running = new Promise<void>((resolve) => (finish = resolve));
    const started = performance.now();
    await expect(withinHandlerTimeLimit(running, 30)).resolves.toBe(TIMED_OUT);
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    finish();
    await expect(running).resolves.toBeUndefined();
  });

  it("treats a limit beyond what a timer can wait (a lease of 30 days) as that longest wait, not as none", async () => {
    const done = new Promise((resolve) => setTimeout(resolve, 20, "done"));
    await expect(withinHandlerTimeLimit(done, 30 * 24 * 60 * 60 * 1000)).resolves.toBe("done");
  });

  it("makes a typed 500 error naming the limit", () => {
    const error = handlerTimeoutError(1_500);
    expect(error).toBeInstanceOf(WebhookProcessingError);
    expect(error).toMatchObject({ code: "webhook_handler_timeout", status: 500 });
    expect(error.message).toMatch(/1500 ms/);
  });
});

describe("settleWithin (the direct path's handler time limit)", () => {
  const calls = () => {
    const made: string[] = [];
    const noted = (what: string) => {
      made.push(what);
      return what.split(":")[0] as string;
    };
    return {
      made,
      ended: () => noted("ended"),
      failed: (error: unknown) => noted(`failed: ${(error as Error).message}`),
      timedOut: () => noted("timedOut"),
    };
  };

  it("answers with ended() or failed(error) when the handlers settle in time, and never times out after", async () => {
    const ok = calls();
    await expect(settleWithin(Promise.resolve(), 30, ok.ended, ok.failed, ok.timedOut)).resolves.toBe("ended");
    const bad = calls();
    const failing = Promise.reject(new Error("boom"));
    await expect(settleWithin(failing, 30, bad.ended, bad.failed, bad.timedOut)).resolves.toBe("failed");
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(ok.made).toEqual(["ended"]);
    expect(bad.made).toEqual(["failed: boom"]);
  });

  it("answers with timedOut() at the limit, and the handlers' late end calls nothing more", async () => {
    let finish!: () => void;
    const running = new Promise<void>((resolve) => (finish = resolve));
    const late = calls();
    const started = performance.now();
    await expect(settleWithin(running, 30, late.ended, late.failed, late.timedOut)).resolves.toBe("timedOut");
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
    finish();
    await running;
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(late.made).toEqual(["timedOut"]);
  });

  it("rejects with what an answer throws, and adopts an answer that is a promise", async () => {
    const thrown = settleWithin(
      Promise.resolve(),
      30,
      () => {
        throw new Error("telemetry hook failed");
      },
      () => "failed",
      () => "timedOut",
    );
    await expect(thrown).rejects.toThrow("telemetry hook failed");
    const adopted = settleWithin(Promise.resolve(), 30, () => Promise.resolve("later"), String, String);
    await expect(adopted).resolves.toBe("later");
  });
});

describe("settleWithin's timer, armed only for what is still running at the end of the turn", () => {
  const answers = {
    ended: () => "ended",
    failed: () => "failed",
    timedOut: () => "timedOut",
  } as const;
  const run = (pending: Promise<unknown>, ms: number) =>
    settleWithin(pending, ms, answers.ended, answers.failed, answers.timedOut);
  // The timers set for limits of at most `ms` (the test runner may set timers of its own, longer ones).
  const limitTimers = (spy: { mock: { calls: unknown[][] } }, ms: number) =>
    spy.mock.calls.filter(([, delay]) => typeof delay === "number" && delay <= ms);

  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllGlobals();
  });

  it("sets no timer at all for handlers that end within the turn they started in", async () => {
    const timers = vi.spyOn(globalThis, "setTimeout");
    const outcomes = await Promise.all(Array.from({ length: 50 }, () => run(Promise.resolve(), 1_000)));
    await new Promise((resolve) => setImmediate(resolve));
    expect(outcomes).toEqual(Array(50).fill("ended"));
    expect(limitTimers(timers, 1_000)).toEqual([]);
  });

  it("arms one timer each for those still running, for the rest of the limit counted from their start", async () => {
    const timers = vi.spyOn(globalThis, "setTimeout");
    const started = performance.now();
    const hanging = run(new Promise(() => {}), 80);
    // The turn the limit started in goes on for 50 ms: that time counts against the limit.
    while (performance.now() - started < 50) {}
    await expect(hanging).resolves.toBe("timedOut");
    const elapsed = performance.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(75);
    expect(elapsed).toBeLessThan(80 + 45);
    // One timer, for what was left of the limit when the turn ended.
    expect(limitTimers(timers, 80).map(([, delay]) => delay)).toEqual([expect.any(Number)]);
    expect(limitTimers(timers, 80)[0]?.[1]).toBeLessThanOrEqual(31);
  });

  it("keeps at most 1,024 limits waiting in one turn and arms the rest at once, all still exact", async () => {
    const timers = vi.spyOn(globalThis, "setTimeout");
    const ended: Promise<unknown>[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    // A batch applied without yielding: 1,500 limits started in one turn, all ending a moment later.
    for (let i = 0; i < 1_500; i++) ended.push(run(gate, 1_000));
    const hanging = run(new Promise(() => {}), 40);
    // Armed at once, in this turn: the 477 beyond the first 1,024.
    expect(limitTimers(timers, 1_000)).toHaveLength(477);
    release();
    expect(new Set(await Promise.all(ended))).toEqual(new Set(["ended"]));
    await expect(hanging).resolves.toBe("timedOut");
  });

  it("falls back to a timer turn where the runtime has no setImmediate (workers, browsers)", async () => {
    vi.stubGlobal("setImmediate", undefined);
    const hanging = run(new Promise(() => {}), 30);
    await expect(run(Promise.resolve(), 30)).resolves.toBe("ended");
    await expect(hanging).resolves.toBe("timedOut");
  });

  it("follows fake timers: advancing them past the limit times a hanging handler out", async () => {
    vi.useFakeTimers();
    try {
      let outcome: string | undefined;
      void run(new Promise(() => {}), 5_000).then((value) => (outcome = value as string));
      await vi.advanceTimersByTimeAsync(4_000);
      expect(outcome).toBeUndefined();
      await vi.advanceTimersByTimeAsync(1_100);
      expect(outcome).toBe("timedOut");
    } finally {
      vi.useRealTimers();
    }
  });
});
