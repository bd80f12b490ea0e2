// Property tests: no random request reaches a handler or gets a 2xx without valid authentication, and near-misses
// of a valid delivery (one byte or one signature digit changed, a header dropped) are refused.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { WebhookHttpRequest } from "../src/webhooks/contract.js";
import { callbackKeyVerifier, createWebhookReceiver, tokenVerifier, type WebhookSource } from "../src/webhooks.js";
import { ipAllowlist } from "../src/webhooks-ip-allowlist.js";
import { hmacHex, orderStatus, paymentCallback, qrisSuccess } from "./support/webhook-requests.js";

const TOKEN = "prop-token-Qm7x2Lr9Vw4k";
const KEY = "prop-callback-key-8Jd3nZ";
const quiet = { warn: () => {}, error: () => {} };

function receivers() {
  const calls = { count: 0 };
  const count = () => {
    calls.count++;
  };
  const qris = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: TOKEN, in: "query" })],
    logger: quiet,
  });
  const payment = createWebhookReceiver({
    source: "payment",
    verify: [callbackKeyVerifier({ secrets: KEY })],
    logger: quiet,
  });
  const orders = createWebhookReceiver({
    source: "orders",
    verify: [tokenVerifier({ secrets: TOKEN, in: "path" }), ipAllowlist({ allow: ["203.0.113.0/24"], trustProxy: 1 })],
    logger: quiet,
  });
  for (const receiver of [qris, payment, orders]) receiver.onAny(count);
  orders.onOrderStatus("Dikirim", count);
  return {
    calls,
    bySource: { qris, payment, orders } as Record<WebhookSource, ReturnType<typeof createWebhookReceiver>>,
  };
}

const validBodies = fc.constantFrom(
  JSON.stringify(qrisSuccess()),
  JSON.stringify(paymentCallback()),
  JSON.stringify(orderStatus()),
);
const bodyArbitrary = fc.oneof(
  validBodies,
  fc.json(),
  fc.string({ unit: "binary" }),
  fc.uint8Array({ maxLength: 300 }),
  fc.jsonValue().map((value) => JSON.stringify({ ...qrisSuccess(), data: value })),
);
const headerValue = fc.oneof(
  fc.string({ maxLength: 80 }),
  fc.string({ unit: fc.constantFrom(..."0123456789abcdef"), minLength: 64, maxLength: 64 }),
  fc.base64String(),
);
const headersArbitrary = fc.record(
  {
    "content-type": fc.constantFrom("application/json", "application/json; charset=utf-8", "text/plain", ""),
    "x-callback-api-key": headerValue,
    "x-forwarded-for": fc.oneof(fc.ipV4(), fc.ipV6(), fc.string()),
    token: fc.string(),
    authorization: fc.string(),
  },
  { requiredKeys: [] },
);
const urlArbitrary = fc.oneof(
  fc.webPath(),
  fc.webUrl({ withQueryParameters: true }),
  fc.string().map((token) => `/webhooks/orders/${encodeURIComponent(token)}?token=${encodeURIComponent(token)}`),
  fc.constantFrom(`/webhooks?token=${TOKEN.slice(1)}`, `/webhooks/${TOKEN}x`, `/webhooks?token=${TOKEN.toLowerCase()}`),
);
const requestArbitrary: fc.Arbitrary<WebhookHttpRequest> = fc.record({
  method: fc.oneof(fc.constantFrom("POST", "PUT", "GET"), fc.string({ maxLength: 8 })),
  url: urlArbitrary,
  headers: headersArbitrary,
  rawBody: bodyArbitrary,
  remoteAddress: fc.oneof(fc.ipV4(), fc.constant("203.0.113.9"), fc.ipV6()),
});

describe("property: no valid authentication, no 2xx and no handler call", () => {
  it.each<WebhookSource>(["qris", "payment", "orders"])("%s", async (source) => {
    const { calls, bySource } = receivers();
    await fc.assert(
      fc.asyncProperty(requestArbitrary, async (request) => {
        const response = await bySource[source].handle(request);
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(JSON.parse(response.body).success).toBe(false);
        expect(calls.count).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});

describe("property: near-misses of a valid payment callback are refused", () => {
  const text = JSON.stringify(paymentCallback());
  const signature = hmacHex(KEY, text);

  it("one body byte changed", async () => {
    const { calls, bySource } = receivers();
    await fc.assert(
      fc.asyncProperty(fc.nat(text.length - 1), fc.integer({ min: 1, max: 255 }), async (index, delta) => {
        const bytes = new TextEncoder().encode(text);
        bytes[index] = ((bytes[index] as number) + delta) % 256;
        const response = await bySource.payment.handle({
          method: "POST",
          url: "/cb",
          headers: { "content-type": "application/json", "x-callback-api-key": signature },
          rawBody: bytes,
        });
        expect(response.status).toBe(401);
        expect(calls.count).toBe(0);
      }),
      { numRuns: 200 },
    );
  });

  it("one signature digit changed", async () => {
    const { calls, bySource } = receivers();
    await fc.assert(
      fc.asyncProperty(fc.nat(signature.length - 1), fc.integer({ min: 1, max: 15 }), async (index, delta) => {
        const digit = ((Number.parseInt(signature[index] as string, 16) + delta) % 16).toString(16);
        const forged = signature.slice(0, index) + digit + signature.slice(index + 1);
        const response = await bySource.payment.handle({
          method: "POST",
          url: "/cb",
          headers: { "content-type": "application/json", "x-callback-api-key": forged },
          rawBody: text,
        });
        expect(response.status).toBe(401);
        expect(calls.count).toBe(0);
      }),
      { numRuns: 200 },
    );
  });
});

describe("property: a correctly signed body is never refused as unauthenticated", () => {
  it("any JSON object body signed with the key gets 200 (handler ran) or 400 (handler did not)", async () => {
    const { calls, bySource } = receivers();
    await fc.assert(
      fc.asyncProperty(fc.object(), async (value) => {
        const text = JSON.stringify(value);
        const before = calls.count;
        const response = await bySource.payment.handle({
          method: "POST",
          url: "/cb",
          headers: { "content-type": "application/json", "x-callback-api-key": hmacHex(KEY, text) },
          rawBody: text,
        });
        expect([200, 400]).toContain(response.status);
        // 200 for a duplicate of an earlier generated body runs nothing; otherwise 200 means the handler ran.
        if (response.status === 400) expect(calls.count).toBe(before);
        else expect(calls.count - before).toBeLessThanOrEqual(1);
      }),
      { numRuns: 200 },
    );
  });
});
