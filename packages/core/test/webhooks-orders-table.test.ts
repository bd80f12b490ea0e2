// Table of good and hostile deliveries for the order status webhook: a secret token as the last path segment of
// the registered URL, plus a source-IP allowlist behind one trusted proxy.
import { expect } from "vitest";
import type { WebhookHttpRequest } from "../src/webhooks/contract.js";
import { createWebhookReceiver, tokenVerifier } from "../src/webhooks.js";
import { ipAllowlist } from "../src/webhooks-ip-allowlist.js";
import { orderStatus } from "./support/webhook-requests.js";
import { describeWebhookTable, silentLogger, type WebhookTableRow } from "./support/webhook-table.js";

const TOKEN = "orders-path-token-9c2e51";
const PROXY = "10.0.0.5";
const SENDER = "203.0.113.20";

function deliver(body: unknown, overrides: Partial<WebhookHttpRequest> = {}): Partial<WebhookHttpRequest> {
  return {
    method: "PUT",
    url: `/webhooks/orders/${TOKEN}`,
    headers: { "content-type": "application/json", "x-forwarded-for": SENDER },
    remoteAddress: PROXY,
    rawBody: typeof body === "string" ? body : JSON.stringify(body),
    ...overrides,
  };
}

const withHeaders = (headers: Record<string, string>) => ({
  headers: { "content-type": "application/json", ...headers },
});
const text = JSON.stringify(orderStatus());

/** `calls` counts the `order.status` handler; orders also route by status, hence a second count. */
interface Row extends WebhookTableRow {
  /** Calls of the `onOrderStatus("Dikirim")` handler over the whole row. */
  shipped?: number;
}

const rows: Row[] = [
  // Good deliveries.
  { name: "PUT as in the spec's sample", request: deliver(orderStatus()), status: 200, calls: 1, shipped: 1 },
  {
    name: "POST as in the handler advice",
    request: deliver(orderStatus(), { method: "POST" }),
    status: 200,
    calls: 1,
    shipped: 1,
  },
  { name: "status Diajukan", request: deliver(orderStatus({ status: "Diajukan" })), status: 200, calls: 1, shipped: 0 },
  { name: "status Dijemput", request: deliver(orderStatus({ status: "Dijemput" })), status: 200, calls: 1, shipped: 0 },
  {
    name: "status Dibatalkan",
    request: deliver(orderStatus({ status: "Dibatalkan" })),
    status: 200,
    calls: 1,
    shipped: 0,
  },
  { name: "status Selesai", request: deliver(orderStatus({ status: "Selesai" })), status: 200, calls: 1, shipped: 0 },
  {
    name: "a status the SDK does not know",
    request: deliver(orderStatus({ status: "Retur ke Pengirim" })),
    status: 200,
    calls: 1,
    shipped: 0,
    check: (events) => expect(events[0]?.status).toBe("Retur ke Pengirim"),
  },
  {
    name: "status in upper case reaches the Dikirim handler",
    request: deliver(orderStatus({ status: "DIKIRIM" })),
    status: 200,
    calls: 1,
    shipped: 1,
  },
  {
    name: "status with surrounding spaces is trimmed",
    request: deliver(orderStatus({ status: " Dikirim " })),
    status: 200,
    calls: 1,
    shipped: 1,
    check: (events) => expect(events[0]?.status).toBe("Dikirim"),
  },
  { name: "numeric order number", request: deliver(orderStatus({ order_no: 12345 })), status: 200, calls: 1 },
  { name: "numeric waybill", request: deliver(orderStatus({ cnote: 9_876_543_210 })), status: 200, calls: 1 },
  {
    name: "extra metadata passes through",
    request: deliver(orderStatus({ timestamp: "2026-03-01 10:00:00", courier: "jne", weight: 1200 })),
    status: 200,
    calls: 1,
    check: (events) => expect(events[0]).toMatchObject({ courier: "jne", weight: 1200 }),
  },
  {
    name: "unicode in the order number",
    request: deliver(orderStatus({ order_no: "ORD-Ünï-🚚" })),
    status: 200,
    calls: 1,
  },
  {
    name: "token as the last segment of an absolute URL",
    request: deliver(orderStatus(), { url: `https://shop.example/webhooks/orders/${TOKEN}` }),
    status: 200,
    calls: 1,
  },
  {
    name: "token segment followed by a query",
    request: deliver(orderStatus(), { url: `/webhooks/orders/${TOKEN}?src=x` }),
    status: 200,
    calls: 1,
  },
  {
    name: "direct connection from an allowed IPv6 sender",
    request: deliver(orderStatus(), { remoteAddress: "2001:db8::7", headers: { "content-type": "application/json" } }),
    status: 200,
    calls: 1,
  },
  {
    name: "IPv4-mapped IPv6 peer through the proxy",
    request: deliver(orderStatus(), { remoteAddress: `::ffff:${PROXY}` }),
    status: 200,
    calls: 1,
  },
  {
    name: "X-Forwarded-For with client-written entries before the real sender",
    request: deliver(orderStatus(), withHeaders({ "x-forwarded-for": `1.2.3.4, ${SENDER}` })),
    status: 200,
    calls: 1,
  },
  {
    name: "no content type",
    request: deliver(orderStatus(), { headers: { "x-forwarded-for": SENDER } }),
    status: 200,
    calls: 1,
  },
  {
    name: "another status of the same order is processed",
    before: [deliver(orderStatus({ status: "Dijemput" }))],
    request: deliver(orderStatus({ status: "Dikirim" })),
    status: 200,
    calls: 2,
  },
  {
    name: "another waybill of the same order is processed",
    before: [deliver(orderStatus())],
    request: deliver(orderStatus({ cnote: "JNE000000002" })),
    status: 200,
    calls: 2,
  },
  // Replays.
  {
    name: "replay of the same status",
    before: [deliver(orderStatus())],
    request: deliver(orderStatus()),
    status: 200,
    calls: 1,
    shipped: 1,
  },
  {
    name: "replay over POST after PUT",
    before: [deliver(orderStatus())],
    request: deliver(orderStatus(), { method: "POST" }),
    status: 200,
    calls: 1,
  },
  {
    name: "replay with extra metadata is the same (order_no, cnote, status)",
    before: [deliver(orderStatus())],
    request: deliver(orderStatus({ retry: 2 })),
    status: 200,
    calls: 1,
  },
  {
    name: "ids containing the key separator do not collide",
    before: [deliver(orderStatus({ order_no: "A:B", cnote: "C" }))],
    request: deliver(orderStatus({ order_no: "A", cnote: "B:C" })),
    status: 200,
    calls: 2,
  },
  // Authentication.
  {
    name: "wrong path token",
    request: deliver(orderStatus(), { url: "/webhooks/orders/guess" }),
    status: 401,
    calls: 0,
  },
  { name: "no token segment", request: deliver(orderStatus(), { url: "/" }), status: 401, calls: 0 },
  {
    name: "truncated path token",
    request: deliver(orderStatus(), { url: `/webhooks/orders/${TOKEN.slice(0, 10)}` }),
    status: 401,
    calls: 0,
  },
  {
    name: "token not in the last segment",
    request: deliver(orderStatus(), { url: `/webhooks/${TOKEN}/orders` }),
    status: 401,
    calls: 0,
  },
  {
    name: "token in the query instead",
    request: deliver(orderStatus(), { url: `/webhooks/orders?token=${TOKEN}` }),
    status: 401,
    calls: 0,
  },
  {
    name: "percent-encoded garbage segment",
    request: deliver(orderStatus(), { url: "/webhooks/orders/%E0%A4%A" }),
    status: 401,
    calls: 0,
  },
  {
    name: "sender outside the allowlist",
    request: deliver(orderStatus(), withHeaders({ "x-forwarded-for": "198.51.100.9" })),
    status: 401,
    calls: 0,
    message: /not allowed/,
  },
  {
    name: "spoofed X-Forwarded-For: allowed address written by the client, real sender outside",
    request: deliver(orderStatus(), withHeaders({ "x-forwarded-for": `${SENDER}, 198.51.100.9` })),
    status: 401,
    calls: 0,
  },
  {
    name: "valid token; with trustProxy 1 the peer is taken as the proxy and the last forwarded hop as the sender",
    request: deliver(orderStatus(), {
      remoteAddress: "198.51.100.9",
      headers: { "content-type": "application/json", "x-forwarded-for": SENDER },
    }),
    status: 200,
    calls: 1,
    // The peer is taken as the (trusted) proxy: one trusted hop means the sender is the last forwarded entry.
  },
  {
    name: "no remote address and no forwarded header",
    request: deliver(orderStatus(), { remoteAddress: undefined, headers: { "content-type": "application/json" } }),
    status: 401,
    calls: 0,
    message: /source address/,
  },
  {
    name: "unparseable forwarded address",
    request: deliver(orderStatus(), withHeaders({ "x-forwarded-for": "not-an-ip" })),
    status: 401,
    calls: 0,
  },
  {
    name: "IPv6 sender outside the allowed prefix",
    request: deliver(orderStatus(), withHeaders({ "x-forwarded-for": "2001:db9::1" })),
    status: 401,
    calls: 0,
  },
  // Invalid bodies.
  {
    name: "missing cnote",
    request: deliver(orderStatus({ cnote: undefined })),
    status: 400,
    calls: 0,
    message: /cnote/,
  },
  { name: "missing order_no", request: deliver(orderStatus({ order_no: undefined })), status: 400, calls: 0 },
  { name: "missing status", request: deliver(orderStatus({ status: undefined })), status: 400, calls: 0 },
  { name: "empty status", request: deliver(orderStatus({ status: "" })), status: 400, calls: 0 },
  { name: "status of spaces only", request: deliver(orderStatus({ status: "   " })), status: 400, calls: 0 },
  { name: "status as a number", request: deliver(orderStatus({ status: 3 })), status: 400, calls: 0 },
  { name: "status as an object", request: deliver(orderStatus({ status: { code: 3 } })), status: 400, calls: 0 },
  { name: "order_no as null", request: deliver(orderStatus({ order_no: null })), status: 400, calls: 0 },
  { name: "cnote as an array", request: deliver(orderStatus({ cnote: ["a"] })), status: 400, calls: 0 },
  { name: "malformed JSON", request: deliver('{"order_no":"1","cnote":"2","status":"Dikirim"'), status: 400, calls: 0 },
  { name: "single quotes are not JSON", request: deliver("{'order_no':'1'}"), status: 400, calls: 0 },
  {
    name: "trailing comma",
    request: deliver('{"order_no":"1","cnote":"2","status":"Dikirim",}'),
    status: 400,
    calls: 0,
  },
  { name: "empty body", request: deliver(""), status: 400, calls: 0 },
  { name: "whitespace-only body", request: deliver("   \n"), status: 400, calls: 0 },
  { name: "array of updates", request: deliver([orderStatus()]), status: 400, calls: 0 },
  {
    name: "__proto__ key",
    request: deliver(text.replace("{", '{"__proto__":{"status":"Selesai"},')),
    status: 400,
    calls: 0,
  },
  { name: "constructor key", request: deliver(text.replace("{", '{"constructor":1,')), status: 400, calls: 0 },
  {
    name: "prototype key deep inside",
    request: deliver(text.replace("{", '{"meta":[{"prototype":{}}],')),
    status: 400,
    calls: 0,
  },
  {
    name: "duplicate status (Dikirim then Dibatalkan)",
    request: deliver(text.replace("}", ',"status":"Dibatalkan"}')),
    status: 400,
    calls: 0,
    message: /duplicate key "status"/,
  },
  {
    name: "duplicate keys in a nested object",
    request: deliver(text.replace("{", '{"meta":{"a":1,"a":2},')),
    status: 400,
    calls: 0,
  },
  // Transport.
  {
    name: "over the size limit",
    request: deliver(orderStatus({ history: "z".repeat(70_000) })),
    status: 413,
    calls: 0,
  },
  {
    name: "text/html",
    request: deliver(orderStatus(), withHeaders({ "content-type": "text/html", "x-forwarded-for": SENDER })),
    status: 415,
    calls: 0,
  },
  { name: "GET", request: deliver(orderStatus(), { method: "GET" }), status: 405, calls: 0 },
  { name: "PATCH", request: deliver(orderStatus(), { method: "PATCH" }), status: 405, calls: 0 },
  { name: "DELETE", request: deliver(orderStatus(), { method: "DELETE" }), status: 405, calls: 0 },
  {
    name: "body already parsed",
    request: deliver(orderStatus(), { rawBody: orderStatus() }),
    status: 500,
    calls: 0,
    message: /rawBody: true/,
  },
];

describeWebhookTable<Row>({
  title: "order status receiver: request table",
  rows,
  setup: (events) => {
    let shipped = 0;
    const receiver = createWebhookReceiver({
      source: "orders",
      verify: [
        tokenVerifier({ secrets: TOKEN, in: "path" }),
        ipAllowlist({ allow: ["203.0.113.0/24", "2001:db8::/32"], trustProxy: 1 }),
      ],
      logger: silentLogger,
    })
      .on("order.status", (event) => {
        events.push(event);
      })
      .onOrderStatus("Dikirim", () => {
        shipped++;
      });
    return {
      receiver,
      verify: (row) => {
        if (row.shipped !== undefined) expect(shipped).toBe(row.shipped);
      },
    };
  },
  secrets: [TOKEN],
  allow: "POST, PUT",
});
