// Table of good and hostile deliveries for the payment gateway callback (HMAC-SHA256 of the raw body in
// X-Callback-Api-Key, keyed with the callback_api_key).
import { expect } from "vitest";
import type { WebhookHttpRequest } from "../src/webhooks/contract.js";
import { callbackKeyVerifier, createWebhookReceiver } from "../src/webhooks.js";
import { hmacBase64, hmacHex, paymentCallback } from "./support/webhook-requests.js";
import { describeWebhookTable, silentLogger, type WebhookTableRow } from "./support/webhook-table.js";

const KEY = "cb-key-current-5d1e9a";
const OLD_KEY = "cb-key-previous-2c8f44";
const SECRETS = [KEY, OLD_KEY];

interface SignOptions {
  key?: string;
  signature?: string | null;
  headers?: Record<string, string>;
  method?: string;
  rawBody?: unknown;
}

/** A callback whose header is the hex HMAC of the exact text sent, unless overridden. */
function signed(body: unknown, options: SignOptions = {}): Partial<WebhookHttpRequest> {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  const signature = options.signature === undefined ? hmacHex(options.key ?? KEY, text) : options.signature;
  const headers: Record<string, string> = { "content-type": "application/json", ...options.headers };
  if (signature !== null) headers["x-callback-api-key"] = signature;
  return {
    url: "/webhooks/payment",
    method: options.method ?? "POST",
    headers,
    rawBody: options.rawBody === undefined ? text : options.rawBody,
  };
}

const text = JSON.stringify(paymentCallback());

const rows: WebhookTableRow[] = [
  // Good deliveries.
  { name: "hex HMAC of the raw body", request: signed(paymentCallback()), status: 200, calls: 1 },
  { name: "base64 HMAC", request: signed(text, { signature: hmacBase64(KEY, text) }), status: 200, calls: 1 },
  {
    name: "URL-safe base64 without padding",
    request: signed(text, {
      signature: hmacBase64(KEY, text).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, ""),
    }),
    status: 200,
    calls: 1,
  },
  {
    name: "upper-case hex",
    request: signed(text, { signature: hmacHex(KEY, text).toUpperCase() }),
    status: 200,
    calls: 1,
  },
  {
    name: "signature with surrounding spaces",
    request: signed(text, { signature: ` ${hmacHex(KEY, text)} ` }),
    status: 200,
    calls: 1,
  },
  {
    name: "signed with the previous key (rotation)",
    request: signed(paymentCallback(), { key: OLD_KEY }),
    status: 200,
    calls: 1,
  },
  {
    name: "header name in another case",
    request: (() => {
      const r = signed(paymentCallback(), { signature: null });
      (r.headers as Record<string, string>)["X-CALLBACK-API-KEY"] = hmacHex(KEY, text);
      return r;
    })(),
    status: 200,
    calls: 1,
  },
  { name: "no status field", request: signed(paymentCallback({ status: undefined })), status: 200, calls: 1 },
  {
    name: "numeric payment id",
    request: signed(paymentCallback({ payment_id: 778899 })),
    status: 200,
    calls: 1,
    check: (events) => expect(events[0]?.payment_id).toBe(778899),
  },
  {
    name: "amount as integer text is read as a number",
    request: signed(paymentCallback({ amount: "150000" })),
    status: 200,
    calls: 1,
    check: (events) => expect(events[0]?.amount).toBe(150_000),
  },
  {
    name: "unknown status and fields pass through",
    request: signed(paymentCallback({ status: "REFUNDED", va_number: "8808123", meta: { bank: "BNI" } })),
    status: 200,
    calls: 1,
    check: (events) => expect(events[0]).toMatchObject({ status: "REFUNDED", va_number: "8808123" }),
  },
  { name: "an empty object (all fields optional)", request: signed({}), status: 200, calls: 1 },
  { name: "only an order id", request: signed({ order_id: "ORD-1" }), status: 200, calls: 1 },
  {
    name: "unicode in a customer name",
    request: signed(paymentCallback({ customer_name: "Siti Nurhaliza — ✓ 🇮🇩" })),
    status: 200,
    calls: 1,
  },
  { name: "bytes body", request: signed(text, { rawBody: new TextEncoder().encode(text) }), status: 200, calls: 1 },
  {
    name: "content type with charset",
    request: signed(paymentCallback(), { headers: { "content-type": "application/json;charset=UTF-8" } }),
    status: 200,
    calls: 1,
  },
  {
    name: "empty content type header",
    request: signed(paymentCallback(), { headers: { "content-type": "" } }),
    status: 415,
    calls: 0,
  },
  {
    name: "pretty-printed body signed as sent",
    request: signed(JSON.stringify(paymentCallback(), null, 2)),
    status: 200,
    calls: 1,
  },
  {
    name: "payment id containing slashes",
    request: signed(paymentCallback({ payment_id: "KPAY-9/KM/2026" })),
    status: 200,
    calls: 1,
  },
  {
    name: "a later status of the same payment is a new event",
    before: [signed(paymentCallback({ status: "PENDING" }))],
    request: signed(paymentCallback({ status: "PAID" })),
    status: 200,
    calls: 2,
  },
  // Replays.
  {
    name: "replay of a processed callback",
    before: [signed(paymentCallback())],
    request: signed(paymentCallback()),
    status: 200,
    calls: 1,
  },
  {
    name: "replay re-serialised differently is still the same payment and status",
    before: [signed(paymentCallback())],
    request: signed(JSON.stringify(paymentCallback(), null, 1)),
    status: 200,
    calls: 1,
  },
  {
    name: "replay of a body without payment id (deduplicated on the body hash)",
    before: [signed({ order_id: "ORD-5", note: "x" })],
    request: signed({ order_id: "ORD-5", note: "x" }),
    status: 200,
    calls: 1,
  },
  // Authentication.
  {
    name: "missing signature header",
    request: signed(paymentCallback(), { signature: null }),
    status: 401,
    calls: 0,
    message: /X-Callback-Api-Key is missing/,
  },
  {
    name: "empty signature header",
    request: signed(paymentCallback(), { signature: "" }),
    status: 401,
    calls: 0,
    message: /missing/,
  },
  {
    name: "signed with a wrong key",
    request: signed(paymentCallback(), { key: "cb-key-wrong" }),
    status: 401,
    calls: 0,
  },
  {
    name: "truncated hex signature",
    request: signed(text, { signature: hmacHex(KEY, text).slice(0, 63) }),
    status: 401,
    calls: 0,
  },
  {
    name: "hex signature with a character appended",
    request: signed(text, { signature: `${hmacHex(KEY, text)}0` }),
    status: 401,
    calls: 0,
  },
  {
    name: "signature halved",
    request: signed(text, { signature: hmacHex(KEY, text).slice(0, 32) }),
    status: 401,
    calls: 0,
  },
  {
    name: "signature of another body",
    request: signed(text, { signature: hmacHex(KEY, JSON.stringify(paymentCallback({ amount: 1 }))) }),
    status: 401,
    calls: 0,
  },
  {
    name: "amount changed after signing",
    request: signed(text.replace("150000", "1500000"), { signature: hmacHex(KEY, text) }),
    status: 401,
    calls: 0,
  },
  {
    name: "trailing newline added after signing",
    request: signed(`${text}\n`, { signature: hmacHex(KEY, text) }),
    status: 401,
    calls: 0,
  },
  { name: "plain key instead of an HMAC", request: signed(text, { signature: KEY }), status: 401, calls: 0 },
  {
    name: "SHA-1 digest length",
    request: signed(text, { signature: hmacHex(KEY, text).slice(0, 40) }),
    status: 401,
    calls: 0,
  },
  {
    name: "non-hex garbage of the right length",
    request: signed(text, { signature: "z".repeat(64) }),
    status: 401,
    calls: 0,
  },
  {
    name: "signature with a sha256= prefix",
    request: signed(text, { signature: `sha256=${hmacHex(KEY, text)}` }),
    status: 401,
    calls: 0,
  },
  {
    name: "HMAC keyed with the key in another case",
    request: signed(paymentCallback(), { key: KEY.toUpperCase() }),
    status: 401,
    calls: 0,
  },
  { name: "signature of an empty body", request: signed(text, { signature: hmacHex(KEY, "") }), status: 401, calls: 0 },
  // Bodies that verify but do not parse.
  { name: "signed malformed JSON", request: signed('{"payment_id": "KPAY-1", '), status: 400, calls: 0 },
  { name: "signed JSON array", request: signed([paymentCallback()]), status: 400, calls: 0 },
  { name: "signed JSON number", request: signed("42"), status: 400, calls: 0 },
  { name: "signed empty body", request: signed(""), status: 400, calls: 0 },
  { name: "fractional amount", request: signed(paymentCallback({ amount: 10.5 })), status: 400, calls: 0 },
  { name: "negative amount", request: signed(paymentCallback({ amount: -5 })), status: 400, calls: 0 },
  {
    name: "amount text that is not a number",
    request: signed(paymentCallback({ amount: "150.000,00" })),
    status: 400,
    calls: 0,
  },
  { name: "empty payment id", request: signed(paymentCallback({ payment_id: "" })), status: 400, calls: 0 },
  { name: "payment id as a boolean", request: signed(paymentCallback({ payment_id: true })), status: 400, calls: 0 },
  { name: "status as a number", request: signed(paymentCallback({ status: 2 })), status: 400, calls: 0 },
  {
    name: "signed __proto__ key",
    request: signed(text.replace("{", '{"__proto__":{"isAdmin":true},')),
    status: 400,
    calls: 0,
    message: /__proto__/,
  },
  {
    name: "signed nested constructor key",
    request: signed(text.replace("{", '{"meta":{"constructor":{"prototype":{"x":1}}},')),
    status: 400,
    calls: 0,
  },
  {
    name: "signed duplicate status (PENDING then PAID)",
    request: signed(text.replace("{", '{"status":"PENDING",')),
    status: 400,
    calls: 0,
    message: /duplicate key "status"/,
  },
  {
    name: "signed duplicate key hidden by an escape",
    request: signed(text.replace("{", '{"st\\u0061tus":"PENDING",')),
    status: 400,
    calls: 0,
  },
  {
    name: "signed invalid UTF-8",
    request: signed("", {
      rawBody: new Uint8Array([0x7b, 0xc3, 0x28, 0x7d]),
      signature: hmacHex(KEY, new Uint8Array([0x7b, 0xc3, 0x28, 0x7d])),
    }),
    status: 400,
    calls: 0,
  },
  // Transport.
  {
    name: "over the size limit",
    request: signed(paymentCallback({ blob: "y".repeat(65 * 1024) })),
    status: 413,
    calls: 0,
  },
  {
    name: "text/plain",
    request: signed(paymentCallback(), { headers: { "content-type": "text/plain" } }),
    status: 415,
    calls: 0,
  },
  {
    name: "multipart",
    request: signed(paymentCallback(), { headers: { "content-type": "multipart/form-data; boundary=x" } }),
    status: 415,
    calls: 0,
  },
  { name: "GET", request: signed(paymentCallback(), { method: "GET" }), status: 405, calls: 0 },
  { name: "PUT", request: signed(paymentCallback(), { method: "PUT" }), status: 405, calls: 0 },
  { name: "PATCH", request: signed(paymentCallback(), { method: "PATCH" }), status: 405, calls: 0 },
  {
    name: "body parsed by express.json() before the route",
    request: signed(paymentCallback(), { rawBody: paymentCallback() }),
    status: 500,
    calls: 0,
    message: /before express\.json\(\)/,
  },
  {
    name: "body given as a number",
    request: signed(paymentCallback(), { rawBody: 12 }),
    status: 500,
    calls: 0,
    message: /Uint8Array or a string/,
  },
];

describeWebhookTable({
  title: "payment callback receiver: request table",
  rows,
  setup: (events) => ({
    receiver: createWebhookReceiver({
      source: "payment",
      verify: [callbackKeyVerifier({ secrets: SECRETS })],
      allowMissingContentType: false,
      logger: silentLogger,
    }).on("payment.callback", (event) => {
      events.push(event);
    }),
  }),
  secrets: SECRETS,
  allow: "POST",
});
