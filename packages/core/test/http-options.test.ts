import { afterEach, describe, expect, it } from "vitest";
import { ConfigurationError } from "../src/errors/validation.js";
import { Transport } from "../src/http/transport.js";
import { json, SENTINEL_KEY, scriptedFetch } from "./http-support.js";

const build = (options: Record<string, unknown>) =>
  new Transport(
    { apiKey: "k", baseUrl: "https://api.example.id", fetch: scriptedFetch(json({})), ...options } as never,
    [{ in: "header", name: "X-API-Key", option: "apiKey", value: (options.apiKey as string | undefined) ?? "k" }],
  );

const configError = (fn: () => unknown): ConfigurationError => {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error("expected a ConfigurationError");
};

describe("baseUrl", () => {
  it("is required", () => {
    expect(configError(() => build({ baseUrl: undefined })).option).toBe("baseUrl");
    expect(configError(() => build({ baseUrl: "  " })).message).toMatch(/baseUrl is required/);
  });

  it("must be an absolute http(s) URL without credentials, query or fragment", () => {
    expect(configError(() => build({ baseUrl: "api.example.id" })).message).toMatch(/absolute URL/);
    expect(configError(() => build({ baseUrl: "ftp://api.example.id" })).message).toMatch(/https:/);
    expect(configError(() => build({ baseUrl: "https://u:p@api.example.id" })).message).toMatch(/credentials/);
    expect(configError(() => build({ baseUrl: "https://api.example.id/?a=1" })).message).toMatch(/query/);
  });

  it("refuses http: except for loopback hosts or with allowInsecureHttp", () => {
    const error = configError(() => build({ baseUrl: "http://api.example.id" }));
    expect(error.message).toMatch(/unencrypted/);
    expect(error.message).toMatch(/allowInsecureHttp/);
    for (const baseUrl of ["http://localhost:8080", "http://127.0.0.1:3000", "http://[::1]:3000"]) {
      expect(() => build({ baseUrl })).not.toThrow();
    }
    expect(() => build({ baseUrl: "http://api.example.id", allowInsecureHttp: true })).not.toThrow();
  });
});

describe("apiKey", () => {
  it("is trimmed before use", async () => {
    const fetch = scriptedFetch(json({ ok: true }));
    const transport = new Transport({ apiKey: "", baseUrl: "https://x.id", fetch }, [
      { in: "header", name: "X-API-Key", option: "apiKey", value: "  abc123\n" },
    ]);
    const { z } = await import("zod");
    await transport.request({
      operation: "op",
      method: "GET",
      path: "/p",
      idempotent: true,
      envelope: "none",
      schema: z.unknown(),
    });
    expect(fetch.calls[0]?.headers.get("x-api-key")).toBe("abc123");
  });

  it("rejects inner whitespace, empty and non-string keys without echoing the key", () => {
    const inner = configError(() => build({ apiKey: `${SENTINEL_KEY} ${SENTINEL_KEY}` }));
    expect(inner.option).toBe("apiKey");
    expect(inner.message).toMatch(/whitespace inside/);
    expect(JSON.stringify({ ...inner, message: inner.message })).not.toContain("SENTINEL");
    expect(configError(() => build({ apiKey: "   " })).message).toMatch(/apiKey is empty/);
    expect(configError(() => build({ apiKey: 42 })).message).toMatch(/must be a string/);
  });

  it("skips optional credentials that are absent, but checks present ones", () => {
    const spec = (value: unknown) => [
      { in: "header" as const, name: "key", option: "apiKey", value: "k" },
      { in: "param" as const, name: "android-key", option: "androidKey", value, optional: true },
    ];
    expect(
      () => new Transport({ apiKey: "k", baseUrl: "https://x.id", fetch: scriptedFetch() }, spec(undefined)),
    ).not.toThrow();
    const error = configError(
      () => new Transport({ apiKey: "k", baseUrl: "https://x.id", fetch: scriptedFetch() }, spec("a b")),
    );
    expect(error.option).toBe("androidKey");
  });
});

describe("browser refusal", () => {
  const scope = globalThis as { window?: unknown; document?: unknown };
  afterEach(() => {
    delete scope.window;
    delete scope.document;
  });

  it("refuses to construct when a document or a window with a document exists", () => {
    scope.window = { document: {} };
    expect(configError(() => build({})).message).toMatch(/visible to every visitor/);
    delete scope.window;
    scope.document = {};
    expect(configError(() => build({})).option).toBe("dangerouslyAllowBrowser");
  });

  it("accepts a bare window alias without a document (Deno 1, edge sandboxes)", () => {
    scope.window = globalThis;
    expect(() => build({})).not.toThrow();
  });

  it("constructs with dangerouslyAllowBrowser: true", () => {
    scope.window = { document: {} };
    expect(() => build({ dangerouslyAllowBrowser: true })).not.toThrow();
  });
});

describe("numeric options and paths", () => {
  it("validates timeoutMs, maxRetries and maxRetryDelayMs", () => {
    expect(configError(() => build({ timeoutMs: 0 })).option).toBe("timeoutMs");
    expect(configError(() => build({ timeoutMs: 1.5 })).option).toBe("timeoutMs");
    expect(configError(() => build({ maxRetries: -1 })).option).toBe("maxRetries");
    expect(configError(() => build({ maxRetries: 11 })).option).toBe("maxRetries");
    expect(configError(() => build({ maxRetryDelayMs: -5 })).option).toBe("maxRetryDelayMs");
    expect(() => build({ maxRetries: 0, timeoutMs: 1 })).not.toThrow();
  });

  it("requires path overrides to start with a slash", () => {
    expect(configError(() => build({ paths: { op: "relative/path" } })).message).toMatch(/paths\.op/);
  });

  it("requires an options object and a fetch", () => {
    expect(configError(() => new Transport(null as never, [])).option).toBe("options");
    const original = globalThis.fetch;
    try {
      (globalThis as { fetch?: unknown }).fetch = undefined;
      expect(configError(() => new Transport({ apiKey: "k", baseUrl: "https://x.id" }, [])).option).toBe("fetch");
    } finally {
      globalThis.fetch = original;
    }
  });
});
