import { describe, expect, it } from "vitest";
import { RequestBody } from "../../src/webhooks/body.js";
import { findPrototypeKeyIn } from "../../src/webhooks/json.js";
import {
  allowDuplicateKeys,
  type KeyCheck,
  parseEvent,
  rejectDuplicateKeys,
} from "../../src/webhooks/pipeline/parse.js";
import { checkTransport, type MissingRawBody, type TransportRules } from "../../src/webhooks/pipeline/transport.js";
import { firstFailure } from "../../src/webhooks/pipeline/verify.js";
import { SOURCES } from "../../src/webhooks/sources.js";
import type { VerificationRequest, WebhookVerifier } from "../../src/webhooks/verifiers/types.js";
import { lazyThenable, otherRealmPromise } from "../support/thenables.js";
import { qrisSuccess, webhookRequest } from "../support/webhook-requests.js";

const rules: TransportRules = {
  methods: ["POST"],
  allowHeader: { allow: "POST" },
  maxBodyBytes: 100,
  allowMissingContentType: true,
};

describe("transport stage", () => {
  it("lets a well-formed request through as its body", () => {
    expect(checkTransport("POST", webhookRequest({ rawBody: "{}" }), rules)).toBeInstanceOf(RequestBody);
  });

  it("answers 405 with Allow, 413 and 415, and names a missing raw body", () => {
    const wrongMethod = checkTransport("GET", webhookRequest(), rules);
    expect(wrongMethod).toMatchObject({ status: 405, headers: { allow: "POST" } });
    expect(checkTransport("POST", webhookRequest({ rawBody: "x".repeat(101) }), rules)).toMatchObject({ status: 413 });
    const text = webhookRequest({ headers: { "content-type": "text/plain" } });
    expect(checkTransport("POST", text, rules)).toMatchObject({ status: 415 });
    const parsed = checkTransport("POST", webhookRequest({ rawBody: { already: "parsed" } }), rules);
    expect(typeof parsed).toBe("string");
    expect(parsed as MissingRawBody).toMatch(/already-parsed object/);
  });

  it("refuses a missing content type only when told to", () => {
    const bare = webhookRequest({ headers: {} });
    expect(checkTransport("POST", bare, rules)).toBeInstanceOf(RequestBody);
    expect(checkTransport("POST", bare, { ...rules, allowMissingContentType: false })).toMatchObject({ status: 415 });
  });
});

describe("verify stage", () => {
  const delivery = {} as VerificationRequest;
  const verifier = (verify: () => unknown): WebhookVerifier =>
    ({ kind: "request", name: "test", verify }) as unknown as WebhookVerifier;

  it("passes synchronously when every verdict is { ok: true }", () => {
    expect(firstFailure([verifier(() => ({ ok: true }))], delivery, undefined)).toBeUndefined();
  });

  it("fails on anything but an explicit { ok: true }, with the verifier's reason", () => {
    expect(firstFailure([verifier(() => undefined)], delivery, undefined)).toBe("verification failed");
    expect(firstFailure([verifier(() => ({ ok: false, reason: "bad token" }))], delivery, undefined)).toBe("bad token");
  });

  it("adopts thenable verdicts of any kind before running the next verifier", async () => {
    const order: string[] = [];
    const lazy = lazyThenable(async () => {
      order.push("lazy");
      return { ok: true };
    });
    const result = firstFailure(
      [
        verifier(() => lazy.thenable),
        verifier(() => otherRealmPromise(5, { value: { ok: false, reason: "realm says no" } })),
        verifier(() => order.push("never")),
      ],
      delivery,
      undefined,
    );
    await expect(result).resolves.toBe("realm says no");
    expect(order).toEqual(["lazy"]);
    expect(lazy.calls.then).toBe(1);
  });

  it("rejects when a verifier's thenable rejects (the receiver answers 500, never 2xx)", async () => {
    await expect(
      firstFailure([verifier(() => otherRealmPromise(5, { error: "down" }))], delivery, undefined),
    ).rejects.toThrow("down");
  });
});

describe("parse stage", () => {
  const parse = (text: string | Uint8Array) =>
    parseEvent(new RequestBody(text), "qris", SOURCES.qris, rejectDuplicateKeys);

  it("returns the typed event of a valid body", () => {
    const result = parse(JSON.stringify(qrisSuccess()));
    expect(result.ok).toBe(true);
    expect(result.ok && (result.event as { event: string }).event).toBe("payment.success");
  });

  it("answers 400 naming the problem: UTF-8, JSON, empty, duplicate keys, schema", () => {
    const message = (text: string | Uint8Array) => {
      const result = parse(text);
      expect(result.ok).toBe(false);
      return result.ok ? "" : `${result.response.status} ${result.response.body}`;
    };
    expect(message(new Uint8Array([0xff, 0xfe]))).toMatch(/400 .*not valid UTF-8/);
    expect(message("{")).toMatch(/400 .*not valid JSON/);
    expect(message("  ")).toMatch(/400 .*the body is empty/);
    expect(message('{"event":"payment.success","event":"payment.expired"}')).toMatch(/400 .*duplicate/i);
    expect(message('{"event":"payment.success","data":{}}')).toMatch(/400 .*Invalid qris webhook body/);
  });

  it("refuses prototype keys in every key-check mode, and repeated keys only when asked", () => {
    const check = (text: string, keyCheck: KeyCheck) => {
      const result = parseEvent(new RequestBody(text), "qris", SOURCES.qris, keyCheck);
      return result.ok ? "ok" : result.response.body;
    };
    const success = qrisSuccess();
    const repeated = JSON.stringify(success).replace('"event":', '"event":"payment.expired","event":');
    expect(check(repeated, rejectDuplicateKeys)).toMatch(/duplicate/i);
    expect(check(repeated, allowDuplicateKeys)).toBe("ok");
    // The text applyEvent parses comes from JSON.stringify, so an own `__proto__` key (say, from a provider's JSON
    // that JSON.parse read) is still in it and still refused.
    const hostile = JSON.parse(`{"__proto__":{"polluted":true},"event":"payment.success"}`) as Record<string, unknown>;
    const serialized = JSON.stringify({ ...success, data: { ...success.data, nested: hostile } });
    expect(serialized).toContain('"__proto__"');
    for (const keyCheck of [rejectDuplicateKeys, allowDuplicateKeys, findPrototypeKeyIn]) {
      expect(check(serialized, keyCheck)).toMatch(/__proto__/);
      expect(check(JSON.stringify(success), keyCheck)).toBe("ok");
    }
    expect(check('{"constructor":{},"event":"payment.success"}', findPrototypeKeyIn)).toMatch(/constructor/);
  });
});
