import { afterEach, describe, expect, it } from "vitest";
import type { RunningServer } from "../src/index.js";
import { fake, validPayment } from "./helpers.js";

let server: RunningServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("provider.listen", () => {
  it("serves the same stateful world over real HTTP on 127.0.0.1", async () => {
    const provider = fake();
    server = await provider.listen({ port: 0, host: "127.0.0.1" });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const created = await fetch(`${server.url}/user/api/v1/user/payment/create`, {
      method: "POST",
      headers: { "X-API-Key": provider.apiKeys.payment[0] ?? "", "content-type": "application/json" },
      body: JSON.stringify(validPayment()),
    });
    expect(created.status).toBe(200);
    expect(created.headers.get("x-ratelimit-remaining")).toBe("599");
    const { data } = await created.json();
    await provider.payments.pay(data.payment_id);
    const status = await fetch(`${server.url}/user/api/v1/user/payment/status/${encodeURIComponent(data.payment_id)}`, {
      headers: { "X-API-Key": provider.apiKeys.payment[0] ?? "" },
    });
    expect((await status.json()).data.status).toBe("PAID");
  });

  it("drops the connection for an injected network error", async () => {
    const provider = fake();
    server = await provider.listen();
    provider.failNext({ networkError: true });
    const error = await fetch(`${server.url}/api/v1/destination/province`, {
      headers: { key: provider.apiKeys.shipping[0] ?? "" },
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TypeError);
    const after = await fetch(`${server.url}/api/v1/destination/province`, {
      headers: { key: provider.apiKeys.shipping[0] ?? "" },
    });
    expect(after.status).toBe(200);
  });

  it("parses form bodies and multipart uploads over HTTP", async () => {
    const provider = fake();
    server = await provider.listen();
    const form = new FormData();
    form.set("name", "Kasir HTTP");
    form.set("qris_image", new Blob([new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 0])], { type: "image/jpeg" }), "q.jpg");
    const upload = await fetch(`${server.url}/user/api/v1/qrisly/upload-qris`, {
      method: "POST",
      headers: { "X-API-Key": provider.apiKeys.qris[0] ?? "" },
      body: form,
    });
    expect((await upload.json()).data.name).toBe("Kasir HTTP");
    const cost = await fetch(`${server.url}/starter/cost`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        key: provider.apiKeys.starter[0] ?? "",
        origin: "152",
        destination: "444",
        weight: "1000",
        courier: "pos",
      }),
    });
    expect((await cost.json()).rajaongkir.results[0].code).toBe("pos");
  });
});
