// `output_type: "image"` returns a real, scannable QR code of the CRC-checked QRIS string.
import { PaymentGatewayClient, parseQrisPayload, QrisClient } from "@kirimbayar/core";
import { describe, expect, it } from "vitest";
import { fake, validPayment } from "./helpers.js";
import { decodeQrDataUrl, decodeQrPng } from "./qr-decode.js";

describe("QR images", () => {
  it("generateQris with output_type image returns a PNG that decodes to the same QRIS string", async () => {
    const provider = fake();
    const qris = new QrisClient({
      apiKey: provider.apiKeys.qris[0] ?? "",
      baseUrl: provider.baseUrl,
      fetch: provider.fetch,
    });
    const { data } = await qris.generateQris({ qris_id: 1, amount: 125_000, output_type: "image" });
    expect(data.qris_image).toMatch(/^data:image\/png;base64,/);
    const decoded = decodeQrDataUrl(String(data.qris_image));
    const code = provider.qris.get(String(data.history_id));
    expect(decoded).toBe(code?.qrisString);
    // What the phone reads is a valid QRIS payload charging the final amount.
    expect(parseQrisPayload(decoded ?? "").tags.find((tag) => tag.id === "54")?.value).toBe(String(code?.finalAmount));
  });

  it("a string-only code gets no image, and the simulator serves the same picture for every code", async () => {
    const provider = fake({ controlApi: true });
    const qris = new QrisClient({
      apiKey: provider.apiKeys.qris[0] ?? "",
      baseUrl: provider.baseUrl,
      fetch: provider.fetch,
    });
    const { data } = await qris.generateQris({ qris_id: 1, amount: 20_000, output_type: "string" });
    expect((data as { qris_image?: string }).qris_image).toBeUndefined();
    const image = await provider.fetch(`${provider.baseUrl}/__fake/qris/${data.history_id}/image.png`);
    expect(image.status).toBe(200);
    expect(image.headers.get("content-type")).toBe("image/png");
    expect(decodeQrPng(new Uint8Array(await image.arrayBuffer()))).toBe(data.qris_string);
    const missing = await provider.fetch(`${provider.baseUrl}/__fake/qris/nope/image.png`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).message).toMatch(/no QR code with history_id nope/);
  });

  it("a gateway QRIS payment's qr_string is served as an image too", async () => {
    const provider = fake({ controlApi: true });
    const client = new PaymentGatewayClient({
      apiKey: provider.apiKeys.payment[0] ?? "",
      baseUrl: provider.baseUrl,
      fetch: provider.fetch,
    });
    const { data } = await client.createPayment({ ...validPayment({ payment_type: "qris" }), channel_code: undefined });
    const image = await provider.fetch(
      `${provider.baseUrl}/__fake/payments/qr.png?payment_id=${encodeURIComponent(data.payment_id)}`,
    );
    expect(decodeQrPng(new Uint8Array(await image.arrayBuffer()))).toBe(data.qr_string);
  });
});
