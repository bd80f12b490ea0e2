// Unit tests of the parsing building blocks: untrusted JSON, provider timestamps, IP/CIDR, schemas.
import { describe, expect, it } from "vitest";
import { cidrContains, parseCidr, parseIpAddress } from "../src/webhooks/verifiers/ip.js";
import {
  orderStatusWebhookSchema,
  parseUntrustedJson,
  parseWebhookTimestamp,
  paymentCallbackSchema,
  qrisWebhookEventSchema,
} from "../src/webhooks.js";
import { qrisExpired, qrisSuccess } from "./support/webhook-requests.js";

describe("parseUntrustedJson", () => {
  it.each([
    ['{"a":1,"b":{"c":[1,{"d":2}]}}', true],
    ['{"a":"x\\"y","b":"\\\\"}', true],
    ['[{"a":1},{"a":1}]', true], // the same key in sibling objects is fine
    ['{"a":{"a":{"a":1}}}', true], // and at different depths
    ['{"k":"\\"a\\":1,\\"a\\":2"}', true], // keys inside string values are not keys
    ['{"a":1,"a":2}', false],
    ['{"a":1,"b":[1,2],"a":3}', false],
    ['{"a":{"x":1,"x":1}}', false],
    ['{"\\u0061":1,"a":2}', false],
    ['{"__proto__":1}', false],
    ['{"a":[{"constructor":{}}]}', false],
    ['{"prototype":null}', false],
    ['{"\\u005f\\u005fproto\\u005f\\u005f":{}}', false],
    ['{"a":', false],
    ["", false],
  ])("%s → ok=%s", (text, ok) => {
    expect(parseUntrustedJson(text).ok).toBe(ok);
  });

  it("finds duplicates in objects with many keys", () => {
    const keys = Array.from({ length: 500 }, (_, i) => `"k${i}":${i}`);
    expect(parseUntrustedJson(`{${keys.join(",")}}`).ok).toBe(true);
    const withDuplicate = parseUntrustedJson(`{${keys.join(",")},"k250":0}`);
    expect(withDuplicate).toEqual({ ok: false, reason: 'duplicate key "k250" in a JSON object' });
  });

  it("finds duplicates in large objects nested in large objects, and not across siblings", () => {
    const object = (prefix: string, count: number, inner = "") =>
      `{${Array.from({ length: count }, (_, i) => `"${prefix}${i}":${i}`).join(",")}${inner}}`;
    const nested = (inner: string) => object("outer", 40, `,"child":${inner}`);
    expect(parseUntrustedJson(nested(object("k", 40))).ok).toBe(true);
    expect(parseUntrustedJson(nested(object("k", 40, ',"k39":1'))).ok).toBe(false);
    expect(parseUntrustedJson(object("outer", 40, `,"child":${object("k", 40)},"outer39":1`)).ok).toBe(false);
    expect(parseUntrustedJson(`[${object("k", 40)},${object("k", 40)}]`).ok).toBe(true);
    expect(parseUntrustedJson(object("outer", 40, `,"a":${object("k", 40)},"b":${object("k", 40)}`)).ok).toBe(true);
  });

  it("can allow duplicates but never prototype keys", () => {
    expect(parseUntrustedJson('{"a":1,"a":2}', { rejectDuplicateKeys: false })).toEqual({ ok: true, value: { a: 2 } });
    expect(parseUntrustedJson('{"__proto__":1}', { rejectDuplicateKeys: false }).ok).toBe(false);
  });

  it("shortens long duplicate keys in the reason", () => {
    const key = "k".repeat(100);
    const result = parseUntrustedJson(`{"${key}":1,"${key}":2}`);
    expect(result.ok).toBe(false);
    expect(result.ok ? "" : result.reason.length).toBeLessThan(80);
  });
});

describe("parseWebhookTimestamp", () => {
  it.each([
    ["2026-03-01T03:00:00Z", "2026-03-01T03:00:00.000Z"],
    ["2026-03-01T03:00:00.123456Z", "2026-03-01T03:00:00.123Z"],
    ["2026-03-01T10:00:00+07:00", "2026-03-01T03:00:00.000Z"],
    ["2026-03-01T10:00:00+0700", "2026-03-01T03:00:00.000Z"],
    ["2026-02-28T20:00:00-07:00", "2026-03-01T03:00:00.000Z"],
    ["2026-03-01 10:00:00", "2026-03-01T03:00:00.000Z"],
    ["2026-03-01 05:00:00", "2026-02-28T22:00:00.000Z"],
    [" 2026-03-01T03:00Z ", "2026-03-01T03:00:00.000Z"],
  ])("%s", (raw, iso) => {
    expect(parseWebhookTimestamp(raw)?.toISOString()).toBe(iso);
  });

  it.each(["", "yesterday", "2026-02-30 10:00:00", "2026-13-01T00:00:00Z", "2026-03-01T24:00:00Z", "1709262000"])(
    "refuses %j",
    (raw) => expect(parseWebhookTimestamp(raw)).toBeUndefined(),
  );
});

describe("IP addresses and CIDR blocks", () => {
  it.each([
    ["203.0.113.7", [203, 0, 113, 7]],
    ["::ffff:203.0.113.7", [203, 0, 113, 7]],
    ["::FFFF:cb00:7107", [203, 0, 113, 7]],
    ["[::ffff:203.0.113.7]:443", [203, 0, 113, 7]],
    ["203.0.113.7:5050", [203, 0, 113, 7]],
  ])("parses IPv4 form %s", (text, bytes) => {
    expect(Array.from(parseIpAddress(text) ?? [])).toEqual(bytes);
  });

  it.each([
    "::1",
    "2001:db8::1",
    "fe80::1%eth0",
    "2001:0db8:0000:0000:0000:ff00:0042:8329",
    "64:ff9b::192.0.2.33",
    "::",
  ])("parses IPv6 %s", (text) => expect(parseIpAddress(text)?.length).toBe(16));

  it.each([
    "",
    "1.2.3",
    "1.2.3.4.5",
    "256.1.1.1",
    "01.2.3.4",
    "1::2::3",
    "12345::1",
    "g::1",
    "1:2:3:4:5:6:7:8:9",
    "localhost",
  ])("refuses %j", (text) => expect(parseIpAddress(text)).toBeUndefined());

  it.each([
    ["203.0.113.0/24", "203.0.113.255", true],
    ["203.0.113.0/24", "203.0.114.0", false],
    ["203.0.113.7", "203.0.113.7", true],
    ["203.0.113.7", "203.0.113.8", false],
    ["10.0.0.0/8", "10.255.1.2", true],
    ["0.0.0.0/0", "198.51.100.1", true],
    ["0.0.0.0/0", "::1", false],
    ["203.0.113.0/25", "203.0.113.128", false],
    ["203.0.113.0/25", "::ffff:203.0.113.127", true],
    ["2001:db8::/32", "2001:db8:ffff::1", true],
    ["2001:db8::/32", "2001:db9::1", false],
    ["2001:db8::/127", "2001:db8::1", true],
    ["2001:db8::/128", "2001:db8::1", false],
    ["::ffff:10.0.0.0/104", "10.1.2.3", true],
    ["::/0", "2001:db8::1", true],
  ])("%s contains %s: %s", (cidr, address, expected) => {
    const block = parseCidr(cidr);
    const bytes = parseIpAddress(address);
    expect(block && bytes && cidrContains(block, bytes)).toBe(expected);
  });

  it.each(["10.0.0.0/33", "2001:db8::/129", "10.0.0.0/x", "10.0.0.0/", "nonsense/8"])("refuses CIDR %j", (text) =>
    expect(parseCidr(text)).toBeUndefined(),
  );
});

describe("exported schemas", () => {
  it("reads every QR event, with open fallback only for unknown names", () => {
    expect(qrisWebhookEventSchema.parse(qrisSuccess()).event).toBe("payment.success");
    expect(qrisWebhookEventSchema.parse(qrisExpired({ amount: undefined })).event).toBe("payment.expired");
    expect(qrisWebhookEventSchema.parse({ event: "payment.refunded", timestamp: "t", data: { x: 1 } })).toMatchObject({
      data: { x: 1 },
    });
    expect(qrisWebhookEventSchema.safeParse(qrisSuccess({ amount: "1" })).success).toBe(false);
    expect(qrisWebhookEventSchema.safeParse({ event: "payment.success", timestamp: "t" }).success).toBe(false);
  });

  it("normalises history_id to qris_history_id, keeping the original", () => {
    const parsed = qrisWebhookEventSchema.parse(qrisSuccess({ qris_history_id: undefined, history_id: 7 }));
    expect(parsed.data).toMatchObject({ qris_history_id: 7, history_id: 7 });
    const both = qrisWebhookEventSchema.parse(qrisSuccess({ qris_history_id: "a", history_id: "b" }));
    expect(both.data).toMatchObject({ qris_history_id: "a" });
  });

  it("reads payment callbacks leniently and order statuses as an open set", () => {
    expect(paymentCallbackSchema.parse({})).toEqual({});
    expect(paymentCallbackSchema.parse({ amount: "25000", extra: true })).toEqual({ amount: 25_000, extra: true });
    expect(paymentCallbackSchema.safeParse({ amount: 1.5 }).success).toBe(false);
    expect(orderStatusWebhookSchema.parse({ order_no: 1, cnote: "c", status: "Hilang" }).status).toBe("Hilang");
    expect(orderStatusWebhookSchema.safeParse({ order_no: "1", cnote: "c" }).success).toBe(false);
  });
});
