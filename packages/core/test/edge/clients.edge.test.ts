// @vitest-environment edge-runtime
// Re-runs the transport and API client suites inside an edge-like global scope (@edge-runtime/vm: Web fetch,
// Request/Response, FormData, Blob, AbortController). That environment still exposes `process` and `Buffer`, so
// runtime neutrality itself is enforced by tsc (`types: []`) and Biome; this run proves the clients work with the
// edge runtime's Web classes.
import { expect, it } from "vitest";
import "../http-transport.test.js";
import "../http-retry.test.js";
import "../payment-client.test.js";
import "../qris-client.test.js";
import "../orders-client.test.js";

it("runs in the edge-runtime environment", () => {
  expect((globalThis as { EdgeRuntime?: unknown }).EdgeRuntime).toBe("edge-runtime");
});
