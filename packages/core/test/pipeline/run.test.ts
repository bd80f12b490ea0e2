import { describe, expect, it } from "vitest";
import type { WebhookContext } from "../../src/webhooks/context.js";
import { runHandlers } from "../../src/webhooks/pipeline/run.js";
import { eagerForeignPromise, lazyThenable, otherRealmPromise } from "../support/thenables.js";

const context = {} as WebhookContext;

describe("run stage", () => {
  it("runs synchronous handlers in order and stays synchronous", () => {
    const order: number[] = [];
    const result = runHandlers([() => order.push(1), () => order.push(2)], {}, context);
    expect(result).toBeUndefined();
    expect(order).toEqual([1, 2]);
  });

  it("propagates a synchronous throw and runs no later handler", () => {
    const later: number[] = [];
    expect(() =>
      runHandlers(
        [
          () => {
            throw new Error("boom");
          },
          () => later.push(1),
        ],
        {},
        context,
      ),
    ).toThrow("boom");
    expect(later).toEqual([]);
  });

  it("hands back the last handler's own promise, and chains only the ones before it", async () => {
    const order: string[] = [];
    const last = Promise.resolve().then(() => order.push("last"));
    expect(runHandlers([() => last], {}, context)).toBe(last);
    const first = new Promise<void>((resolve) => setTimeout(resolve, 5)).then(() => order.push("first"));
    const chained = runHandlers([() => first, () => order.push("after")], {}, context);
    expect(chained).not.toBe(first);
    await chained;
    expect(order).toEqual(["last", "first", "after"]);
  });

  it("starts a lazy thenable and waits for it before the next handler", async () => {
    const order: string[] = [];
    const { thenable, calls } = lazyThenable(async () => {
      await new Promise((resolve) => setTimeout(resolve, 10));
      order.push("lazy work done");
    });
    const result = runHandlers([() => thenable, () => order.push("next")], {}, context);
    expect(calls.started).toBe(true);
    await result;
    expect(order).toEqual(["lazy work done", "next"]);
    expect(calls.then).toBe(1);
  });

  it("rejects with a non-native promise's late failure and with another realm's rejection", async () => {
    await expect(
      runHandlers([() => eagerForeignPromise(10, { error: new Error("late") })], {}, context),
    ).rejects.toThrow("late");
    await expect(runHandlers([() => otherRealmPromise(5, { error: "realm" })], {}, context)).rejects.toThrow("realm");
  });

  it("waits for a promise of another realm that resolves later", async () => {
    let done = false;
    const result = runHandlers(
      [() => otherRealmPromise(30, { value: 1 }).then(() => (done = true)), () => expect(done).toBe(true)],
      {},
      context,
    );
    expect(done).toBe(false);
    await result;
    expect(done).toBe(true);
  });
});
