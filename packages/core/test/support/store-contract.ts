// The state-machine contract every idempotency store keeps (memory, Redis, Postgres, MySQL): run inside a describe
// block, with a factory giving a fresh store (or a fresh key space) per test.
import { expect, it } from "vitest";
import type { IdempotencyStore } from "../../src/webhooks.js";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Registers the contract's tests for stores made by `makeStore`. */
export function storeContract(makeStore: () => IdempotencyStore): void {
  it("claims once, reports in-progress, then completed", async () => {
    const store = makeStore();
    expect(await store.claim("e1", "owner-a", 10_000)).toEqual({ state: "claimed", attempt: 1 });
    expect(await store.claim("e1", "owner-b", 10_000)).toEqual({ state: "in_progress" });
    expect(await store.complete("e1", "owner-a", 60_000)).toBe(true);
    expect(await store.claim("e1", "owner-c", 10_000)).toEqual({ state: "completed" });
  });

  it("lets only the owner release or complete, and counts released attempts", async () => {
    const store = makeStore();
    await store.claim("e2", "owner-a", 10_000);
    expect(await store.release("e2", "intruder", 60_000)).toBe(false);
    expect(await store.complete("e2", "intruder", 60_000)).toBe(false);
    expect(await store.claim("e2", "owner-b", 10_000)).toEqual({ state: "in_progress" });
    expect(await store.release("e2", "owner-a", 60_000)).toBe(true);
    expect(await store.release("e2", "owner-a", 60_000)).toBe(false);
    expect(await store.claim("e2", "owner-b", 10_000)).toEqual({ state: "claimed", attempt: 2 });
    expect(await store.release("e2", "owner-b", 60_000)).toBe(true);
    expect(await store.claim("e2", "owner-c", 10_000)).toEqual({ state: "claimed", attempt: 3 });
    expect(await store.complete("e2", "owner-c", 60_000)).toBe(true);
    expect(await store.release("e2", "owner-c", 60_000)).toBe(false);
    expect(await store.claim("e2", "owner-d", 10_000)).toEqual({ state: "completed" });
  });

  it("frees an expired lease, and still records a late completion if nobody claimed it", async () => {
    const store = makeStore();
    await store.claim("e3", "owner-a", 30);
    await sleep(60);
    expect((await store.claim("e3", "owner-b", 30)).state).toBe("claimed");
    await sleep(60);
    expect(await store.complete("e3", "owner-a", 60_000)).toBe(true);
    expect(await store.claim("e3", "owner-c", 30)).toEqual({ state: "completed" });
  });

  it("refuses a completion after another delivery took over the lease", async () => {
    const store = makeStore();
    await store.claim("e4", "owner-a", 30);
    await sleep(60);
    await store.claim("e4", "owner-b", 10_000);
    expect(await store.complete("e4", "owner-a", 60_000)).toBe(false);
    expect(await store.complete("e4", "owner-b", 60_000)).toBe(true);
  });

  it("forgets a completion after the retention time", async () => {
    const store = makeStore();
    await store.claim("e5", "owner-a", 10_000);
    await store.complete("e5", "owner-a", 40);
    await sleep(80);
    expect(await store.claim("e5", "owner-b", 10_000)).toEqual({ state: "claimed", attempt: 1 });
  });

  it("grants exactly one of many concurrent claims", async () => {
    const store = makeStore();
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => store.claim("e6", `owner-${i}`, 10_000)));
    expect(results.filter((result) => result.state === "claimed")).toHaveLength(1);
  });
}
