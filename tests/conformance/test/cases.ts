import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import type { Delivery } from "./adapters.js";
import { callbackSignature, json, orderStatus, paymentCallback, qrisExpired, qrisPaid, secrets } from "./fixtures.js";
import type { HandlerBehaviour, HandlerCall } from "./recorder.js";

/** What a response must be: the status, `success` of core's JSON body, and optionally message and headers. */
export interface ExpectedResponse {
  status: number;
  /** Core's JSON body `success`; `undefined` for answers that are not core's (404 of an unmounted path). */
  success?: boolean;
  message?: RegExp;
  headers?: Record<string, RegExp>;
}

/** One row: deliveries sent in order, the response each must get, and the handler calls at the end. */
export interface ConformanceCase {
  name: string;
  behaviour?: HandlerBehaviour;
  /**
   * `"sequential"` (default) sends each delivery after the previous answer; `"in-flight"` holds the handler of
   * the first delivery, sends the second while it runs, then releases the first.
   */
  timing?: "sequential" | "in-flight";
  steps: { send: Delivery; expect: ExpectedResponse }[];
  calls: HandlerCall[];
}

const qrisQuery = `?token=${secrets.qrisToken}`;
const ordersQuery = `?token=${secrets.ordersToken}`;
const ok: ExpectedResponse = { status: 200, success: true };
const unauthorized: ExpectedResponse = { status: 401, success: false };
const badRequest: ExpectedResponse = { status: 400, success: false };

const qris = (body: string | Uint8Array, more: Partial<Delivery> = {}): Delivery => ({
  source: "qris",
  query: qrisQuery,
  headers: json,
  body,
  ...more,
});
const signedCallback = (body: string, signature = callbackSignature(body)): Delivery => ({
  source: "payment",
  headers: { ...json, "x-callback-api-key": signature },
  body,
});
const order = (body: string, more: Partial<Delivery> = {}): Delivery => ({
  source: "orders",
  query: ordersQuery,
  headers: json,
  body,
  ...more,
});

/** The conformance table: every adapter must answer each row exactly as core's contract says. */
export const conformanceCases: ConformanceCase[] = [
  // --- QRIS ---
  {
    name: "qris payment.success with the current token",
    steps: [{ send: qris(qrisPaid("h-1")), expect: ok }],
    calls: ["qris:payment.success:h-1"],
  },
  {
    name: "qris payment.success with the previous (rotated) token",
    steps: [{ send: qris(qrisPaid("h-2"), { query: `?token=${secrets.qrisPreviousToken}` }), expect: ok }],
    calls: ["qris:payment.success:h-2"],
  },
  {
    name: "qris payment.expired",
    steps: [{ send: qris(qrisExpired("h-3")), expect: ok }],
    calls: ["qris:payment.expired:h-3"],
  },
  {
    name: "qris payment.success naming the id history_id (older revision)",
    steps: [{ send: qris(qrisPaid("unused", { qris_history_id: undefined, history_id: "h-4" })), expect: ok }],
    calls: ["qris:payment.success:h-4"],
  },
  {
    name: "qris without a token",
    steps: [{ send: qris(qrisPaid("h-5"), { query: "" }), expect: unauthorized }],
    calls: [],
  },
  {
    name: "qris with a wrong token",
    steps: [{ send: qris(qrisPaid("h-6"), { query: "?token=qris-token-2027" }), expect: unauthorized }],
    calls: [],
  },
  {
    name: "qris token of another source",
    steps: [{ send: qris(qrisPaid("h-7"), { query: ordersQuery }), expect: unauthorized }],
    calls: [],
  },
  // --- payment gateway callback ---
  {
    name: "payment callback signed (hex HMAC)",
    steps: [{ send: signedCallback(paymentCallback("KPAY-1")), expect: ok }],
    calls: ["payment:callback:KPAY-1"],
  },
  {
    name: "payment callback signed (base64 HMAC)",
    steps: [
      {
        send: signedCallback(paymentCallback("KPAY-2"), callbackSignature(paymentCallback("KPAY-2"), "base64")),
        expect: ok,
      },
    ],
    calls: ["payment:callback:KPAY-2"],
  },
  {
    name: "payment callback id with slashes",
    steps: [{ send: signedCallback(paymentCallback("KPAY-1234/KM/2026")), expect: ok }],
    calls: ["payment:callback:KPAY-1234/KM/2026"],
  },
  {
    name: "payment callback without the signature header",
    steps: [{ send: { source: "payment", headers: json, body: paymentCallback("KPAY-3") }, expect: unauthorized }],
    calls: [],
  },
  {
    name: "payment callback signed with another key",
    steps: [
      {
        send: signedCallback(paymentCallback("KPAY-4"), callbackSignature(paymentCallback("KPAY-4"), "hex", "x")),
        expect: unauthorized,
      },
    ],
    calls: [],
  },
  {
    name: "payment callback body changed after signing (amount)",
    steps: [
      {
        send: signedCallback(
          paymentCallback("KPAY-5").replace("150000", "1"),
          callbackSignature(paymentCallback("KPAY-5")),
        ),
        expect: unauthorized,
      },
    ],
    calls: [],
  },
  {
    name: "payment callback with the plain key instead of an HMAC (hmac mode)",
    steps: [{ send: signedCallback(paymentCallback("KPAY-6"), secrets.callbackKey), expect: unauthorized }],
    calls: [],
  },
  // --- order status ---
  {
    name: "order status by POST",
    steps: [{ send: order(orderStatus("ORD-1", "Dikirim")), expect: ok }],
    calls: ["orders:ORD-1:Dikirim"],
  },
  {
    name: "order status by PUT (as in the provider's sample)",
    steps: [{ send: order(orderStatus("ORD-2", "Dijemput"), { method: "PUT" }), expect: ok }],
    calls: ["orders:ORD-2:Dijemput"],
  },
  {
    name: "order status with a wrong token",
    steps: [{ send: order(orderStatus("ORD-3", "Dikirim"), { query: "?token=nope" }), expect: unauthorized }],
    calls: [],
  },
  {
    name: "order status changes of one order are distinct events",
    steps: [
      { send: order(orderStatus("ORD-4", "Dijemput")), expect: ok },
      { send: order(orderStatus("ORD-4", "Dikirim")), expect: ok },
    ],
    calls: ["orders:ORD-4:Dijemput", "orders:ORD-4:Dikirim"],
  },
  // --- hostile inputs ---
  {
    name: "body that is not JSON",
    steps: [{ send: qris("{event: payment.success"), expect: badRequest }],
    calls: [],
  },
  {
    name: "JSON array instead of an object",
    steps: [{ send: qris("[]"), expect: badRequest }],
    calls: [],
  },
  {
    name: "empty body",
    steps: [{ send: qris(""), expect: badRequest }],
    calls: [],
  },
  {
    name: "bytes that are not UTF-8",
    steps: [{ send: qris(new Uint8Array([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d])), expect: badRequest }],
    calls: [],
  },
  {
    name: "known event with an invalid payload (amount as text)",
    steps: [{ send: qris(qrisPaid("h-8", { amount: "100001" })), expect: badRequest }],
    calls: [],
  },
  {
    name: "__proto__ key (prototype pollution attempt)",
    steps: [
      { send: qris(qrisPaid("h-9").replace('"data":{', '"data":{"__proto__":{"polluted":true},')), expect: badRequest },
    ],
    calls: [],
  },
  {
    name: "duplicate key smuggling a second status",
    steps: [
      { send: order('{"order_no":"ORD-5","cnote":"JP5","status":"Dikirim","status":"Selesai"}'), expect: badRequest },
    ],
    calls: [],
  },
  {
    name: "body over 64 KiB",
    steps: [
      {
        send: qris(qrisPaid("h-10", { padding: "x".repeat(70_000) })),
        expect: { status: 413, success: false },
      },
    ],
    calls: [],
  },
  {
    name: "body over 100 KB (past the host framework's own JSON parser limit)",
    steps: [
      {
        send: qris(qrisPaid("h-12", { padding: "x".repeat(150_000) })),
        expect: { status: 413, success: false },
      },
    ],
    calls: [],
  },
  {
    name: "wrong content type",
    steps: [
      {
        send: qris(qrisPaid("h-11"), { headers: { "content-type": "text/plain" } }),
        expect: { status: 415, success: false },
      },
    ],
    calls: [],
  },
  // --- the HTTP contract: charset, content codings ---
  {
    name: "a charset other than UTF-8 is ignored: JSON is UTF-8",
    steps: [
      {
        send: qris(qrisPaid("h-20"), { headers: { "content-type": "application/json; charset=iso-8859-1" } }),
        expect: ok,
      },
    ],
    calls: ["qris:payment.success:h-20"],
  },
  {
    name: "a gzip body is decoded, and its signature checked over the decoded JSON",
    steps: [
      {
        send: {
          ...signedCallback(paymentCallback("pay-gz")),
          headers: { ...signedCallback(paymentCallback("pay-gz")).headers, "content-encoding": "gzip" },
          body: gzipSync(paymentCallback("pay-gz")),
        },
        expect: ok,
      },
    ],
    calls: ["payment:callback:pay-gz"],
  },
  {
    name: "a deflate body is decoded",
    steps: [
      {
        send: qris(deflateSync(qrisPaid("h-21")), { headers: { ...json, "content-encoding": "deflate" } }),
        expect: ok,
      },
    ],
    calls: ["qris:payment.success:h-21"],
  },
  {
    name: "a gzip bomb (10 MB once decoded) gets 413 without being expanded",
    steps: [
      {
        send: qris(gzipSync(qrisPaid("h-22", { padding: " ".repeat(10_000_000) })), {
          headers: { ...json, "content-encoding": "gzip" },
        }),
        expect: { status: 413, success: false, message: /larger than 65536 bytes/ },
      },
    ],
    calls: [],
  },
  {
    name: "a body that is not valid gzip gets 400",
    steps: [
      {
        send: qris(qrisPaid("h-23"), { headers: { ...json, "content-encoding": "gzip" } }),
        expect: { status: 400, success: false, message: /not valid gzip/ },
      },
    ],
    calls: [],
  },
  {
    name: "a content coding other than gzip or deflate (br) gets 415",
    steps: [
      {
        send: qris(brotliCompressSync(qrisPaid("h-24")), { headers: { ...json, "content-encoding": "br" } }),
        expect: { status: 415, success: false, message: /content encoding/ },
      },
    ],
    calls: [],
  },
  {
    // The coding decides, not the bytes: a host parser that tries to inflate br (body-parser 2 does) and fails on
    // a plain body must not turn core's 415 into its own 400.
    name: "a plain body declared br (not brotli) gets 415 too",
    steps: [
      {
        send: qris(qrisPaid("h-25"), { headers: { ...json, "content-encoding": "br" } }),
        expect: { status: 415, success: false, message: /content encoding/ },
      },
    ],
    calls: [],
  },
  {
    // Core never inflates br, so its size once inflated is nobody's concern: a host parser that inflates it past
    // its limit must not answer 413.
    name: "a brotli bomb (10 MB once inflated) gets 415 like any br body",
    steps: [
      {
        send: qris(brotliCompressSync(qrisPaid("h-26", { padding: " ".repeat(10_000_000) })), {
          headers: { ...json, "content-encoding": "br" },
        }),
        expect: { status: 415, success: false, message: /content encoding/ },
      },
    ],
    calls: [],
  },
  {
    name: "GET is not a delivery",
    steps: [
      {
        send: { source: "qris", method: "GET", query: qrisQuery },
        expect: { status: 405, success: false, headers: { allow: /POST/ } },
      },
    ],
    calls: [],
  },
  {
    name: "bad token is refused before the body is even parsed",
    steps: [{ send: qris("not json", { query: "?token=wrong" }), expect: unauthorized }],
    calls: [],
  },
  {
    name: "a path no source is mounted at",
    steps: [{ send: { source: "unknown", headers: json, body: "{}" }, expect: { status: 404 } }],
    calls: [],
  },
  // --- duplicates ---
  {
    name: "qris duplicate after completion is acknowledged, not processed again",
    steps: [
      { send: qris(qrisPaid("h-20")), expect: ok },
      { send: qris(qrisPaid("h-20")), expect: ok },
    ],
    calls: ["qris:payment.success:h-20"],
  },
  {
    name: "payment callback duplicate",
    steps: [
      { send: signedCallback(paymentCallback("KPAY-20")), expect: ok },
      { send: signedCallback(paymentCallback("KPAY-20")), expect: ok },
    ],
    calls: ["payment:callback:KPAY-20"],
  },
  {
    name: "order status duplicate",
    steps: [
      { send: order(orderStatus("ORD-20", "Dikirim")), expect: ok },
      { send: order(orderStatus("ORD-20", "Dikirim")), expect: ok },
    ],
    calls: ["orders:ORD-20:Dikirim"],
  },
  {
    name: "duplicate while the first is still in flight gets 409, never a 2xx",
    timing: "in-flight",
    behaviour: "hold-first-call",
    steps: [
      { send: qris(qrisPaid("h-21")), expect: ok },
      { send: qris(qrisPaid("h-21")), expect: { status: 409, success: false } },
    ],
    calls: ["qris:payment.success:h-21"],
  },
  // --- handler failures ---
  {
    name: "handler failure answers 500 and the provider's retry runs the handler again",
    behaviour: "fail-first-call",
    steps: [
      { send: qris(qrisPaid("h-30")), expect: { status: 500, success: false } },
      { send: qris(qrisPaid("h-30")), expect: ok },
      { send: qris(qrisPaid("h-30")), expect: ok },
    ],
    calls: ["qris:payment.success:h-30", "qris:payment.success:h-30"],
  },
  {
    name: "order handler failure is retried",
    behaviour: "fail-first-call",
    steps: [
      { send: order(orderStatus("ORD-30", "Selesai")), expect: { status: 500, success: false } },
      { send: order(orderStatus("ORD-30", "Selesai")), expect: ok },
    ],
    calls: ["orders:ORD-30:Selesai", "orders:ORD-30:Selesai"],
  },
];
