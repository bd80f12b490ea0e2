// The fake's answers keep their JSON text and make the body stream only when asked (src/fake/json-reply.ts): they
// must still behave as the Response a real server's fetch returns, read whichever way.
import { describe, expect, it } from "vitest";
import { createFakeProvider } from "../src/index.js";

const QRIS_GENERATE = "/user/api/v1/qr/generate-qris";

async function generate(provider = createFakeProvider()): Promise<Response> {
  return provider.fetch(`${provider.baseUrl}${QRIS_GENERATE}`, {
    method: "POST",
    headers: { "x-api-key": provider.apiKeys.qris[0] as string, "content-type": "application/json" },
    body: JSON.stringify({ qris_id: 1, amount: 50_000, output_type: "string" }),
  });
}

describe("the fake's JSON answers", () => {
  it("are Responses with status, JSON content type and rate-limit headers, read once with text() or json()", async () => {
    const response = await generate();
    expect(response).toBeInstanceOf(Response);
    expect(response.status).toBe(200);
    expect(response.ok).toBe(true);
    expect(response.headers.get("content-type")).toBe("application/json");
    expect(response.headers.get("x-ratelimit-remaining")).toBe("599");
    expect(response.bodyUsed).toBe(false);
    const body = JSON.parse(await response.text()) as { success: boolean; data: { payment_status: string } };
    expect(body.success).toBe(true);
    expect(body.data.payment_status).toBe("unpaid");
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(TypeError);
    await expect(response.json()).rejects.toThrow(TypeError);
    await expect(response.arrayBuffer()).rejects.toThrow(TypeError);
    expect(() => response.clone()).toThrow(TypeError);
  });

  it("give the same bytes through body, arrayBuffer, blob and a clone", async () => {
    const provider = createFakeProvider({ ids: "seeded" });
    const text = await (await generate(provider)).text();
    provider.reset();
    const streamed = await generate(provider);
    const chunks: Uint8Array[] = [];
    for await (const chunk of streamed.body as unknown as AsyncIterable<Uint8Array>) chunks.push(chunk);
    expect(Buffer.concat(chunks).toString("utf8")).toBe(text);
    expect(streamed.bodyUsed).toBe(true);
    await expect(streamed.text()).rejects.toThrow(TypeError);

    provider.reset();
    const original = await generate(provider);
    const copy = original.clone();
    expect(copy.status).toBe(200);
    expect(copy.headers.get("content-type")).toBe("application/json");
    expect(new TextDecoder().decode(await original.arrayBuffer())).toBe(text);
    expect(await copy.json()).toEqual(JSON.parse(text));

    provider.reset();
    expect(await (await (await generate(provider)).blob()).text()).toBe(text);
  });

  it("wrap into a new Response, and error answers read the same way", async () => {
    const provider = createFakeProvider();
    const rewrapped = new Response((await generate(provider)).body, { status: 201 });
    expect((JSON.parse(await rewrapped.text()) as { success: boolean }).success).toBe(true);
    const unauthorised = await provider.fetch(`${provider.baseUrl}${QRIS_GENERATE}`, { method: "POST" });
    expect(unauthorised.status).toBe(401);
    expect(((await unauthorised.json()) as { success: boolean }).success).toBe(false);
  });
});
