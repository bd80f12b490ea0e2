// inspect(key) on the memory idempotency store: what the console shows of a record, never its owner token.
import { expect, it } from "vitest";
import { MemoryIdempotencyStore } from "../../src/webhooks.js";

it("shows a record's state, attempt and deadline, and nothing once it is gone", () => {
  let now = 1_000;
  const store = new MemoryIdempotencyStore({ clock: () => now });
  expect(store.inspect("k")).toBeUndefined();
  store.claim("k", "owner-secret", 500);
  expect(store.inspect("k")).toEqual({ key: "k", state: "in_progress", attempt: 1, expiresAt: 1_500 });
  store.release("k", "owner-secret", 10_000);
  expect(store.inspect("k")).toEqual({ key: "k", state: "released", attempt: 1, expiresAt: 11_000 });
  store.claim("k", "owner-2", 500);
  store.complete("k", "owner-2", 60_000);
  const view = store.inspect("k");
  expect(view).toEqual({ key: "k", state: "completed", attempt: 2, expiresAt: 61_000 });
  expect(JSON.stringify(view)).not.toContain("owner");
  now = 61_001;
  expect(store.inspect("k")).toBeUndefined();
});
