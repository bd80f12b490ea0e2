// Issue 15, item 1: whatever kind of thenable a handler, a verifier or a store returns, the receiver waits for it
// exactly as `await` would before it answers; nothing is acknowledged early, and no rejection goes unhandled.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  createWebhookReceiver,
  type IdempotencyStore,
  MemoryIdempotencyStore,
  type RequestVerifier,
  tokenVerifier,
} from "../src/webhooks.js";
import { eagerForeignPromise, lazyThenable, otherRealmPromise } from "./support/thenables.js";
import { bodyOf, qrisSuccess, webhookRequest } from "./support/webhook-requests.js";

const TOKEN = "thenable-token";
const quiet = { warn: () => {}, error: () => {} };
const delivery = (id = "h-1") =>
  webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess({ qris_history_id: id })) });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let unhandled: unknown[];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled = [];
  process.on("unhandledRejection", onUnhandled);
});
afterEach(async () => {
  await sleep(20);
  process.off("unhandledRejection", onUnhandled);
  expect(unhandled).toEqual([]);
});

function receiver(options: { store?: IdempotencyStore; verify?: RequestVerifier[] } = {}) {
  return createWebhookReceiver({
    source: "qris",
    verify: options.verify ?? [tokenVerifier({ secrets: TOKEN, in: "query" })],
    idempotency: options.store === undefined ? {} : { store: options.store },
    logger: quiet,
  });
}

describe("handlers returning thenables", () => {
  it("starts a lazy thenable (Mongoose Query, knex builder) and answers 200 only after its work", async () => {
    const log: string[] = [];
    const qris = receiver().on("payment.success", () => {
      return lazyThenable(async () => {
        await sleep(20);
        log.push("order marked paid");
      }).thenable;
    });
    const response = await qris.handle(delivery());
    log.push(`answered ${response.status}`);
    expect(log).toEqual(["order marked paid", "answered 200"]);
  });

  it("answers 500 when an eager non-native promise fails later, and a redelivery runs the handler again", async () => {
    let calls = 0;
    const qris = receiver().on("payment.success", () => {
      calls++;
      return calls === 1
        ? eagerForeignPromise(10, { error: new Error("db write failed") })
        : eagerForeignPromise(5, {});
    });
    expect((await qris.handle(delivery())).status).toBe(500);
    const again = await qris.handle(delivery());
    expect(again.status).toBe(200);
    expect(bodyOf(again).message).toBe("Webhook processed");
    expect(calls).toBe(2);
  });

  it("answers 500 for a rejecting promise of another realm, with nothing left unhandled", async () => {
    const qris = receiver().on("payment.success", () => otherRealmPromise(5, { error: "ENOENT" }));
    expect((await qris.handle(delivery())).status).toBe(500);
  });

  it("answers 200 only after a promise of another realm resolved (300 ms later)", async () => {
    let workEndedAt = 0;
    const qris = receiver().on("payment.success", () =>
      otherRealmPromise(300, { value: 1 }).then(() => {
        workEndedAt = performance.now();
      }),
    );
    const response = await qris.handle(delivery());
    const answeredAt = performance.now();
    expect(response.status).toBe(200);
    expect(workEndedAt).toBeGreaterThan(0);
    expect(answeredAt).toBeGreaterThanOrEqual(workEndedAt);
  });
});

describe("verifiers returning thenables", () => {
  const verifier = (verify: RequestVerifier["verify"]): RequestVerifier => ({
    kind: "request",
    name: "custom",
    verify,
  });

  it("accepts a verdict of another realm and refuses one that says no", async () => {
    const yes = receiver({ verify: [verifier(() => otherRealmPromise(5, { value: { ok: true as const } }))] });
    yes.on("payment.success", () => {});
    expect((await yes.handle(delivery())).status).toBe(200);
    const no = receiver({
      verify: [verifier(() => lazyThenable(async () => ({ ok: false as const, reason: "nope" })).thenable)],
    });
    let ran = false;
    no.on("payment.success", () => {
      ran = true;
    });
    const refused = await no.handle(delivery());
    expect(refused.status).toBe(401);
    expect(bodyOf(refused).message).toMatch(/nope/);
    expect(ran).toBe(false);
  });

  it("never answers 2xx when a verifier's promise of another realm rejects", async () => {
    let ran = false;
    const qris = receiver({ verify: [verifier(() => otherRealmPromise(5, { error: "verifier down" }))] });
    qris.on("payment.success", () => {
      ran = true;
    });
    expect((await qris.handle(delivery())).status).toBe(500);
    expect(ran).toBe(false);
  });
});

describe("stores returning thenables", () => {
  /** A memory store behind lazy thenables: nothing happens unless the receiver calls then. */
  function lazyStore(): IdempotencyStore {
    const memory = new MemoryIdempotencyStore();
    return {
      claim: (k, o, l) => lazyThenable(async () => memory.claim(k, o, l)).thenable as never,
      complete: (k, o, r) => lazyThenable(async () => memory.complete(k, o, r)).thenable as never,
      release: (k, o, r) => lazyThenable(async () => memory.release(k, o, r)).thenable as never,
    };
  }

  it("claims and completes through lazy thenables, so a redelivery is a duplicate", async () => {
    let calls = 0;
    const qris = receiver({ store: lazyStore() }).on("payment.success", () => {
      calls++;
    });
    expect((await qris.handle(delivery())).status).toBe(200);
    const duplicate = await qris.handle(delivery());
    expect(bodyOf(duplicate).message).toMatch(/Duplicate of an event already processed/);
    expect(calls).toBe(1);
  });

  it("answers 503 and runs nothing when a claim of another realm rejects", async () => {
    const memory = new MemoryIdempotencyStore();
    const store: IdempotencyStore = {
      claim: () => otherRealmPromise(5, { error: "store down" }) as never,
      complete: (k, o, r) => memory.complete(k, o, r),
      release: (k, o, r) => memory.release(k, o, r),
    };
    let ran = false;
    const qris = receiver({ store }).on("payment.success", () => {
      ran = true;
    });
    expect((await qris.handle(delivery())).status).toBe(503);
    expect(ran).toBe(false);
  });

  it("waits for a completion of another realm before answering", async () => {
    const memory = new MemoryIdempotencyStore();
    let recorded = false;
    const store: IdempotencyStore = {
      claim: (k, o, l) => memory.claim(k, o, l),
      complete: (k, o, r) =>
        otherRealmPromise(50, { value: true }).then(() => {
          recorded = memory.complete(k, o, r);
          return recorded;
        }),
      release: (k, o, r) => memory.release(k, o, r),
    };
    const qris = receiver({ store }).on("payment.success", () => {});
    expect((await qris.handle(delivery())).status).toBe(200);
    expect(recorded).toBe(true);
  });
});
