// Item 6 of the exactly-once issue: what a shop relies on is required in the result types, derived by a documented
// rule when the service leaves it out, and a typed ResponseShapeError carrying the raw body otherwise. The types are
// checked too: the assignments below would not compile if a field were still nullable.
import { describe, expect, it } from "vitest";
import { ResponseShapeError, ResponseValidationError } from "../src/errors/validation.js";
import { withQrisCrc } from "../src/helpers/qris-payload.js";
import { PaymentGatewayClient } from "../src/payment/client.js";
import { QrisClient } from "../src/qris/client.js";
import { fakeTime, json, scriptedFetch } from "./http-support.js";

const KEY = "key-SENTINEL-0123456789";
const BASE = "https://sandbox.example.id";
const time = fakeTime(Date.UTC(2026, 4, 1, 3, 0, 0));
const options = (fetch: ReturnType<typeof scriptedFetch>) => ({
  apiKey: KEY,
  baseUrl: BASE,
  fetch,
  clock: time.clock,
  sleep: time.sleep,
});
const qris = (body: unknown) => new QrisClient(options(scriptedFetch(json(body))));
const payments = (body: unknown) => new PaymentGatewayClient(options(scriptedFetch(json(body))));

// An EMVCo payload with amount 100001 in tag 54 and a correct CRC.
const QR_WITH_AMOUNT = withQrisCrc("00020101021252045499530336054061000015802ID5908TOKOBUDI6007JAKARTA");

async function shapeError(call: Promise<unknown>): Promise<ResponseShapeError> {
  const error = await call.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ResponseShapeError);
  expect(error).toBeInstanceOf(ResponseValidationError);
  const shape = error as ResponseShapeError;
  expect(shape.code).toBe("response_shape");
  expect(shape.message).not.toContain(KEY);
  return shape;
}

describe("generateQris: required fields", () => {
  const full = {
    history_id: "h-1",
    qris_string: QR_WITH_AMOUNT,
    original_amount: 100_000,
    final_amount: 100_001,
    payment_status: "unpaid",
    expiry_time: "2026-05-01 10:15:00",
  };
  const envelope = (data: Record<string, unknown>) => ({ success: true, message: "ok", data });

  it("types final_amount, original_amount, qris_string and the expiry as present for output_type string", async () => {
    const { data } = await qris(envelope(full)).generateQris({ qris_id: 1, amount: 100_000, output_type: "string" });
    const finalAmount: number = data.final_amount;
    const qrString: string = data.qris_string;
    const expiry: Date = data.expiry_time_date;
    expect([finalAmount, qrString.slice(0, 6), expiry.toISOString()]).toEqual([
      100_001,
      "000201",
      "2026-05-01T03:15:00.000Z",
    ]);
  });

  it("derives what a rule gives: amounts from the request or the QR's tag 54, unpaid, now + 15 minutes", async () => {
    const bare = { history_id: "h-2", qris_string: QR_WITH_AMOUNT };
    const fromQr = await qris(envelope(bare)).generateQris({ qris_id: 1, amount: 100_000, output_type: "string" });
    expect(fromQr.data).toMatchObject({
      original_amount: 100_000,
      final_amount: 100_001,
      payment_status: "unpaid",
    });
    expect(fromQr.data.expiry_time_date.toISOString()).toBe("2026-05-01T03:15:00.000Z");
    // No unique code asked for: the final amount is the requested one, whatever the QR says.
    const exact = await qris(envelope(bare)).generateQris({
      qris_id: 1,
      amount: 100_000,
      output_type: "string",
      unique_amount: false,
    });
    expect(exact.data.final_amount).toBe(100_000);
  });

  it("throws ResponseShapeError with the raw body when final_amount has no rule (unique code, no amount in the QR)", async () => {
    const body = envelope({ history_id: "h-3", qris_string: "not-an-emv-payload" });
    const error = await shapeError(qris(body).generateQris({ qris_id: 1, amount: 100_000, output_type: "string" }));
    expect(error.missing).toEqual(["final_amount"]);
    expect(error.operation).toBe("generateQris");
    expect(JSON.parse(error.rawBody)).toEqual(body);
  });

  it("throws when the QR string is missing for output_type string, but not for image", async () => {
    const body = envelope({ history_id: "h-4", final_amount: 100_001 });
    const error = await shapeError(qris(body).generateQris({ qris_id: 1, amount: 100_000, output_type: "string" }));
    expect(error.missing).toEqual(["qris_string"]);
    const image = await qris(body).generateQris({ qris_id: 1, amount: 100_000, output_type: "image" });
    expect(image.data.qris_string).toBeUndefined();
    expect(image.data.final_amount).toBe(100_001);
  });

  it("reads the { meta, data } envelope family the QR service also answers with", async () => {
    const { data } = await qris({ meta: { code: 200, status: "success", message: "OK" }, data: full }).generateQris({
      qris_id: 1,
      amount: 100_000,
      output_type: "string",
    });
    expect(data.history_id).toBe("h-1");
  });

  it("reads the flat { message, code, status } family as an error", async () => {
    const error = await qris({ message: "qris_id not found", code: 404, status: "error" })
      .generateQris({ qris_id: 1, amount: 100_000, output_type: "string" })
      .catch((caught: unknown) => caught);
    expect(error).toMatchObject({ name: "NotFoundError", message: expect.stringContaining("qris_id not found") });
  });
});

describe("getQrisPaymentStatus: required fields", () => {
  it("keeps the asked-for history_id and requires payment_status", async () => {
    const { data } = await qris({ success: true, data: { status: "paid" } }).getQrisPaymentStatus("h-9");
    const status: string = data.payment_status;
    expect([data.history_id, status]).toEqual(["h-9", "paid"]);
    const error = await shapeError(qris({ success: true, data: { amount: 5 } }).getQrisPaymentStatus("h-9"));
    expect(error.missing).toEqual(["payment_status"]);
  });
});

describe("createPayment: required fields", () => {
  const input = {
    order_id: "INV-1",
    payment_type: "bank_transfer" as const,
    channel_code: "BCA",
    amount: 150_000,
    customer: { name: "Budi", email: "budi@example.id", phone: "0812" },
    items: [{ name: "Kaos", quantity: 1, price: 150_000 }],
  };
  const meta = (data: Record<string, unknown>) => ({ meta: { code: 201, status: "success", message: "ok" }, data });

  it("derives order_id, amount and PENDING; types them as present", async () => {
    const { data } = await payments(meta({ payment_id: "KPAY-1", va_number: "8808123" })).createPayment(input);
    const amount: number = data.amount;
    const status: string = data.status;
    expect([data.payment_id, data.order_id, amount, status]).toEqual(["KPAY-1", "INV-1", 150_000, "PENDING"]);
  });

  it("throws ResponseShapeError for a missing payment_id or no way to pay, naming each", async () => {
    const error = await shapeError(payments(meta({ status: "PENDING" })).createPayment(input));
    expect(error.missing).toEqual(["payment_id", "va_number|payment_url|qr_string"]);
    expect(error.rawBody).toContain("PENDING");
    expect((await payments(meta({ payment_id: "K", payment_url: "https://pay" })).createPayment(input)).status).toBe(
      200,
    );
  });
});

describe("getPaymentStatus: required fields", () => {
  it("keeps the asked-for payment_id and requires status", async () => {
    const ok = await payments({ meta: { code: 200 }, data: { status: "PAID" } }).getPaymentStatus("KPAY-1/KM/2026");
    expect([ok.data.payment_id, ok.data.status]).toEqual(["KPAY-1/KM/2026", "PAID"]);
    const error = await shapeError(payments({ meta: { code: 200 }, data: { amount: 1 } }).getPaymentStatus("KPAY-2"));
    expect(error.missing).toEqual(["status"]);
  });
});
