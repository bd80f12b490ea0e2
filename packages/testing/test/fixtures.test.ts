import {
  cancelPaymentInputSchema,
  cancelPaymentResultSchema,
  courierCostOptionSchema,
  createPaymentInputSchema,
  domesticDestinationSchema,
  generatedQrisSchema,
  generateQrisInputSchema,
  internationalDestinationSchema,
  locationSchema,
  metaEnvelopeSchema,
  orderStatusWebhookSchema,
  paymentCallbackSchema,
  paymentMethodSchema,
  paymentRecordSchema,
  proCitySchema,
  proCostResultSchema,
  proCurrencySchema,
  proInternationalCostResultSchema,
  proInternationalDestinationSchema,
  proInternationalOriginSchema,
  proProvinceSchema,
  proSubdistrictSchema,
  provinceSchema,
  proWaybillSchema,
  qrisPaymentExpiredEventSchema,
  qrisPaymentStatusSchema,
  qrisPaymentSuccessEventSchema,
  rajaongkirEnvelopeSchema,
  readQrisAmount,
  registerWebhookInputSchema,
  registerWebhookResultSchema,
  successEnvelopeSchema,
  uploadedQrisSchema,
  verifyQrisCrc,
  waybillSchema,
} from "@kirimbayar/core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { createFixtures, fixtures as shared } from "../src/index.js";

const f = createFixtures({ seed: "schema-check" });

// Parse an enveloped body with core's envelope schema, then its payload with the operation's schema.
function meta<T extends z.ZodType>(body: unknown, schema: T): z.output<T> {
  return schema.parse(metaEnvelopeSchema.parse(body).data);
}
function success<T extends z.ZodType>(body: unknown, schema: T): z.output<T> {
  return schema.parse(successEnvelopeSchema.parse(body).data);
}
function legacy<T extends z.ZodType>(
  body: { rajaongkir: Record<string, unknown> },
  key: "results" | "result",
  schema: T,
): z.output<T> {
  rajaongkirEnvelopeSchema.parse(body);
  return schema.parse(body.rajaongkir[key]);
}
function legacyAll<T extends z.ZodType>(body: { rajaongkir: Record<string, unknown> }, schema: T): z.output<T> {
  rajaongkirEnvelopeSchema.parse(body);
  return schema.parse(body.rajaongkir);
}

describe("fixtures are deterministic under a seed", () => {
  it("repeats the same sequence for the same seed and differs for another", () => {
    const sequence = (seed: string) => {
      const g = createFixtures({ seed });
      return [g.qrisPaymentSuccess(), g.paymentCreated(), g.orderStatus(), g.qrisGenerated()];
    };
    expect(sequence("a")).toEqual(sequence("a"));
    expect(sequence("a")).not.toEqual(sequence("b"));
    expect(shared.orderStatus({ status: "Selesai" }).status).toBe("Selesai");
  });

  it("derives UUIDs (v4 layout) from the seed", () => {
    const event = createFixtures({ seed: 7 }).qrisPaymentSuccess();
    expect(event.data.qris_history_id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(event.data.qris_history_id).toBe(createFixtures({ seed: 7 }).qrisPaymentSuccess().data.qris_history_id);
  });

  it("derives the missing one of amount and original_amount with a small unique code", () => {
    const charged = f.qrisPaymentSuccess({ amount: 100_123 });
    expect(charged.data.amount).toBe(100_123);
    expect(charged.data.amount - charged.data.original_amount).toBeGreaterThanOrEqual(1);
    expect(charged.data.amount - charged.data.original_amount).toBeLessThanOrEqual(999);
    const quoted = f.qrisPaymentSuccess({ original_amount: 50_000 });
    expect(quoted.data.amount).toBeGreaterThan(50_000);
    expect(f.qrisPaymentSuccess({ amount: 1, original_amount: 1 }).data).toMatchObject({
      amount: 1,
      original_amount: 1,
    });
  });
});

describe("every fixture is accepted by core's own schemas", () => {
  it("payment gateway requests, responses and callback", () => {
    expect(createPaymentInputSchema.parse(f.paymentCreateRequest()).amount).toBeGreaterThanOrEqual(10_000);
    expect(() => createPaymentInputSchema.parse(f.paymentCreateRequest({ amount: 5_000 }))).toThrow();
    cancelPaymentInputSchema.parse(f.paymentCancelRequest());
    expect(meta(f.paymentMethods(), z.array(paymentMethodSchema)).length).toBe(8);
    expect(meta(f.paymentCreated({ amount: 20_000 }), paymentRecordSchema)).toMatchObject({
      status: "PENDING",
      amount: 20_000,
    });
    const status = meta(f.paymentStatus(), paymentRecordSchema);
    expect(status.status).toBe("PAID");
    expect(status.payment_id).toMatch(/\//);
    expect(meta(f.paymentCancelled(), cancelPaymentResultSchema)?.status).toBe("CANCELED");
    expect(paymentCallbackSchema.parse(f.paymentCallback({ status: "EXPIRED" })).status).toBe("EXPIRED");
  });

  it("QR service requests, responses, webhooks and QR strings", () => {
    generateQrisInputSchema.parse(f.qrisGenerateRequest());
    const generated = success(f.qrisGenerated({ original_amount: 80_000 }), generatedQrisSchema);
    expect(generated.original_amount).toBe(80_000);
    const qr = String(generated.qris_string);
    expect(verifyQrisCrc(qr)).toBe(true);
    expect(readQrisAmount(qr)).toBe(generated.final_amount);
    expect(success(f.qrisPaymentStatus({ payment_status: "expired" }), qrisPaymentStatusSchema).payment_status).toBe(
      "expired",
    );
    success(f.qrisUploaded(), uploadedQrisSchema);
    expect(qrisPaymentSuccessEventSchema.parse(f.qrisPaymentSuccess({ amount: 100_001 })).data.amount).toBe(100_001);
    expect(qrisPaymentExpiredEventSchema.parse(f.qrisPaymentExpired()).event).toBe("payment.expired");
  });

  it("current shipping interface", () => {
    expect(meta(f.domesticDestinations({ search: "kuta" }), z.array(domesticDestinationSchema)).length).toBeGreaterThan(
      1,
    );
    expect(metaEnvelopeSchema.parse(f.domesticDestinations({ search: "zzz" })).meta.code).toBe(404);
    meta(f.internationalDestinations({ search: "jap" }), z.array(internationalDestinationSchema));
    expect(meta(f.provinces(), z.array(provinceSchema))).toHaveLength(34);
    meta(f.cities(11), z.array(locationSchema));
    meta(f.districts(444), z.array(locationSchema));
    meta(f.subdistricts(44_401), z.array(locationSchema));
    expect(meta(f.domesticCost({ weight: 3000 }), z.array(courierCostOptionSchema)).length).toBeGreaterThan(0);
    meta(f.districtDomesticCost(), z.array(courierCostOptionSchema));
    meta(f.internationalCost(), z.array(courierCostOptionSchema));
    expect(meta(f.waybill({ delivered: true }), waybillSchema).delivered).toBe(true);
  });

  it("Pro and Starter interfaces", () => {
    expect(legacy(f.proProvinces(), "results", z.array(proProvinceSchema))).toHaveLength(34);
    legacy(f.proProvinces({ id: "6" }), "results", proProvinceSchema);
    legacy(f.proCities({ province: "9" }), "results", z.array(proCitySchema));
    legacy(f.proSubdistricts({ city: "23" }), "results", z.array(proSubdistrictSchema));
    expect(legacyAll(f.proCost({ courier: "jne:tiki" }), proCostResultSchema).results).toHaveLength(2);
    legacy(f.proInternationalOrigins(), "results", z.array(proInternationalOriginSchema));
    legacy(f.proInternationalDestinations(), "results", z.array(proInternationalDestinationSchema));
    legacyAll(f.proInternationalCost(), proInternationalCostResultSchema);
    legacy(f.proCurrency(), "result", proCurrencySchema);
    legacy(f.proWaybill({ courier: "sicepat" }), "result", proWaybillSchema);
    legacy(f.starterProvinces(), "results", z.array(proProvinceSchema));
    legacy(f.starterCities(), "results", z.array(proCitySchema));
    expect(legacyAll(f.starterCost({ courier: "pos" }), proCostResultSchema).results[0]?.code).toBe("pos");
    expect(f.starterCost({ courier: "sicepat" }).rajaongkir.status.code).toBe(400);
  });

  it("order service", () => {
    expect(orderStatusWebhookSchema.parse(f.orderStatus({ status: "Dikirim" })).status).toBe("Dikirim");
    registerWebhookInputSchema.parse(f.orderWebhookRegistration());
    registerWebhookResultSchema.parse(f.orderWebhookRegistered());
  });
});
