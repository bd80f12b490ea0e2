import { describe, expect, expectTypeOf, it, vi } from "vitest";
import { cryptoProvider as webCrypto } from "../src/crypto/web.js";
import {
  type ClaimResult,
  callbackKeyVerifier,
  createWebhookReceiver,
  type EventVerifier,
  hmacVerifier,
  type IdempotencyStore,
  MemoryIdempotencyStore,
  type QrisPaymentSuccessEvent,
  type RequestVerifier,
  timestampWindow,
  tokenVerifier,
  VERIFIED,
  verificationFailed,
  WebhookConfigurationError,
  type WebhookContext,
  WebhookProcessingError,
  type WebhookReceiver,
} from "../src/webhooks.js";
import { ipAllowlist } from "../src/webhooks-ip-allowlist.js";
import {
  bodyOf,
  hmacBase64,
  hmacHex,
  orderStatus,
  paymentCallback,
  qrisSuccess,
  webhookRequest,
} from "./support/webhook-requests.js";

const TOKEN = "receiver-test-token-1";
const quiet = { warn: () => {}, error: () => {} };
const qrisRequest = (body: unknown = qrisSuccess(), url = `/hook?token=${TOKEN}`) =>
  webhookRequest({ url, rawBody: JSON.stringify(body) });

function qrisReceiver(extra: Partial<Parameters<typeof createWebhookReceiver<"qris">>[0]> = {}) {
  return createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    logger: quiet,
    ...extra,
  });
}

describe("createWebhookReceiver configuration", () => {
  it("refuses to start without a verifier", () => {
    expect(() => createWebhookReceiver({ source: "orders" })).toThrow(WebhookConfigurationError);
    expect(() => createWebhookReceiver({ source: "orders", verify: [] })).toThrow(/insecureNoVerification: true/);
  });

  it("starts with insecureNoVerification and warns exactly once", async () => {
    const warn = vi.fn();
    const receiver = createWebhookReceiver({ source: "orders", insecureNoVerification: true, logger: { warn } });
    receiver.on("order.status", () => {});
    for (let i = 0; i < 3; i++) {
      const response = await receiver.handle(
        webhookRequest({ rawBody: JSON.stringify(orderStatus({ cnote: `c${i}` })) }),
      );
      expect(response.status).toBe(200);
    }
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toMatch(/unverified/);
  });

  it("names a secret with whitespace without printing it", () => {
    const secret = "super-secret-value\n";
    let error: unknown;
    try {
      tokenVerifier({ secrets: ["ok-secret", secret], in: "query" });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(WebhookConfigurationError);
    expect((error as Error).message).toMatch(/secret #2 contains whitespace/);
    expect((error as Error).message).not.toContain("super-secret-value");
    expect(() => callbackKeyVerifier({ secrets: " key" })).toThrow(/whitespace/);
    expect(() => hmacVerifier({ secrets: "a b", header: "X-Sig" })).toThrow(/whitespace/);
  });

  it("refuses empty secrets, bad CIDRs and misplaced verifiers", () => {
    expect(() => tokenVerifier({ secrets: [], in: "query" })).toThrow(/non-empty/);
    expect(() => tokenVerifier({ secrets: [""], in: "header" })).toThrow(/empty/);
    expect(() => tokenVerifier({ secrets: "x", in: "body" as "query" })).toThrow(/"in"/);
    expect(() => ipAllowlist({ allow: ["10.0.0.0/33"] })).toThrow(/not an IP address or CIDR/);
    expect(() => ipAllowlist({ allow: [] })).toThrow(/at least one/);
    expect(() => ipAllowlist({ allow: ["10.0.0.1"], trustProxy: -1 })).toThrow(/trustProxy/);
    expect(() => hmacVerifier({ secrets: "k", header: "X", algorithm: "MD5" as "SHA-1" })).toThrow(/algorithm/);
    expect(() => hmacVerifier({ secrets: "zz", header: "X", secretEncoding: "hex" })).toThrow(/not valid hex/);
    expect(() => createWebhookReceiver({ source: "orders", verify: [timestampWindow()] })).toThrow(
      /cannot verify "orders"/,
    );
    expect(() => createWebhookReceiver({ source: "nope" as "qris", insecureNoVerification: true })).toThrow(/source/);
    expect(() => createWebhookReceiver({ source: "qris", verify: [{} as RequestVerifier] })).toThrow(/verifier/);
    expect(() => qrisReceiver({ maxBodyBytes: 0 })).toThrow(/maxBodyBytes/);
  });

  it("refuses handlers for events a source never delivers", () => {
    const orders = createWebhookReceiver({
      source: "orders",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    });
    expect(() => orders.on("payment.success" as "order.status", () => {})).toThrow(/onOrderStatus/);
    expect(() => qrisReceiver().onOrderStatus("Dikirim", () => {})).toThrow(/orders/);
    expect(() => orders.onOrderStatus("  ", () => {})).toThrow(/non-empty/);
    expect(() => orders.on("order.status", "nope" as never)).toThrow(/function/);
  });

  it("counts handlers and exposes its source", () => {
    const receiver = qrisReceiver();
    expect(receiver.source).toBe("qris");
    expect(receiver.handlerCount).toBe(0);
    receiver
      .on("payment.success", () => {})
      .on("payment.expired", () => {})
      .onAny(() => {});
    receiver.onError(() => {});
    expect(receiver.handlerCount).toBe(3);
    // Adapters hold receivers of any source.
    const generic: WebhookReceiver = receiver;
    generic.onAny(() => {});
    expect(generic.handlerCount).toBe(4);
  });
});

describe("dispatch", () => {
  it("narrows event types per event name", () => {
    const receiver = qrisReceiver();
    receiver.on("payment.success", (event) => {
      expectTypeOf(event).toEqualTypeOf<QrisPaymentSuccessEvent>();
      expectTypeOf(event.data.amount).toEqualTypeOf<number>();
      expectTypeOf(event.data.qris_history_id).toEqualTypeOf<string | number>();
    });
    receiver.on("payment.expired", (event) => {
      expectTypeOf(event.event).toEqualTypeOf<"payment.expired">();
    });
    receiver.on("payment.refunded", (event) => {
      expectTypeOf(event.event).toEqualTypeOf<string>();
    });
  });

  it("runs the handlers of the event name, then onAny, with a context", async () => {
    const calls: string[] = [];
    let seen: WebhookContext | undefined;
    const receiver = qrisReceiver({ clock: () => Date.UTC(2026, 2, 1, 3) });
    receiver.on("payment.expired", () => calls.push("expired"));
    receiver.onAny(() => calls.push("any"));
    receiver.on("payment.success", (_event, ctx) => {
      calls.push("success");
      seen = ctx;
    });
    const request = webhookRequest({
      url: `/hook?token=${TOKEN}`,
      headers: { "content-type": "application/json", "x-request-id": "r-1" },
      rawBody: JSON.stringify(qrisSuccess({ qris_history_id: "h-42" })),
      remoteAddress: "127.0.0.1",
    });
    expect((await receiver.handle(request)).status).toBe(200);
    expect(calls).toEqual(["success", "any"]);
    expect(seen?.source).toBe("qris");
    expect(seen?.idempotencyKey).toBe("qris:payment.success:h-42");
    expect(seen?.isRetry).toBe(false);
    expect(seen?.attempt).toBe(1);
    expect(seen?.receivedAt.toISOString()).toBe("2026-03-01T03:00:00.000Z");
    expect(seen?.headers.get("X-Request-Id")).toBe("r-1");
    expect(new TextDecoder().decode(seen?.rawBody)).toBe(request.rawBody);
    expect(seen?.remoteAddress).toBe("127.0.0.1");
  });

  it("acknowledges an event no handler listens to, without claiming it", async () => {
    const store = new MemoryIdempotencyStore();
    const receiver = qrisReceiver({ idempotency: { store } });
    receiver.on("payment.expired", () => {});
    const response = await receiver.handle(qrisRequest());
    expect(response.status).toBe(200);
    expect(bodyOf(response).message).toMatch(/No handler registered for event payment.success/);
    expect(store.size).toBe(0);
  });

  it("answers 500 while no handler at all is registered, so the provider retries", async () => {
    const response = await qrisReceiver().handle(qrisRequest());
    expect(response.status).toBe(500);
    expect(bodyOf(response).message).toMatch(/No webhook handler/);
  });

  it("runs per-status order handlers case-insensitively, and order.status handlers for all", async () => {
    const seen: string[] = [];
    const receiver = createWebhookReceiver({ source: "orders", insecureNoVerification: true, logger: quiet });
    receiver.onOrderStatus("dikirim", (event) => seen.push(`shipped:${event.status}`));
    receiver.on("order.status", (event) => seen.push(`all:${event.status}`));
    for (const status of ["Dikirim", "Selesai"]) {
      await receiver.handle(webhookRequest({ rawBody: JSON.stringify(orderStatus({ status })) }));
    }
    expect(seen).toEqual(["all:Dikirim", "shipped:Dikirim", "all:Selesai"]);
  });
});

describe("exactly-once state machine in the receiver", () => {
  it("releases the claim when a handler throws, reports it, and marks the retry", async () => {
    const contexts: WebhookContext[] = [];
    const errors: unknown[] = [];
    let fail = true;
    const receiver = qrisReceiver();
    receiver.on("payment.success", (_event, ctx) => {
      contexts.push(ctx);
      if (fail) throw new Error("database down");
    });
    receiver.onError((error, ctx) => {
      errors.push(error);
      expect(ctx.stage).toBe("handler");
      expect(ctx.status).toBe(500);
      expect(ctx.context?.idempotencyKey).toMatch(/^qris:payment.success:/);
    });
    const first = await receiver.handle(qrisRequest());
    expect(first.status).toBe(500);
    expect(first.body).not.toContain("database down");
    expect(errors).toHaveLength(1);
    fail = false;
    expect((await receiver.handle(qrisRequest())).status).toBe(200);
    expect((await receiver.handle(qrisRequest())).status).toBe(200);
    expect(contexts.map((ctx) => [ctx.attempt, ctx.isRetry])).toEqual([
      [1, false],
      [2, true],
    ]);
  });

  it("answers 409 to a duplicate that arrives while the first is still running", async () => {
    let finish!: () => void;
    const running = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const receiver = qrisReceiver();
    let calls = 0;
    receiver.on("payment.success", async () => {
      calls++;
      await running;
    });
    const first = receiver.handle(qrisRequest());
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = await receiver.handle(qrisRequest());
    expect(second.status).toBe(409);
    expect(bodyOf(second).success).toBe(false);
    finish();
    expect((await first).status).toBe(200);
    expect(calls).toBe(1);
  });

  it("reruns every handler of a delivery whose later handler failed", async () => {
    const log: string[] = [];
    let failures = 1;
    const receiver = qrisReceiver();
    receiver.on("payment.success", () => log.push("first"));
    receiver.onAny(() => {
      log.push("second");
      if (failures-- > 0) throw new Error("flaky");
    });
    expect((await receiver.handle(qrisRequest())).status).toBe(500);
    expect((await receiver.handle(qrisRequest())).status).toBe(200);
    expect(log).toEqual(["first", "second", "first", "second"]);
  });

  it("fails closed with 503 when the store is unreachable", async () => {
    const unreachable: IdempotencyStore = {
      claim: () => Promise.reject(new Error("ECONNREFUSED")),
      complete: () => true,
      release: () => true,
    };
    const handler = vi.fn();
    const onError = vi.fn();
    const receiver = qrisReceiver({ idempotency: { store: unreachable } })
      .on("payment.success", handler)
      .onError(onError);
    const response = await receiver.handle(qrisRequest());
    expect(response.status).toBe(503);
    expect(handler).not.toHaveBeenCalled();
    expect(onError.mock.calls[0]?.[0]).toBeInstanceOf(WebhookProcessingError);
    expect(onError.mock.calls[0]?.[1]).toMatchObject({ stage: "idempotency", status: 503 });
  });

  it("answers 200 when only the completion record failed after the handler finished", async () => {
    const memory = new MemoryIdempotencyStore();
    const store: IdempotencyStore = {
      claim: (key, owner, lease) => memory.claim(key, owner, lease),
      complete: () => Promise.reject(new Error("timeout")),
      release: (key, owner, retention) => memory.release(key, owner, retention),
    };
    const onError = vi.fn();
    // A short lease: the receiver keeps trying to record the completion for as long as the lease lasts.
    const receiver = qrisReceiver({ idempotency: { store, leaseMs: 150 } })
      .on("payment.success", () => {})
      .onError(onError);
    expect((await receiver.handle(qrisRequest())).status).toBe(200);
    expect(onError.mock.calls[0]?.[1]).toMatchObject({ stage: "idempotency", status: 200 });
  });

  it("uses a custom key and hashes over-long keys", async () => {
    const keys: string[] = [];
    const store: IdempotencyStore = {
      claim(key): ClaimResult {
        keys.push(key);
        return { state: "claimed" };
      },
      complete: () => true,
      release: () => true,
    };
    const receiver = qrisReceiver({ idempotency: { store, key: (event) => `mine:${event.event}` } });
    let isRetry: boolean | undefined = false;
    receiver.onAny((_event, ctx) => {
      isRetry = ctx.isRetry;
    });
    await receiver.handle(qrisRequest());
    await receiver.handle(qrisRequest(qrisSuccess({ qris_history_id: "h".repeat(300) })));
    expect(keys[0]).toBe("mine:payment.success");
    expect(isRetry).toBeUndefined();
    const orders = createWebhookReceiver({
      source: "orders",
      insecureNoVerification: true,
      logger: quiet,
      idempotency: { store },
    });
    orders.onAny(() => {});
    await orders.handle(webhookRequest({ rawBody: JSON.stringify(orderStatus({ order_no: "o".repeat(500) })) }));
    expect(keys[2]).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("deduplicates payment callbacks without an id on the SHA-256 of the body", async () => {
    const KEY = "cb-key-hash-test";
    const receiver = createWebhookReceiver({ source: "payment", verify: [callbackKeyVerifier({ secrets: KEY })] });
    const keys: string[] = [];
    receiver.on("payment.callback", (_event, ctx) => {
      keys.push(ctx.idempotencyKey);
    });
    const text = JSON.stringify({ order_id: "O-1" });
    await receiver.handle(webhookRequest({ rawBody: text, headers: { "x-callback-api-key": hmacHex(KEY, text) } }));
    expect(keys[0]).toMatch(/^payment:sha256:[0-9a-f]{64}$/);
  });

  it("lets an expired lease be claimed again", async () => {
    const store = new MemoryIdempotencyStore();
    expect(store.claim("k", "a", 20)).toEqual({ state: "claimed", attempt: 1 });
    expect(store.claim("k", "b", 20)).toEqual({ state: "in_progress" });
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(store.claim("k", "b", 20).state).toBe("claimed");
  });
});

describe("verifiers inside the receiver", () => {
  it("requires every verifier to pass", async () => {
    const receiver = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" }), ipAllowlist({ allow: ["127.0.0.1"] })],
      logger: quiet,
    }).onAny(() => {});
    const base = { url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess()) };
    expect((await receiver.handle(webhookRequest({ ...base, remoteAddress: "127.0.0.1" }))).status).toBe(200);
    expect((await receiver.handle(webhookRequest({ ...base, remoteAddress: "127.0.0.2" }))).status).toBe(401);
    expect((await receiver.handle(webhookRequest({ ...base, url: "/hook", remoteAddress: "127.0.0.1" }))).status).toBe(
      401,
    );
  });

  it("treats a custom verifier that returns nothing as a failure", async () => {
    const sloppy = { kind: "request", name: "sloppy", verify: () => undefined } as unknown as RequestVerifier;
    const handler = vi.fn();
    const receiver = createWebhookReceiver({ source: "qris", verify: [sloppy] }).onAny(handler);
    const response = await receiver.handle(qrisRequest());
    expect(response.status).toBe(401);
    expect(handler).not.toHaveBeenCalled();
  });

  it("checks the QR envelope timestamp only when asked, in both directions", async () => {
    const now = Date.parse("2026-03-01T03:00:00Z");
    const at = (iso: string) => qrisSuccess({ qris_history_id: iso }, { timestamp: iso });
    const receiver = qrisReceiver({
      clock: () => now,
      verify: [tokenVerifier({ secrets: TOKEN, in: "query" }), timestampWindow({ toleranceMs: 25 * 60_000 })],
    }).onAny(() => {});
    expect((await receiver.handle(qrisRequest(at("2026-03-01T02:39:00Z")))).status).toBe(200); // a late retry
    expect((await receiver.handle(qrisRequest(at("2026-03-01 09:50:00")))).status).toBe(200); // UTC+7 text
    expect((await receiver.handle(qrisRequest(at("2026-03-01T10:20:00+07:00")))).status).toBe(200);
    const stale = await receiver.handle(qrisRequest(at("2026-03-01T02:30:00Z")));
    expect(stale.status).toBe(401);
    expect(bodyOf(stale).message).toMatch(/outside the accepted window of 1500 s/);
    expect((await receiver.handle(qrisRequest(at("2026-03-01T03:30:00Z")))).status).toBe(401);
    expect((await receiver.handle(qrisRequest(at("yesterday")))).status).toBe(401);
    const noWindow = qrisReceiver({ clock: () => now }).onAny(() => {});
    expect((await noWindow.handle(qrisRequest(at("2020-01-01T00:00:00Z")))).status).toBe(200);
  });

  it("verifies a configurable HMAC (SHA-512, base64, prefix, hex-encoded secret) with both crypto providers", async () => {
    const secretHex = "0b".repeat(20);
    const text = JSON.stringify(paymentCallback());
    const { createHmac } = await import("node:crypto");
    const digest = createHmac("sha512", Buffer.from(secretHex, "hex")).update(text).digest("base64");
    for (const crypto of [undefined, webCrypto]) {
      const receiver = createWebhookReceiver({
        source: "payment",
        ...(crypto === undefined ? {} : { crypto }),
        verify: [
          hmacVerifier({
            secrets: ["00ff", secretHex],
            secretEncoding: "hex",
            header: "X-Signature",
            algorithm: "SHA-512",
            encoding: "base64",
            prefix: "v1=",
          }),
        ],
      }).onAny(() => {});
      const send = (signature: string, id: string) =>
        receiver.handle(webhookRequest({ rawBody: text.replace("ORD-77", id), headers: { "x-signature": signature } }));
      expect((await send(`V1=${digest}`, "ORD-77")).status).toBe(200);
      expect((await send(digest, "ORD-77")).status).toBe(401);
      expect(bodyOf(await send(`v1=${hmacBase64("x", text)}`, "ORD-77")).message).toMatch(
        /right length|does not match/,
      );
    }
  });

  it("supports the plain callback-key mode", async () => {
    const receiver = createWebhookReceiver({
      source: "payment",
      verify: [callbackKeyVerifier({ secrets: ["cb-plain-1"], mode: "plain" })],
    }).onAny(() => {});
    const send = (key?: string) =>
      receiver.handle(
        webhookRequest({
          rawBody: JSON.stringify(paymentCallback({ payment_id: `P-${key}` })),
          headers: key === undefined ? {} : { "x-callback-api-key": key },
        }),
      );
    expect((await send("cb-plain-1")).status).toBe(200);
    expect((await send("cb-plain-2")).status).toBe(401);
    expect(bodyOf(await send()).message).toMatch(/X-Callback-Api-Key is missing/);
    expect(() => callbackKeyVerifier({ secrets: "k", mode: "other" as "plain" })).toThrow(/mode/);
  });

  it("reads a token from a header", async () => {
    const receiver = createWebhookReceiver({
      source: "orders",
      verify: [tokenVerifier({ secrets: TOKEN, in: "header", name: "X-Webhook-Token" })],
    }).onAny(() => {});
    const send = (headers: Record<string, string>) =>
      receiver.handle(webhookRequest({ method: "PUT", rawBody: JSON.stringify(orderStatus()), headers }));
    expect(bodyOf(await send({})).message).toMatch(/header X-Webhook-Token is missing/);
    expect((await send({ "x-webhook-token": TOKEN })).status).toBe(200);
  });
});

describe("transport", () => {
  it("lets the content type be required", async () => {
    const receiver = qrisReceiver({ allowMissingContentType: false }).onAny(() => {});
    const response = await receiver.handle(webhookRequest({ url: `/hook?token=${TOKEN}`, headers: {}, rawBody: "{}" }));
    expect(response.status).toBe(415);
  });

  it("accepts configured methods only", async () => {
    const receiver = qrisReceiver({ methods: ["put"] }).onAny(() => {});
    expect((await receiver.handle(qrisRequest())).headers.allow).toBe("PUT");
    const put = webhookRequest({ method: "PUT", url: `/hook?token=${TOKEN}`, rawBody: JSON.stringify(qrisSuccess()) });
    expect((await receiver.handle(put)).status).toBe(200);
    expect(() => qrisReceiver({ methods: [] })).toThrow(/methods/);
  });

  it("accepts duplicate keys when told to", async () => {
    const receiver = qrisReceiver({ rejectDuplicateKeys: false }).onAny(() => {});
    const text = JSON.stringify(qrisSuccess()).replace('"data":{', '"data":{"fee":1,"fee":2,');
    expect((await receiver.handle(webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: text }))).status).toBe(200);
  });

  it("honours maxBodyBytes for string bodies counted in UTF-8 bytes", async () => {
    const receiver = qrisReceiver({ maxBodyBytes: 1000 }).onAny(() => {});
    const fits = JSON.stringify(qrisSuccess({ note: "é".repeat(150) }));
    const over = JSON.stringify(qrisSuccess({ note: "é".repeat(400) }));
    expect(over.length).toBeLessThan(1000);
    expect((await receiver.handle(webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: fits }))).status).toBe(200);
    expect((await receiver.handle(webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: over }))).status).toBe(413);
  });

  it("accepts ArrayBuffer and typed-array views as raw bodies", async () => {
    const receiver = qrisReceiver().onAny(() => {});
    const bytes = new TextEncoder().encode(JSON.stringify(qrisSuccess()));
    const view = new DataView(bytes.buffer.slice(0));
    expect((await receiver.handle(webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: bytes.buffer }))).status).toBe(
      200,
    );
    expect((await receiver.handle(webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: view }))).status).toBe(200);
  });

  it("accepts Web Headers in handle()", async () => {
    const receiver = qrisReceiver().onAny(() => {});
    const headers = new Headers({ "Content-Type": "application/json" });
    const response = await receiver.handle({
      method: "POST",
      url: `/hook?token=${TOKEN}`,
      headers,
      rawBody: JSON.stringify(qrisSuccess()),
    });
    expect(response.status).toBe(200);
  });

  it("logs a misconfigured adapter and reports it to onError", async () => {
    const error = vi.fn();
    const onError = vi.fn();
    const receiver = qrisReceiver({ logger: { error } })
      .onAny(() => {})
      .onError(onError);
    const response = await receiver.handle(webhookRequest({ url: `/hook?token=${TOKEN}`, rawBody: qrisSuccess() }));
    expect(response.status).toBe(500);
    expect(error.mock.calls[0]?.[0]).toMatch(/already-parsed object/);
    expect(onError.mock.calls[0]?.[0]).toMatchObject({ code: "webhook_raw_body" });
  });

  it("survives an onError handler that throws", async () => {
    const error = vi.fn();
    const receiver = qrisReceiver({ logger: { error } })
      .onAny(() => {
        throw new Error("boom");
      })
      .onError(() => {
        throw new Error("logger broken");
      });
    expect((await receiver.handle(qrisRequest())).status).toBe(500);
    expect(error.mock.calls.some(([message]) => /onError handler threw/.test(String(message)))).toBe(true);
  });
});

describe("fetch()", () => {
  const url = `https://shop.example/hook?token=${TOKEN}`;

  it("answers a Web Request with a Response", async () => {
    const seen: string[] = [];
    const receiver = qrisReceiver().on("payment.success", (event) => {
      seen.push(String(event.data.qris_history_id));
    });
    const response = await receiver.fetch(
      new Request(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(qrisSuccess()),
      }),
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toMatch(/application\/json/);
    expect(await response.json()).toEqual({ success: true, message: "Webhook processed" });
    expect(seen).toHaveLength(1);
  });

  it("refuses oversize bodies from the declared length or while streaming", async () => {
    const receiver = qrisReceiver({ maxBodyBytes: 100 }).onAny(() => {});
    const declared = await receiver.fetch(
      new Request(url, { method: "POST", headers: { "content-length": "5000" }, body: "x".repeat(5000) }),
    );
    expect(declared.status).toBe(413);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 10; i++) controller.enqueue(new Uint8Array(50));
        controller.close();
      },
    });
    const streamed = await receiver.fetch(
      new Request(url, { method: "POST", body: stream, duplex: "half" } as RequestInit),
    );
    expect(streamed.status).toBe(413);
  });

  it("passes the remote address through and answers 405 with Allow", async () => {
    const receiver = createWebhookReceiver({
      source: "qris",
      verify: [ipAllowlist({ allow: ["192.0.2.0/24"] })],
    }).onAny(() => {});
    // A string body makes Request default to text/plain, which the receiver refuses: say JSON.
    const request = () =>
      new Request(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(qrisSuccess()),
      });
    expect((await receiver.fetch(request(), { remoteAddress: "192.0.2.9" })).status).toBe(200);
    expect((await receiver.fetch(request(), { remoteAddress: "192.0.3.9" })).status).toBe(401);
    const get = await receiver.fetch(new Request(url));
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
  });
});

// The pipeline stays synchronous until a verifier, the store or a handler returns a promise; every step must give
// the same answers whichever way each of them goes.
describe("synchronous and asynchronous steps of the pipeline", () => {
  const passing = (name: string, later = false): RequestVerifier => ({
    kind: "request",
    name,
    verify: () => (later ? Promise.resolve(VERIFIED) : VERIFIED),
  });
  const failing = (name: string, later = false): RequestVerifier => ({
    kind: "request",
    name,
    verify: () => {
      const result = verificationFailed(`${name} said no`);
      return later ? Promise.resolve(result) : result;
    },
  });
  const eventCheck = (ok: boolean, later: boolean): EventVerifier => ({
    kind: "event",
    name: "event-check",
    verify: (event) => {
      const result =
        ok && (event as { event?: string }).event === "payment.success"
          ? VERIFIED
          : verificationFailed("event refused");
      return later ? Promise.resolve(result) : result;
    },
  });

  it.each([
    ["sync pass, sync fail", [passing("a"), failing("b")], 401, "b said no"],
    ["async pass, sync fail", [passing("a", true), failing("b")], 401, "b said no"],
    ["sync pass, async fail", [passing("a"), failing("b", true)], 401, "b said no"],
    ["async fail first", [failing("a", true), failing("b")], 401, "a said no"],
    ["async pass, async pass", [passing("a", true), passing("b", true)], 200, "Webhook processed"],
  ] as const)("request verifiers, %s", async (_name, verify, status, message) => {
    const handler = vi.fn();
    const receiver = createWebhookReceiver({ source: "qris", verify: [...verify], logger: quiet }).onAny(handler);
    const response = await receiver.handle(qrisRequest());
    expect(response.status).toBe(status);
    expect(bodyOf(response).message).toContain(message);
    expect(handler).toHaveBeenCalledTimes(status === 200 ? 1 : 0);
  });

  it.each([
    [true, false, 200],
    [true, true, 200],
    [false, false, 401],
    [false, true, 401],
  ])("an event verifier passing %s, asynchronously %s, answers %i", async (ok, later, status) => {
    const handler = vi.fn();
    const receiver = qrisReceiver({ verify: [passing("a", later), eventCheck(ok, later)] }).onAny(handler);
    expect((await receiver.handle(qrisRequest())).status).toBe(status);
    expect(handler).toHaveBeenCalledTimes(status === 200 ? 1 : 0);
  });

  it("answers 500 when a verifier throws or its promise rejects, and runs no handler", async () => {
    const error = vi.fn();
    const handler = vi.fn();
    const throwing: RequestVerifier = {
      kind: "request",
      name: "throwing",
      verify: () => {
        throw new Error("verifier bug");
      },
    };
    const rejecting: RequestVerifier = {
      kind: "request",
      name: "rejecting",
      verify: () => Promise.reject(new Error("x")),
    };
    for (const verifier of [throwing, rejecting]) {
      const receiver = createWebhookReceiver({ source: "qris", verify: [verifier], logger: { error } }).onAny(handler);
      const response = await receiver.handle(qrisRequest());
      expect(response.status).toBe(500);
      expect(bodyOf(response).message).toBe("Internal error while processing the webhook");
    }
    expect(handler).not.toHaveBeenCalled();
    expect(error).toHaveBeenCalledTimes(2);
  });

  it("runs handlers in order across asynchronous ones, and releases the claim when a later one rejects", async () => {
    const log: string[] = [];
    let rejectOnce = true;
    const onError = vi.fn();
    const receiver = qrisReceiver()
      .on("payment.success", async () => {
        await new Promise((resolve) => setTimeout(resolve, 1));
        log.push("async");
      })
      .onAny(() => {
        log.push("sync");
      })
      .onAny(() => {
        log.push("rejecting");
        return rejectOnce ? Promise.reject(new Error("later")) : Promise.resolve();
      })
      .onError(onError);
    expect((await receiver.handle(qrisRequest())).status).toBe(500);
    expect(onError.mock.calls[0]?.[1]).toMatchObject({ stage: "handler", status: 500 });
    rejectOnce = false;
    const retry = await receiver.handle(qrisRequest());
    expect(retry.status).toBe(200);
    expect(log).toEqual(["async", "sync", "rejecting", "async", "sync", "rejecting"]);
    expect((await receiver.handle(qrisRequest())).status).toBe(200);
    expect(log).toHaveLength(6);
  });

  it("answers 503 when the store throws while claiming, and 200 when it throws while completing", async () => {
    const handler = vi.fn();
    const onError = vi.fn();
    const claimThrows: IdempotencyStore = {
      claim: () => {
        throw new Error("store down");
      },
      complete: () => true,
      release: () => true,
    };
    const completeThrows: IdempotencyStore = {
      claim: () => ({ state: "claimed" }),
      complete: () => {
        throw new Error("store down");
      },
      release: () => true,
    };
    const claiming = qrisReceiver({ idempotency: { store: claimThrows } })
      .onAny(handler)
      .onError(onError);
    expect((await claiming.handle(qrisRequest())).status).toBe(503);
    expect(handler).not.toHaveBeenCalled();
    const completing = qrisReceiver({ idempotency: { store: completeThrows, leaseMs: 150 } })
      .onAny(handler)
      .onError(onError);
    expect((await completing.handle(qrisRequest())).status).toBe(200);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(onError.mock.calls.map(([, ctx]) => [ctx.stage, ctx.status])).toEqual([
      ["idempotency", 503],
      ["idempotency", 200],
    ]);
  });

  it("reads an asynchronous store's answers like a synchronous one's", async () => {
    const memory = new MemoryIdempotencyStore();
    const later: IdempotencyStore = {
      claim: async (key, owner, lease) => memory.claim(key, owner, lease),
      complete: async (key, owner, retention) => memory.complete(key, owner, retention),
      release: async (key, owner, retention) => memory.release(key, owner, retention),
    };
    const warn = vi.fn();
    const handler = vi.fn();
    const receiver = qrisReceiver({ idempotency: { store: later }, logger: { warn } }).onAny(handler);
    expect(bodyOf(await receiver.handle(qrisRequest())).message).toBe("Webhook processed");
    expect(bodyOf(await receiver.handle(qrisRequest())).message).toMatch(/^Duplicate of an event already processed/);
    expect(handler).toHaveBeenCalledTimes(1);
    expect(warn).not.toHaveBeenCalled();
  });
});
