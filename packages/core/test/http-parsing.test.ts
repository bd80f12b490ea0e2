import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseRateLimit, parseResetTime, parseRetryAfter } from "../src/http/rate-limit.js";
import { createRedactor, REDACTED, sanitizeCause } from "../src/http/redact.js";
import { fillPath } from "../src/http/request-body.js";
import { etdTextSchema } from "../src/http/schema-helpers.js";
import { parseProviderTime, tryParseProviderTime } from "../src/http/time.js";

const NOW = Date.UTC(2026, 0, 1);

describe("parseProviderTime", () => {
  it.each([
    ["2026-05-01 10:15:00", "2026-05-01T03:15:00.000Z"],
    ["2026-05-01T10:15:00", "2026-05-01T03:15:00.000Z"],
    ["2026-05-01T03:15:00Z", "2026-05-01T03:15:00.000Z"],
    ["2026-05-01T03:15:00.123Z", "2026-05-01T03:15:00.123Z"],
    ["2026-05-01T10:15:00+07:00", "2026-05-01T03:15:00.000Z"],
    ["2026-05-01T10:15:00+0700", "2026-05-01T03:15:00.000Z"],
    ["2026-05-01T01:15:00-02:00", "2026-05-01T03:15:00.000Z"],
    ["2026-01-01 00:30:00", "2025-12-31T17:30:00.000Z"],
  ])("reads %s", (raw, iso) => {
    const parsed = parseProviderTime(raw);
    expect(parsed.date.toISOString()).toBe(iso);
    expect(parsed.raw).toBe(raw);
  });

  it.each(["", "yesterday", "2026-02-30 10:00:00", "2026-05-01 24:00:00", "2026-13-01T00:00:00Z", "01-05-2026 10:00"])(
    "rejects %j",
    (raw) => {
      expect(tryParseProviderTime(raw)).toBeUndefined();
      expect(() => parseProviderTime(raw)).toThrow(RangeError);
    },
  );

  it("round-trips any instant written in each of the three formats", () => {
    const pad = (n: number, width = 2) => String(n).padStart(width, "0");
    fc.assert(
      fc.property(fc.integer({ min: Date.UTC(2000, 0, 1), max: Date.UTC(2099, 11, 31) }), (ms) => {
        const instant = new Date(Math.floor(ms / 1000) * 1000);
        const wib = new Date(instant.getTime() + 7 * 3_600_000);
        const local = `${wib.getUTCFullYear()}-${pad(wib.getUTCMonth() + 1)}-${pad(wib.getUTCDate())} ${pad(wib.getUTCHours())}:${pad(wib.getUTCMinutes())}:${pad(wib.getUTCSeconds())}`;
        expect(parseProviderTime(local).date).toEqual(instant);
        expect(parseProviderTime(`${local.replace(" ", "T")}+07:00`).date).toEqual(instant);
        expect(parseProviderTime(instant.toISOString()).date).toEqual(instant);
      }),
    );
  });
});

describe("etdTextSchema", () => {
  it("keeps the provider's text and reads a missing one as empty", () => {
    expect(etdTextSchema.parse("2-3 day")).toBe("2-3 day");
    expect(etdTextSchema.parse(null)).toBe("");
    expect(etdTextSchema.parse(undefined)).toBe("");
    expect(etdTextSchema.safeParse(3).success).toBe(false);
  });
});

describe("rate-limit headers", () => {
  it("parses limit, remaining and reset; undefined when absent", () => {
    expect(parseRateLimit(new Headers(), NOW)).toBeUndefined();
    expect(parseRateLimit(new Headers({ "x-ratelimit-limit": "abc", "x-ratelimit-remaining": "4" }), NOW)).toEqual({
      remaining: 4,
    });
    expect(parseRateLimit(new Headers({ "x-ratelimit-reset": "garbage" }), NOW)).toEqual({ resetRaw: "garbage" });
  });

  it.each([
    [String(NOW / 1000 + 60), NOW + 60_000],
    [String(NOW + 60_000), NOW + 60_000],
    ["60", NOW + 60_000],
    [new Date(NOW + 60_000).toISOString(), NOW + 60_000],
    [new Date(NOW + 60_000).toUTCString(), NOW + 60_000],
  ])("reads X-RateLimit-Reset %s", (raw, expected) => {
    expect(parseResetTime(raw, NOW)?.getTime()).toBe(expected);
  });

  it("reads Retry-After as seconds or an HTTP date, never negative", () => {
    expect(parseRetryAfter("2", NOW)).toBe(2000);
    expect(parseRetryAfter("1.5", NOW)).toBe(1500);
    expect(parseRetryAfter(new Date(NOW + 9000).toUTCString(), NOW)).toBe(9000);
    expect(parseRetryAfter(new Date(NOW - 9000).toUTCString(), NOW)).toBe(0);
    expect(parseRetryAfter("soon", NOW)).toBeUndefined();
    expect(parseRetryAfter(null, NOW)).toBeUndefined();
  });
});

describe("redaction", () => {
  const redactor = createRedactor(["s3cr3t/key+1", ""]);

  it("removes the secret in raw, URL-encoded and JSON-escaped forms", () => {
    expect(redactor.text("a s3cr3t/key+1 b s3cr3t%2Fkey%2B1")).toBe(`a ${REDACTED} b ${REDACTED}`);
    const quoted = createRedactor(['se"cret-1']);
    expect(quoted.text(JSON.stringify({ m: 'se"cret-1' }))).toBe(`{"m":"${REDACTED}"}`);
    expect(redactor.text("nothing here")).toBe("nothing here");
  });

  it("replaces secret-named fields and secret values deep in JSON", () => {
    expect(
      redactor.value({ query: { key: "anything", id: "1" }, list: ["x s3cr3t/key+1"], n: 1, "android-key": "" }),
    ).toEqual({
      query: { key: REDACTED, id: "1" },
      list: [`x ${REDACTED}`],
      n: 1,
      "android-key": "",
    });
  });

  it("keeps a clean cause and replaces one that mentions a secret", () => {
    const clean = new TypeError("fetch failed");
    expect(sanitizeCause(clean, redactor)).toBe(clean);
    const dirty = sanitizeCause(new TypeError("GET https://x/?key=s3cr3t%2Fkey%2B1"), redactor) as Error;
    expect(dirty.name).toBe("TypeError");
    expect(dirty.message).toBe(`GET https://x/?key=${REDACTED}`);
  });
});

describe("fillPath", () => {
  it("URL-encodes ids and refuses missing ones", () => {
    expect(fillPath("/status/{payment_id}", { payment_id: "KPAY-1234/KM/2026" })).toBe("/status/KPAY-1234%2FKM%2F2026");
    expect(fillPath("/a/{x}/{y}", { x: 1, y: "a b?" })).toBe("/a/1/a%20b%3F");
    expect(() => fillPath("/a/{x}", {})).toThrow(/\{x\}/);
  });
});
