import { describe, expect, it } from "vitest";
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
