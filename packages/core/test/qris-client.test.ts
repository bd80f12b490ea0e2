import { describe, expect, it } from "vitest";
import { ApiError, AuthenticationError } from "../src/errors/api-error.js";
import { RequestValidationError, ResponseValidationError } from "../src/errors/validation.js";
import { QRISLY_GENERATE_PATH, QrisClient } from "../src/qris/client.js";
import { MAX_QRIS_IMAGE_BYTES } from "../src/qris/image.js";
import { fakeTime, json, scriptedFetch } from "./http-support.js";

const BASE = "https://sandbox.qris.example.id";
const KEY = "qris-key-0123456789";

const client = (fetch: ReturnType<typeof scriptedFetch>, extra = {}) => {
  const time = fakeTime();
  return new QrisClient({ apiKey: KEY, baseUrl: BASE, fetch, clock: time.clock, sleep: time.sleep, ...extra });
};

const generated = {
  success: true,
  message: "QRIS generated successfully",
  data: {
    history_id: "5b0c6a8e-2f7a-4a53-9a55-5d0f1f7c6e11",
    qris_string:
      "00020101021226670016COM.NOBUBANK.WWW0118936005030000000000520454995303360540610000153037802ID6304ABCD",
    original_amount: 100_000,
    final_amount: 100_001,
    payment_status: "unpaid",
    expiry_time: "2026-05-01 10:15:00",
  },
};

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46]);

describe("generateQris", () => {
  it("POSTs the JSON body to the spec path with X-API-Key and unwraps { success, message, data }", async () => {
    const fetch = scriptedFetch(json(generated));
    const result = await client(fetch).generateQris({
      qris_id: 12,
      amount: 100_000,
      output_type: "string",
      unique_amount: true,
    });
    const call = fetch.calls[0]!;
    expect(call.method).toBe("POST");
    expect(call.url.href).toBe(`${BASE}/user/api/v1/qr/generate-qris`);
    expect(call.headers.get("x-api-key")).toBe(KEY);
    expect(call.headers.get("content-type")).toBe("application/json");
    expect(call.body).toBe(
      JSON.stringify({ qris_id: 12, amount: 100_000, output_type: "string", unique_amount: true }),
    );
    expect(result.data.final_amount).toBe(100_001);
    expect(result.data.payment_status).toBe("unpaid");
    expect(result.data.expiry_time).toBe("2026-05-01 10:15:00");
    expect(result.data.expiry_time_date?.toISOString()).toBe("2026-05-01T03:15:00.000Z");
    expect(result.message).toBe("QRIS generated successfully");
  });

  it.each([
    ["2026-05-01T03:15:00Z", "2026-05-01T03:15:00.000Z"],
    ["2026-05-01T10:15:00+07:00", "2026-05-01T03:15:00.000Z"],
    // Unreadable: the documented default, 15 minutes from generation (the fake clock starts at 2026-01-01).
    ["not a time", "2026-01-01T00:15:00.000Z"],
  ])("parses expiry_time %s", async (raw, iso) => {
    const fetch = scriptedFetch(json({ ...generated, data: { ...generated.data, expiry_time: raw } }));
    const { data } = await client(fetch).generateQris({ qris_id: 1, amount: 1000, output_type: "image" });
    expect(data.expiry_time).toBe(raw);
    expect(data.expiry_time_date?.toISOString()).toBe(iso);
  });

  it("uses the qrisly path through the paths option", async () => {
    const fetch = scriptedFetch(json(generated));
    await client(fetch, { paths: { generateQris: QRISLY_GENERATE_PATH } }).generateQris({
      qris_id: 1,
      amount: 1000,
      output_type: "string",
    });
    expect(fetch.calls[0]?.url.pathname).toBe("/user/api/v1/qrisly/generate-qris");
  });

  it("validates amount range, integer and output_type before sending", async () => {
    const fetch = scriptedFetch(json(generated));
    const qris = client(fetch);
    const issues = async (input: unknown) =>
      ((await qris.generateQris(input as never).catch((e: unknown) => e)) as RequestValidationError).issues.map(
        (i) => i.path,
      );
    expect(await issues({ qris_id: 1, amount: 999, output_type: "string" })).toEqual(["amount"]);
    expect(await issues({ qris_id: 1, amount: 100_000_001, output_type: "string" })).toEqual(["amount"]);
    expect(await issues({ qris_id: 1.5, amount: 1500.5, output_type: " " })).toEqual([
      "qris_id",
      "amount",
      "output_type",
    ]);
    expect(await issues({ amount: 1000, output_type: "string", unique_amount: "yes" })).toEqual([
      "qris_id",
      "unique_amount",
    ]);
    expect(fetch.calls).toHaveLength(0);
    // An output type the spec does not list is the provider's to judge: sent as is.
    await qris.generateQris({ qris_id: 1, amount: 1000, output_type: "svg" });
    expect(JSON.parse(String(fetch.calls[0]?.body)).output_type).toBe("svg");
  });

  it("is never retried, and an error signalled by success:false is an ApiError", async () => {
    const fetch = scriptedFetch(json({ success: false, message: "QRIS not found" }, 500), json(generated));
    const error = (await client(fetch)
      .generateQris({ qris_id: 1, amount: 1000, output_type: "string" })
      .catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.providerMessage).toBe("QRIS not found");
    expect(fetch.calls).toHaveLength(1);
    const bodyOnly = scriptedFetch(json({ success: false, message: "Amount below minimum", data: null }));
    const second = (await client(bodyOnly)
      .generateQris({ qris_id: 1, amount: 1000, output_type: "string" })
      .catch((e: unknown) => e)) as ApiError;
    expect(second.status).toBe(200);
    expect(second.providerMessage).toBe("Amount below minimum");
  });

  it("maps 401 to AuthenticationError", async () => {
    const fetch = scriptedFetch(json({ success: false, message: "Invalid API key" }, 401));
    const error = await client(fetch)
      .generateQris({ qris_id: 1, amount: 1000, output_type: "string" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
  });

  it("throws ResponseValidationError when data lacks history_id", async () => {
    const fetch = scriptedFetch(json({ success: true, message: "ok", data: { qris_string: "x" } }));
    const error = (await client(fetch)
      .generateQris({ qris_id: 1, amount: 1000, output_type: "string" })
      .catch((e: unknown) => e)) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.issues[0]?.path).toBe("history_id");
    expect(error.rawBody).toContain("qris_string");
  });
});

describe("getQrisPaymentStatus", () => {
  it("GETs the status path with the id encoded, retries, and accepts aliases", async () => {
    const fetch = scriptedFetch(
      new TypeError("fetch failed"),
      json({
        success: true,
        message: "ok",
        data: { qris_history_id: "h/1", status: "paid", amount: "100001", paid_at: "2026-05-01T03:05:00Z" },
      }),
    );
    const { data } = await client(fetch).getQrisPaymentStatus("h/1");
    expect(fetch.calls).toHaveLength(2);
    expect(fetch.calls[1]?.method).toBe("GET");
    expect(fetch.calls[1]?.url.href).toBe(`${BASE}/user/api/v1/qrisly/payment-status/h%2F1`);
    expect(data.history_id).toBe("h/1");
    expect(data.payment_status).toBe("paid");
    expect(data.amount).toBe(100_001);
    expect(data.paid_at_date?.toISOString()).toBe("2026-05-01T03:05:00.000Z");
  });

  it("keeps unknown states", async () => {
    const fetch = scriptedFetch(
      json({ success: true, message: "ok", data: { history_id: 9, payment_status: "refunded" } }),
    );
    expect((await client(fetch).getQrisPaymentStatus(9)).data.payment_status).toBe("refunded");
  });
});

describe("uploadQris", () => {
  it("sends multipart name + qris_image typed by its magic bytes", async () => {
    const fetch = scriptedFetch(json({ success: true, message: "uploaded", data: { qris_id: 42 } }));
    const result = await client(fetch).uploadQris({
      name: "Toko Budi",
      qris_image: new Blob([JPEG], { type: "image/png" }),
    });
    const call = fetch.calls[0]!;
    expect(call.method).toBe("POST");
    expect(call.url.pathname).toBe("/user/api/v1/qrisly/upload-qris");
    expect(call.headers.get("x-api-key")).toBe(KEY);
    expect(call.headers.get("content-type")).toBeNull();
    const form = call.body as FormData;
    expect(form.get("name")).toBe("Toko Budi");
    const file = form.get("qris_image") as File;
    expect(file.type).toBe("image/jpeg");
    expect(file.name).toBe("qris.jpg");
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(JPEG);
    expect(result.data.qris_id).toBe(42);
  });

  it("accepts PNG bytes as a Uint8Array", async () => {
    const fetch = scriptedFetch(json({ success: true, message: "uploaded", data: { qris_id: "q-1" } }));
    await client(fetch).uploadQris({ name: "Toko", qris_image: PNG });
    expect(((fetch.calls[0]!.body as FormData).get("qris_image") as File).type).toBe("image/png");
  });

  it.each([
    ["a GIF", new Uint8Array([0x47, 0x49, 0x46, 0x38, 0x39, 0x61]), /PNG or JPEG/],
    ["an empty file", new Uint8Array(), /empty/],
    ["a file over 5 MB", new Uint8Array(MAX_QRIS_IMAGE_BYTES + 1).fill(0xff), /larger than 5 MB/],
    ["a string", "iVBORw0KGgo=", /Blob, File or Uint8Array/],
  ])("rejects %s before sending, together with the other issues", async (_, image, message) => {
    const fetch = scriptedFetch(json({}));
    const error = (await client(fetch)
      .uploadQris({ name: "", qris_image: image as never })
      .catch((e: unknown) => e)) as RequestValidationError;
    expect(error).toBeInstanceOf(RequestValidationError);
    expect(error.issues.map((i) => i.path)).toEqual(["name", "qris_image"]);
    expect(error.issues[1]?.message).toMatch(message);
    expect(fetch.calls).toHaveLength(0);
  });

  it("is never retried", async () => {
    const fetch = scriptedFetch(json({}, 502));
    await expect(client(fetch).uploadQris({ name: "Toko", qris_image: PNG })).rejects.toBeInstanceOf(ApiError);
    expect(fetch.calls).toHaveLength(1);
  });
});
