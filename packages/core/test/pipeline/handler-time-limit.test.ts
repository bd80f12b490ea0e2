import { describe, expect, it } from "vitest";
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
