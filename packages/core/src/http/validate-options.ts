import { ConfigurationError } from "../errors/validation.js";

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]"]);

/**
 * Trims the key and rejects an empty key or one with whitespace inside. Messages never include the key.
 *
 * @example
 * normalizeApiKey("  abc  ", "apiKey"); // "abc"
 */
export function normalizeApiKey(value: unknown, option: string): string {
  if (typeof value !== "string") {
    throw new ConfigurationError(option, `${option} must be a string (got ${value === null ? "null" : typeof value})`);
  }
  const key = value.trim();
  if (key === "") throw new ConfigurationError(option, `${option} is empty`);
  if (/\s/.test(key)) {
    throw new ConfigurationError(
      option,
      `${option} contains whitespace inside it (often a line break or space pasted with the key): copy the key again`,
    );
  }
  return key;
}

/**
 * Parses `baseUrl`: required, absolute, `https:` (or `http:` for localhost or with `allowInsecureHttp`), without
 * credentials, query or fragment. Returns it without a trailing slash.
 *
 * @example
 * normalizeBaseUrl("https://api.example.id/", false); // "https://api.example.id"
 */
export function normalizeBaseUrl(value: unknown, allowInsecureHttp: boolean): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw new ConfigurationError("baseUrl", "baseUrl is required (e.g. the sandbox address from your dashboard)");
  }
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigurationError("baseUrl", "baseUrl must be an absolute URL such as https://api.example.id");
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") {
    throw new ConfigurationError("baseUrl", `baseUrl must use https: (got ${url.protocol})`);
  }
  if (url.protocol === "http:" && !LOOPBACK_HOSTS.has(url.hostname) && !allowInsecureHttp) {
    throw new ConfigurationError(
      "baseUrl",
      "baseUrl uses http: — the API key would travel unencrypted. Use https:, or set allowInsecureHttp: true for a test server",
    );
  }
  if (url.username !== "" || url.password !== "") {
    throw new ConfigurationError("baseUrl", "baseUrl must not contain credentials; pass the key as apiKey");
  }
  if (url.search !== "" || url.hash !== "") {
    throw new ConfigurationError("baseUrl", "baseUrl must not contain a query string or fragment");
  }
  return url.href.replace(/\/+$/, "");
}

/**
 * Refuses to run in a browser page unless explicitly allowed. A page is recognised by a global `document`, or a
 * global `window` that carries one; a bare `window` alias of `globalThis` (Deno 1, edge sandboxes) is not a page.
 *
 * @example
 * assertNotInBrowser(false); // throws in a browser, returns elsewhere
 */
export function assertNotInBrowser(dangerouslyAllowBrowser: boolean): void {
  const scope = globalThis as { window?: { document?: unknown }; document?: unknown };
  const inBrowser = scope.document !== undefined || scope.window?.document !== undefined;
  if (dangerouslyAllowBrowser || !inBrowser) return;
  throw new ConfigurationError(
    "dangerouslyAllowBrowser",
    "kirimbayar API clients must run on a server: in a browser the API key is visible to every visitor. " +
      "Call your backend instead, or set dangerouslyAllowBrowser: true if you accept that risk",
  );
}

/**
 * Checks a non-negative integer option (timeouts, retry counts).
 *
 * @example
 * checkCount(3, "maxRetries", 0, 10); // 3
 */
export function checkCount(value: unknown, option: string, min: number, max: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new ConfigurationError(option, `${option} must be an integer from ${min} to ${max}`);
  }
  return value;
}
