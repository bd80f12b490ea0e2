// KeyedBatcher: how the Postgres store gathers concurrent claims and completions into one statement.
import { describe, expect, it } from "vitest";
import { BatchTimeoutError, KeyedBatcher } from "../src/idempotency/keyed-batcher.js";

type Call = { key: string; n: number };

/** A batcher whose batches wait until released by the test; records every batch it ran. */
function gated(options?: { maxInFlight?: number; maxSize?: number; timeoutMs?: number }) {
  const batches: Call[][] = [];
  const gates: (() => void)[] = [];
  let failNext: Error | undefined;
  const batcher = new KeyedBatcher<Call, { key: string; n: number }>(async (calls) => {
    batches.push(calls);
    await new Promise<void>((resolve) => gates.push(resolve));
    if (failNext) {
      const error = failNext;
      failNext = undefined;
      throw error;
    }
    return new Map(calls.filter((call) => call.n >= 0).map((call) => [call.key, { key: call.key, n: call.n }]));
  }, options);
  const openNext = async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
    gates.shift()?.();
  };
  return { batcher, batches, openNext, failNextWith: (error: Error) => (failNext = error) };
}

describe("KeyedBatcher", () => {
  it("sends a lone call at once, and gathers the calls made while batches are out into one", async () => {
    const { batcher, batches, openNext } = gated({ maxInFlight: 1 });
    const first = batcher.submit({ key: "a", n: 1 });
    expect(batches).toEqual([[{ key: "a", n: 1 }]]);
    const rest = ["b", "c", "d"].map((key, i) => batcher.submit({ key, n: i + 2 }));
    expect(batches).toHaveLength(1); // waiting for the one in flight
    await openNext();
    expect(await first).toEqual({ key: "a", n: 1 });
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(batches[1]?.map((call) => call.key)).toEqual(["b", "c", "d"]);
    await openNext();
    expect(await Promise.all(rest)).toEqual([
      { key: "b", n: 2 },
      { key: "c", n: 3 },
      { key: "d", n: 4 },
    ]);
  });

  it("runs up to maxInFlight batches at once and caps a batch at maxSize", async () => {
    const { batcher, batches, openNext } = gated({ maxInFlight: 2, maxSize: 2 });
    const calls = ["a", "b", "c", "d", "e", "f"].map((key, n) => batcher.submit({ key, n }));
    expect(batches.map((batch) => batch.map((call) => call.key))).toEqual([["a"], ["b"]]);
    for (let i = 0; i < 6; i++) await openNext();
    await Promise.all(calls);
    expect(batches.map((batch) => batch.map((call) => call.key))).toEqual([["a"], ["b"], ["c", "d"], ["e", "f"]]);
  });

  it("never puts one key twice in a batch: the second call goes with the next one, in order", async () => {
    const { batcher, batches, openNext } = gated({ maxInFlight: 1 });
    const first = batcher.submit({ key: "x", n: 0 });
    const again = [
      batcher.submit({ key: "x", n: 1 }),
      batcher.submit({ key: "y", n: 2 }),
      batcher.submit({ key: "x", n: 3 }),
    ];
    for (let i = 0; i < 4; i++) await openNext();
    await Promise.all([first, ...again]);
    expect(batches.map((batch) => batch.map((call) => `${call.key}${call.n}`))).toEqual([["x0"], ["x1", "y2"], ["x3"]]);
  });

  it("answers undefined for a key without a row", async () => {
    const { batcher, openNext } = gated();
    const call = batcher.submit({ key: "none", n: -1 });
    await openNext();
    expect(await call).toBeUndefined();
  });

  it("fails every call of a failing batch with its error, and goes on with the next batch", async () => {
    const { batcher, openNext, failNextWith } = gated({ maxInFlight: 1 });
    const boom = new Error("database went away");
    failNextWith(boom);
    const failed = [batcher.submit({ key: "a", n: 1 })];
    const later = batcher.submit({ key: "b", n: 2 });
    const alsoFailed = batcher.submit({ key: "c", n: 3 });
    await openNext();
    await expect(failed[0]).rejects.toBe(boom);
    await openNext();
    expect(await later).toEqual({ key: "b", n: 2 });
    expect(await alsoFailed).toEqual({ key: "c", n: 3 });
  });

  it("fails the calls of a batch whose runner throws synchronously", async () => {
    const batcher = new KeyedBatcher<Call, unknown>(() => {
      throw new Error("bad statement");
    });
    await expect(batcher.submit({ key: "a", n: 1 })).rejects.toThrow("bad statement");
    await expect(batcher.submit({ key: "b", n: 1 })).rejects.toThrow("bad statement"); // not stuck
  });

  it("refuses limits that are not positive integers", () => {
    expect(() => new KeyedBatcher(async () => new Map(), { maxInFlight: 0 })).toThrow(/maxInFlight/);
    expect(() => new KeyedBatcher(async () => new Map(), { maxSize: 1.5 })).toThrow(/maxSize/);
  });
});

describe("KeyedBatcher: a batch that does not come back", () => {
  it("fails its calls after timeoutMs and frees its place, so later calls go out; its late answer is dropped", async () => {
    const { batcher, batches, openNext } = gated({ maxInFlight: 1, timeoutMs: 30 });
    const stuck = batcher.submit({ key: "a", n: 1 });
    const waiting = batcher.submit({ key: "b", n: 2 });
    expect(batches).toHaveLength(1);
    await expect(stuck).rejects.toBeInstanceOf(BatchTimeoutError);
    // The place it held went to the call waiting behind it.
    expect(batches.map((batch) => batch.map((call) => call.key))).toEqual([["a"], ["b"]]);
    await openNext(); // the stuck batch answers late: nothing happens
    await openNext();
    expect(await waiting).toEqual({ key: "b", n: 2 });
  });

  it("refuses a timeoutMs that is not a positive integer", () => {
    expect(() => new KeyedBatcher(async () => new Map(), { timeoutMs: 0 })).toThrow(/timeoutMs/);
  });
});
