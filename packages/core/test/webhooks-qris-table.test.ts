// Table of good and hostile deliveries for the QR payment events receiver (token in the registered URL's query).
import { expect } from "vitest";
import type { WebhookHttpRequest } from "../src/webhooks/contract.js";
import { createWebhookReceiver, tokenVerifier } from "../src/webhooks.js";
import type { DeliveredEvent } from "./support/webhook-requests.js";
import { qrisExpired, qrisSuccess } from "./support/webhook-requests.js";
import { describeWebhookTable, silentLogger, type WebhookTableRow } from "./support/webhook-table.js";

const TOKEN = "qr-token-current-4f9a2c";
const OLD_TOKEN = "qr-token-previous-77b1e0";
const SECRETS = [TOKEN, OLD_TOKEN];

function deliver(body: unknown, overrides: Partial<WebhookHttpRequest> = {}): Partial<WebhookHttpRequest> {
  return {
    url: `/webhooks/qris?token=${TOKEN}`,
    rawBody: typeof body === "string" || body instanceof Uint8Array ? body : JSON.stringify(body),
    ...overrides,
  };
}

const big = qrisSuccess({ note: "x".repeat(70 * 1024) });
const utf8 = (text: string) => new TextEncoder().encode(text);

const rows: WebhookTableRow[] = [
  // Good deliveries.
  { name: "payment.success as the spec writes it", request: deliver(qrisSuccess()), status: 200, calls: 1 },
  { name: "payment.expired as the spec writes it", request: deliver(qrisExpired()), status: 200, calls: 1 },
  {
    name: "history_id alias is copied to qris_history_id",
    request: deliver(qrisSuccess({ qris_history_id: undefined, history_id: "h-1" })),
    status: 200,
    calls: 1,
    check: (events) => expect(events[0]?.data).toMatchObject({ qris_history_id: "h-1", history_id: "h-1" }),
  },
  {
    name: "numeric history id",
    request: deliver(qrisSuccess({ qris_history_id: 90210 })),
    status: 200,
    calls: 1,
    check: (events) => expect(events[0]?.data?.qris_history_id).toBe(90210),
  },
  { name: "numeric qris_id", request: deliver(qrisSuccess({ qris_id: 42 })), status: 200, calls: 1 },
  {
    name: "unknown event name is delivered to onAny",
    request: deliver({ event: "payment.refunded", timestamp: "2026-03-01T03:00:00Z", data: { qris_history_id: "r1" } }),
    status: 200,
    calls: 1,
    check: (events) => expect(events[0]?.event).toBe("payment.refunded"),
  },
  {
    name: "unknown event without data",
    request: deliver({ event: "qris.deactivated", timestamp: "2026-03-01T03:00:00Z" }),
    status: 200,
    calls: 1,
  },
  {
    name: "unknown fields pass through",
    request: deliver(qrisSuccess({ fee: 700, issuer: { name: "Bank X" } }, { delivery_id: "d-1" })),
    status: 200,
    calls: 1,
    check: (events) => expect(events[0]).toMatchObject({ delivery_id: "d-1", data: { fee: 700 } }),
  },
  {
    name: "content type with charset",
    request: deliver(qrisSuccess(), { headers: { "content-type": "application/json; charset=utf-8" } }),
    status: 200,
    calls: 1,
  },
  {
    name: "content type in upper case",
    request: deliver(qrisSuccess(), { headers: { "Content-Type": "APPLICATION/JSON; Charset=UTF-8" } }),
    status: 200,
    calls: 1,
  },
  {
    name: "no content type at all (accepted by default)",
    request: deliver(qrisSuccess(), { headers: {} }),
    status: 200,
    calls: 1,
  },
  {
    name: "a +json media type",
    request: deliver(qrisSuccess(), { headers: { "content-type": "application/vnd.qris+json" } }),
    status: 200,
    calls: 1,
  },
  {
    name: "previous token during a rotation",
    request: deliver(qrisSuccess(), { url: `/webhooks/qris?token=${OLD_TOKEN}` }),
    status: 200,
    calls: 1,
  },
  {
    name: "unicode text fields",
    request: deliver(qrisSuccess({ payment_provider: "Dompet Ünïcødé 🚀 — 支付" })),
    status: 200,
    calls: 1,
    check: (events) => expect(events[0]?.data?.payment_provider).toBe("Dompet Ünïcødé 🚀 — 支付"),
  },
  { name: "body passed as bytes", request: deliver(utf8(JSON.stringify(qrisSuccess()))), status: 200, calls: 1 },
  {
    name: "body with a UTF-8 byte order mark",
    request: deliver(new Uint8Array([0xef, 0xbb, 0xbf, ...utf8(JSON.stringify(qrisSuccess()))])),
    status: 200,
    calls: 1,
  },
  {
    name: "whitespace around the JSON",
    request: deliver(`\n  ${JSON.stringify(qrisSuccess())}  \n`),
    status: 200,
    calls: 1,
  },
  {
    name: "absolute URL",
    request: deliver(qrisSuccess(), { url: `https://shop.example/webhooks/qris?token=${TOKEN}` }),
    status: 200,
    calls: 1,
  },
  { name: "lower-case method", request: deliver(qrisSuccess(), { method: "post" }), status: 200, calls: 1 },
  {
    name: "token among other query parameters",
    request: deliver(qrisSuccess(), { url: `/webhooks/qris?source=qr&token=${TOKEN}&x=1` }),
    status: 200,
    calls: 1,
  },
  {
    name: "provider-local timestamp format",
    request: deliver(qrisSuccess({}, { timestamp: "2026-03-01 10:00:00" })),
    status: 200,
    calls: 1,
  },
  {
    name: "a different event of the same QR code is not a duplicate",
    before: [deliver(qrisSuccess({ qris_history_id: "same" }))],
    request: deliver(qrisExpired({ qris_history_id: "same" })),
    status: 200,
    calls: 2,
  },
  // Replays.
  {
    name: "replay of a processed event is acknowledged without running the handler",
    before: [deliver(qrisSuccess())],
    request: deliver(qrisSuccess()),
    status: 200,
    calls: 1,
    message: /already processed/,
  },
  {
    name: "replay using the history_id alias is the same event",
    before: [deliver(qrisSuccess({ qris_history_id: "alias-1" }))],
    request: deliver(qrisSuccess({ qris_history_id: undefined, history_id: "alias-1" })),
    status: 200,
    calls: 1,
  },
  {
    name: "replay with a rotated token is still a duplicate",
    before: [deliver(qrisSuccess())],
    request: deliver(qrisSuccess(), { url: `/webhooks/qris?token=${OLD_TOKEN}` }),
    status: 200,
    calls: 1,
  },
  // Authentication.
  {
    name: "wrong token",
    request: deliver(qrisSuccess(), { url: "/webhooks/qris?token=guess" }),
    status: 401,
    calls: 0,
  },
  {
    name: "missing token",
    request: deliver(qrisSuccess(), { url: "/webhooks/qris" }),
    status: 401,
    calls: 0,
    message: /token/,
  },
  {
    name: "truncated token",
    request: deliver(qrisSuccess(), { url: `/webhooks/qris?token=${TOKEN.slice(0, -1)}` }),
    status: 401,
    calls: 0,
  },
  {
    name: "token with a character appended",
    request: deliver(qrisSuccess(), { url: `/webhooks/qris?token=${TOKEN}x` }),
    status: 401,
    calls: 0,
  },
  { name: "empty token", request: deliver(qrisSuccess(), { url: "/webhooks/qris?token=" }), status: 401, calls: 0 },
  {
    name: "token in another case",
    request: deliver(qrisSuccess(), { url: `/webhooks/qris?token=${TOKEN.toUpperCase()}` }),
    status: 401,
    calls: 0,
  },
  {
    name: "token given twice",
    request: deliver(qrisSuccess(), { url: `/webhooks/qris?token=${TOKEN}&token=${TOKEN}` }),
    status: 401,
    calls: 0,
  },
  {
    name: "token in a header instead of the query",
    request: deliver(qrisSuccess(), {
      url: "/webhooks/qris",
      headers: { "content-type": "application/json", token: TOKEN },
    }),
    status: 401,
    calls: 0,
  },
  {
    name: "token under another parameter name",
    request: deliver(qrisSuccess(), { url: `/webhooks/qris?secret=${TOKEN}` }),
    status: 401,
    calls: 0,
  },
  {
    name: "wrong token and an invalid body: authentication is checked first",
    request: deliver("{not json", { url: "/webhooks/qris?token=guess" }),
    status: 401,
    calls: 0,
  },
  {
    name: "both tokens concatenated",
    request: deliver(qrisSuccess(), { url: `/webhooks/qris?token=${TOKEN}${OLD_TOKEN}` }),
    status: 401,
    calls: 0,
  },
  // Malformed or invalid bodies.
  {
    name: "truncated JSON",
    request: deliver('{"event":"payment.success",'),
    status: 400,
    calls: 0,
    message: /not valid JSON/,
  },
  { name: "not JSON at all", request: deliver("event=payment.success"), status: 400, calls: 0 },
  { name: "empty body", request: deliver(""), status: 400, calls: 0, message: /empty/ },
  { name: "a JSON array", request: deliver([qrisSuccess()]), status: 400, calls: 0 },
  { name: "JSON null", request: deliver("null"), status: 400, calls: 0 },
  { name: "a JSON string", request: deliver('"payment.success"'), status: 400, calls: 0 },
  { name: "NaN is not JSON", request: deliver('{"event":"payment.success","amount":NaN}'), status: 400, calls: 0 },
  { name: "missing event", request: deliver({ ...qrisSuccess(), event: undefined }), status: 400, calls: 0 },
  { name: "event is a number", request: deliver({ ...qrisSuccess(), event: 1 }), status: 400, calls: 0 },
  { name: "empty event name", request: deliver({ ...qrisSuccess(), event: "" }), status: 400, calls: 0 },
  { name: "missing timestamp", request: deliver({ ...qrisSuccess(), timestamp: undefined }), status: 400, calls: 0 },
  {
    name: "payment.success without data",
    request: deliver({ ...qrisSuccess(), data: undefined }),
    status: 400,
    calls: 0,
  },
  {
    name: "payment.success without a history id",
    request: deliver(qrisSuccess({ qris_history_id: undefined })),
    status: 400,
    calls: 0,
    message: /qris_history_id/,
  },
  {
    name: "amount as a string",
    request: deliver(qrisSuccess({ amount: "100001" })),
    status: 400,
    calls: 0,
    message: /amount/,
  },
  { name: "fractional amount", request: deliver(qrisSuccess({ amount: 100.5 })), status: 400, calls: 0 },
  { name: "negative amount", request: deliver(qrisSuccess({ amount: -1 })), status: 400, calls: 0 },
  {
    name: "amount beyond double range",
    request: deliver(JSON.stringify(qrisSuccess()).replace("100001", "1e400")),
    status: 400,
    calls: 0,
  },
  { name: "data is an array", request: deliver({ ...qrisSuccess(), data: [1, 2] }), status: 400, calls: 0 },
  { name: "history id is a boolean", request: deliver(qrisExpired({ qris_history_id: true })), status: 400, calls: 0 },
  {
    name: "history id is an empty string",
    request: deliver(qrisExpired({ qris_history_id: "" })),
    status: 400,
    calls: 0,
  },
  {
    name: "__proto__ key at the top level",
    request: deliver(JSON.stringify(qrisSuccess()).replace("{", '{"__proto__":{"admin":true},')),
    status: 400,
    calls: 0,
    message: /__proto__/,
  },
  {
    name: "__proto__ key inside data",
    request: deliver(JSON.stringify(qrisSuccess()).replace('"data":{', '"data":{"__proto__":{"paid":true},')),
    status: 400,
    calls: 0,
  },
  {
    name: "constructor.prototype pollution attempt",
    request: deliver(JSON.stringify(qrisSuccess()).replace("{", '{"constructor":{"prototype":{"admin":true}},')),
    status: 400,
    calls: 0,
  },
  {
    name: "__proto__ spelled with a unicode escape",
    request: deliver(JSON.stringify(qrisSuccess()).replace("{", '{"\\u005f_proto__":{"admin":true},')),
    status: 400,
    calls: 0,
  },
  {
    name: "duplicate event key (which one is meant?)",
    request: deliver(JSON.stringify(qrisSuccess()).replace("{", '{"event":"payment.expired",')),
    status: 400,
    calls: 0,
    message: /duplicate key "event"/,
  },
  {
    name: "duplicate amount inside data",
    request: deliver(JSON.stringify(qrisSuccess()).replace('"data":{', '"data":{"amount":1,')),
    status: 400,
    calls: 0,
  },
  {
    name: "invalid UTF-8 bytes",
    request: deliver(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])),
    status: 400,
    calls: 0,
    message: /UTF-8/,
  },
  { name: "deeply nested arrays", request: deliver("[".repeat(5000) + "]".repeat(5000)), status: 400, calls: 0 },
  // Transport.
  { name: "over the 64 KiB limit", request: deliver(big), status: 413, calls: 0 },
  {
    name: "over the limit even when its JSON is broken",
    request: deliver(`{${"a".repeat(66_000)}`),
    status: 413,
    calls: 0,
  },
  {
    name: "text/plain content type",
    request: deliver(qrisSuccess(), { headers: { "content-type": "text/plain" } }),
    status: 415,
    calls: 0,
  },
  {
    name: "form content type",
    request: deliver(qrisSuccess(), { headers: { "content-type": "application/x-www-form-urlencoded" } }),
    status: 415,
    calls: 0,
  },
  {
    name: "json-looking but wrong media type",
    request: deliver(qrisSuccess(), { headers: { "content-type": "application/jsonp" } }),
    status: 415,
    calls: 0,
  },
  { name: "GET", request: deliver(qrisSuccess(), { method: "GET" }), status: 405, calls: 0 },
  { name: "PUT (the QR service posts)", request: deliver(qrisSuccess(), { method: "PUT" }), status: 405, calls: 0 },
  { name: "DELETE", request: deliver(qrisSuccess(), { method: "DELETE" }), status: 405, calls: 0 },
  {
    name: "body already parsed by a JSON body parser",
    request: deliver(qrisSuccess(), { rawBody: qrisSuccess() }),
    status: 500,
    calls: 0,
    message: /express\.json\(\)/,
  },
  {
    name: "no body handed over",
    request: deliver(qrisSuccess(), { rawBody: undefined }),
    status: 500,
    calls: 0,
    message: /rawBody/,
  },
];

describeWebhookTable({
  title: "QR payment webhook receiver: request table",
  rows,
  setup: (events) => ({
    receiver: createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: SECRETS, in: "query", name: "token" })],
      logger: silentLogger,
    }).onAny((event) => {
      events.push(event as DeliveredEvent);
    }),
  }),
  secrets: SECRETS,
  allow: "POST",
});
