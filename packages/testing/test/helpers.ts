import { createFakeProvider, type FakeProvider, type FakeProviderOptions } from "../src/index.js";

/** Calls the fake through its in-process fetch with the right key for `service`. */
export function api(provider: FakeProvider) {
  const keys = provider.apiKeys;
  const call = (path: string, init: RequestInit = {}) => provider.fetch(`${provider.baseUrl}${path}`, init);
  const json = (method: string, path: string, body: unknown, headers: Record<string, string>) =>
    call(path, { method, headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) });
  const form = (path: string, fields: Record<string, string | number>, headers: Record<string, string>) =>
    call(path, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded", ...headers },
      body: new URLSearchParams(Object.entries(fields).map(([k, v]): [string, string] => [k, String(v)])).toString(),
    });
  return {
    call,
    payment: {
      get: (path: string) => call(path, { headers: { "X-API-Key": keys.payment[0] ?? "" } }),
      post: (path: string, body: unknown) => json("POST", path, body, { "X-API-Key": keys.payment[0] ?? "" }),
    },
    qris: {
      get: (path: string) => call(path, { headers: { "X-API-Key": keys.qris[0] ?? "" } }),
      post: (path: string, body: unknown) => json("POST", path, body, { "X-API-Key": keys.qris[0] ?? "" }),
    },
    shipping: {
      get: (path: string) => call(path, { headers: { key: keys.shipping[0] ?? "" } }),
      form: (path: string, fields: Record<string, string | number>) =>
        form(path, fields, { key: keys.shipping[0] ?? "" }),
    },
    pro: {
      get: (path: string) => call(path, { headers: { key: keys.pro[0] ?? "" } }),
      form: (path: string, fields: Record<string, string | number>) =>
        form(path, { key: keys.pro[0] ?? "", ...fields }, {}),
    },
    starter: {
      get: (path: string) => call(`${path}${path.includes("?") ? "&" : "?"}key=${keys.starter[0]}`),
      form: (path: string, fields: Record<string, string | number>) =>
        form(path, { key: keys.starter[0] ?? "", ...fields }, {}),
    },
    orders: {
      put: (path: string, body: unknown) => json("PUT", path, body, { "x-api-key": keys.orders[0] ?? "" }),
    },
  };
}

/** A fake provider with the defaults tests rely on. */
export function fake(options: FakeProviderOptions = {}): FakeProvider {
  return createFakeProvider({ seed: "tests", ...options });
}

/** A receiver stand-in that records what it got and answers with a scripted sequence of statuses. */
export function scriptedReceiver(statuses: number[] = []) {
  const received: { url: string; method: string; headers: Headers; body: string }[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    received.push({ url: request.url, method: request.method, headers: request.headers, body: await request.text() });
    const status = statuses[received.length - 1] ?? 200;
    return Response.json({ success: status === 200, message: status === 200 ? "ok" : "failed" }, { status });
  };
  return { received, fetch };
}

/** Payment create body that passes every rule. */
export function validPayment(overrides: Record<string, unknown> = {}) {
  return {
    order_id: "ORDER-1",
    payment_type: "bank_transfer",
    channel_code: "BCA",
    amount: 150_000,
    customer: { name: "Budi", email: "budi@example.co.id", phone: "081234567890" },
    items: [{ name: "Kaos", quantity: 1, price: 150_000 }],
    expiry_duration: 3600,
    ...overrides,
  };
}
