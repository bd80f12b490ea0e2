// Issue 15, item 2 at the receiver: a store that fails for less than the lease never lets an event run twice,
// and a store that hangs never holds a delivery past its operation timeout.
import { describe, expect, it } from "vitest";
import {
  createWebhookReceiver,
  type IdempotencyStore,
  MemoryIdempotencyStore,
  tokenVerifier,
} from "../src/webhooks.js";
import { bodyOf, qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const TOKEN = "hiccup-token";
const quiet = { warn: () => {}, error: () => {} };
const delivery = () => webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess()) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A memory store (on a clock the test moves) that is "down" while `down` is true: every call rejects. */
function storeWithOutage() {
  let now = 0;
  const memory = new MemoryIdempotencyStore({ clock: () => now });
  const state = { down: false, completeCalls: 0 };
  const guard = <T>(operation: () => T): Promise<T> =>
    state.down ? Promise.reject(new Error("ECONNREFUSED")) : Promise.resolve(operation());
  const store: IdempotencyStore = {
    claim: (k, o, l) => guard(() => memory.claim(k, o, l)),
    complete: (k, o, r) => {
      state.completeCalls++;
      return guard(() => memory.complete(k, o, r));
    },
    release: (k, o, r) => guard(() => memory.release(k, o, r)),
  };
  return { store, state, advance: (ms: number) => (now += ms) };
}

describe("a store outage shorter than the lease", () => {
  it("records the completion once the store is back, so a redelivery after the lease is a duplicate", async () => {
    const { store, state, advance } = storeWithOutage();
    let effects = 0;
    const qris = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      idempotency: { store, leaseMs: 2_000, completionRetry: { minDelayMs: 10, maxDelayMs: 50 } },
      logger: quiet,
    }).on("payment.success", () => {
      effects++;
      state.down = true; // the store goes away while the handler runs...
      setTimeout(() => (state.down = false), 300); // ...and comes back 300 ms later
    });
    const first = await qris.handle(delivery());
    expect(first.status).toBe(200);
    expect(state.completeCalls).toBeGreaterThan(1);
    advance(5_000); // the lease is long over
    const redelivery = await qris.handle(delivery());
    expect(bodyOf(redelivery).message).toMatch(/Duplicate of an event already processed/);
    expect(effects).toBe(1);
  });

  it("answers 503 to a delivery that arrives during the outage, and runs it once afterwards", async () => {
    const { store, state } = storeWithOutage();
    let effects = 0;
    const qris = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      idempotency: { store },
      logger: quiet,
    }).on("payment.success", () => {
      effects++;
    });
    state.down = true;
    expect((await qris.handle(delivery())).status).toBe(503);
    state.down = false;
    expect((await qris.handle(delivery())).status).toBe(200);
    expect(effects).toBe(1);
  });
});

describe("a store that hangs", () => {
  it("answers 503 once the claim's operation timeout passes, running nothing", async () => {
    let ran = false;
    const hanging: IdempotencyStore = {
      claim: () => new Promise(() => {}),
      complete: () => true,
      release: () => true,
    };
    const qris = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      idempotency: { store: hanging, operationTimeoutMs: 50 },
      logger: quiet,
    }).on("payment.success", () => {
      ran = true;
    });
    const started = performance.now();
    expect((await qris.handle(delivery())).status).toBe(503);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(ran).toBe(false);
  });

  it("answers 500 within the timeout when only the release of a failed handler hangs", async () => {
    const memory = new MemoryIdempotencyStore();
    const store: IdempotencyStore = {
      claim: (k, o, l) => memory.claim(k, o, l),
      complete: (k, o, r) => memory.complete(k, o, r),
      release: () => new Promise(() => {}),
    };
    const qris = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      idempotency: { store, operationTimeoutMs: 50 },
      logger: quiet,
    }).on("payment.success", async () => {
      await sleep(1);
      throw new Error("handler failed");
    });
    expect((await qris.handle(delivery())).status).toBe(500);
  });

  it("refuses a non-positive operation timeout or retry delay when built", () => {
    const build = (idempotency: object) => () =>
      createWebhookReceiver({ source: "qris", verify: [tokenVerifier({ secrets: TOKEN, in: "query" })], idempotency });
    expect(build({ operationTimeoutMs: 0 })).toThrow(/operationTimeoutMs must be a positive number/);
    expect(build({ completionRetry: { minDelayMs: -1 } })).toThrow(/minDelayMs must be a positive number/);
  });
});

describe("time limits longer than a timer can wait", () => {
  it("treat an operationTimeoutMs of 30 days as the longest timer, not as an immediate timeout (503)", async () => {
    const memory = new MemoryIdempotencyStore();
    const slow = <T>(answer: () => T) => sleep(10).then(answer);
    const store: IdempotencyStore = {
      claim: (k, o, l) => slow(() => memory.claim(k, o, l)),
      complete: (k, o, r) => slow(() => memory.complete(k, o, r)),
      release: (k, o, r) => slow(() => memory.release(k, o, r)),
    };
    const month = 30 * 24 * 60 * 60 * 1000;
    const qris = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
      idempotency: { store, operationTimeoutMs: month, leaseMs: month },
      logger: quiet,
    }).on("payment.success", async () => sleep(10));
    expect((await qris.handle(delivery())).status).toBe(200);
  });
});
