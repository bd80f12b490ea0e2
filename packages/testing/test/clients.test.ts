import {
  AuthenticationError,
  ConnectionError,
  InvalidCourierError,
  NoCourierServiceError,
  OrderWebhookClient,
  PaymentGatewayClient,
  QrisClient,
  RateLimitError,
  RequestValidationError,
  ShippingClient,
  ShippingProClient,
  ShippingStarterClient,
  TimeoutError,
} from "@kirimbayar/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeProvider, type FakeProvider, type RunningServer } from "../src/index.js";

const GAMBIR = 1_520_101;
const BRAGA = 230_201;
const DARAT = 2_780_101;

type Mode = "in-process" | "http";

// Every client operation of core, once through `provider.fetch` (no sockets) and once over real HTTP.
describe.each<Mode>(["in-process", "http"])("core clients against the fake (%s)", (mode) => {
  let provider: FakeProvider;
  let server: RunningServer | undefined;
  let baseUrl = "";
  const transport = () => (mode === "in-process" ? { fetch: provider.fetch } : {});
  // No real waiting on retries inside tests.
  const common = () => ({ baseUrl, ...transport(), sleep: async () => {}, random: () => 0 });
  const key = (service: keyof FakeProvider["apiKeys"]) => provider.apiKeys[service][0] ?? "";

  beforeAll(async () => {
    provider = createFakeProvider({ seed: `clients-${mode}` });
    if (mode === "http") {
      server = await provider.listen({ port: 0, host: "127.0.0.1" });
      baseUrl = server.url;
    } else {
      baseUrl = provider.baseUrl;
    }
  });
  afterAll(async () => {
    await server?.close();
  });

  describe("PaymentGatewayClient", () => {
    const client = () => new PaymentGatewayClient({ apiKey: key("payment"), ...common() });
    const input = {
      order_id: "ORDER-77",
      payment_type: "bank_transfer" as const,
      channel_code: "BNI",
      amount: 125_000,
      customer: { name: "Dewi", email: "dewi@example.co.id", phone: "081298765432" },
      items: [{ name: "Tas Anyaman", quantity: 1, price: 125_000 }],
      expiry_duration: 3600,
    };

    it("listMethods", async () => {
      const result = await client().listMethods();
      expect(result.status).toBe(200);
      expect(result.data.map((m) => m.bank_code)).toContain("BNI");
      expect(result.rateLimit?.limit).toBe(600);
    });

    it("createPayment → getPaymentStatus (id with '/') → pay → PAID", async () => {
      const created = await client().createPayment(input);
      expect(created.data).toMatchObject({ status: "PENDING", amount: 125_000, bank_code: "BNI" });
      const id = String(created.data.payment_id);
      expect(id).toContain("/");
      expect((await client().getPaymentStatus(id)).data.status).toBe("PENDING");
      await provider.payments.pay(id);
      expect((await client().getPaymentStatus(id)).data.status).toBe("PAID");
    });

    it("cancelPayment; a cancelled VA stays cancelled", async () => {
      const id = String((await client().createPayment(input)).data.payment_id);
      const cancelled = await client().cancelPayment({ payment_id: id, reason: "Pembeli batal" });
      expect(cancelled.data?.status).toBe("CANCELED");
      await expect(provider.payments.pay(id)).rejects.toThrow(/CANCELED/);
      expect((await client().getPaymentStatus(id)).data.status).toBe("CANCELED");
      await expect(client().cancelPayment({ payment_id: id })).rejects.toMatchObject({ status: 400 });
    });

    it("validates before the network and maps a wrong key to AuthenticationError", async () => {
      const before = provider.requests.length;
      await expect(client().createPayment({ ...input, amount: 9_000, expiry_duration: 60 })).rejects.toBeInstanceOf(
        RequestValidationError,
      );
      expect(provider.requests.length).toBe(before);
      const wrong = new PaymentGatewayClient({ apiKey: "wrong-payment-key", ...common() });
      const error = await wrong.listMethods().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(AuthenticationError);
      expect(String((error as Error).message)).not.toContain("wrong-payment-key");
    });
  });

  describe("QrisClient", () => {
    const client = () => new QrisClient({ apiKey: key("qris"), ...common() });

    it("generateQris carries the unique code; getQrisPaymentStatus follows payment", async () => {
      const generated = await client().generateQris({ qris_id: 1, amount: 100_000, output_type: "string" });
      expect(generated.data.original_amount).toBe(100_000);
      expect(generated.data.final_amount).toBeGreaterThan(100_000);
      const historyId = String(generated.data.history_id);
      expect((await client().getQrisPaymentStatus(historyId)).data.payment_status).toBe("unpaid");
      await provider.qris.pay(historyId);
      expect((await client().getQrisPaymentStatus(historyId)).data.payment_status).toBe("paid");
    });

    it("uploadQris sends multipart and the new qris_id generates", async () => {
      const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
      const uploaded = await client().uploadQris({
        name: `Kasir ${mode}`,
        qris_image: new Blob([png], { type: "image/png" }),
      });
      const qrisId = Number(uploaded.data.qris_id);
      expect(qrisId).toBeGreaterThan(1);
      expect(
        (await client().generateQris({ qris_id: qrisId, amount: 10_000, output_type: "string", unique_amount: false }))
          .data.final_amount,
      ).toBe(10_000);
    });
  });

  describe("ShippingClient (current interface)", () => {
    const client = () => new ShippingClient({ apiKey: key("shipping"), ...common(), cache: false });

    it("searchDomesticDestinations / searchInternationalDestinations, empty on no match", async () => {
      expect((await client().searchDomesticDestinations({ search: "braga" })).data[0]?.id).toBe(BRAGA);
      expect((await client().searchDomesticDestinations({ search: "atlantis" })).data).toEqual([]);
      expect((await client().searchInternationalDestinations({ search: "malay" })).data[0]?.country_name).toBe(
        "Malaysia",
      );
    });

    it("iterates a search page by page", async () => {
      const ids: unknown[] = [];
      for await (const place of client().iterateDomesticDestinations({ search: "jakarta", pageSize: 4 }))
        ids.push(place.id);
      const all = (await client().searchDomesticDestinations({ search: "jakarta" })).data.map((p) => p.id);
      expect(ids).toEqual(all);
      expect(ids.length).toBeGreaterThan(4);
    });

    it("listProvinces → listCities → listDistricts → listSubdistricts", async () => {
      expect((await client().listProvinces()).data.find((p) => Number(p.id) === 5)?.name).toBe("DI Yogyakarta");
      expect((await client().listCities(5)).data.map((c) => c.name)).toEqual(["Yogyakarta"]);
      expect((await client().listDistricts(501)).data.map((d) => d.name)).toEqual(["Gondokusuman", "Gedong Tengen"]);
      expect((await client().listSubdistricts(50_101)).data.map((s) => s.zip_code)).toEqual(["55223", "55225"]);
    });

    it("calculateDomesticCost / calculateDistrictDomesticCost / calculateInternationalCost", async () => {
      const domestic = await client().calculateDomesticCost({
        origin: GAMBIR,
        destination: BRAGA,
        weight: 1000,
        courier: "jne:sicepat",
      });
      expect(domestic.data.length).toBeGreaterThan(2);
      const district = await client().calculateDistrictDomesticCost({
        origin: 15_201,
        destination: 2_302,
        weight: 1000,
        courier: "tiki",
      });
      const costs = district.data.map((o) => Number(o.cost));
      expect(costs).toEqual([...costs].sort((a, b) => a - b));
      const intl = await client().calculateInternationalCost({
        origin: GAMBIR,
        destination: "199",
        weight: 1000,
        courier: "pos",
      });
      expect(intl.data[0]?.code).toBe("pos");
    });

    it("maps the cost error table to typed errors", async () => {
      await expect(
        client().calculateDomesticCost({ origin: GAMBIR, destination: DARAT, weight: 1000, courier: "dse" }),
      ).rejects.toBeInstanceOf(NoCourierServiceError);
      await expect(
        client().calculateDomesticCost({ origin: GAMBIR, destination: BRAGA, weight: 1000, courier: "paxel" }),
      ).rejects.toBeInstanceOf(InvalidCourierError);
      await expect(
        client().calculateDomesticCost({ origin: 999, destination: BRAGA, weight: 1000, courier: "jne" }),
      ).rejects.toBeInstanceOf(NoCourierServiceError);
    });

    it("trackWaybill", async () => {
      const order = provider.orders.create({ courier: "jne", receiverPhone: "081211112222" });
      await provider.orders.setStatus(order.orderNo, "Dikirim");
      const tracked = await client().trackWaybill({ awb: order.cnote, courier: "jne", last_phone_number: "12222" });
      expect(tracked.data.delivered).toBe(false);
      expect(tracked.data.manifest?.length).toBe(2);
    });
  });

  describe("ShippingProClient", () => {
    const client = () => new ShippingProClient({ apiKey: key("pro"), ...common(), cache: false });

    it("listProvinces / listCities / listSubdistricts", async () => {
      expect((await client().listProvinces()).data.find((p) => String(p.province_id) === "11")?.province).toBe(
        "Jawa Timur",
      );
      expect((await client().listProvinces({ id: 1 })).data).toHaveLength(1);
      expect((await client().listCities({ province: 11 })).data.map((c) => c.city_name)).toEqual([
        "Surabaya",
        "Malang",
      ]);
      expect((await client().listSubdistricts({ city: 444 })).data.map((s) => s.subdistrict_name)).toEqual([
        "Genteng",
        "Gubeng",
      ]);
    });

    it("calculateCost city → subdistrict", async () => {
      const result = await client().calculateCost({
        origin: 152,
        originType: "city",
        destination: 1701,
        destinationType: "subdistrict",
        weight: 1000,
        courier: "jne:pos",
      });
      expect(result.data.results.map((r) => r.code)).toEqual(["jne", "pos"]);
    });

    it("international origins, destinations and cost; currency; waybill", async () => {
      expect((await client().listInternationalOrigins({ province: 1 })).data).toHaveLength(2);
      expect((await client().listInternationalDestinations()).data.length).toBeGreaterThanOrEqual(8);
      const cost = await client().calculateInternationalCost({
        origin: 152,
        destination: 98,
        weight: 1000,
        courier: "pos",
      });
      expect(cost.data.results[0]?.costs.length).toBeGreaterThan(0);
      expect(Number((await client().getCurrency()).data.value)).toBe(16_250);
      const order = provider.orders.create({ courier: "sicepat" });
      await provider.orders.setStatus(order.orderNo, "Selesai");
      const waybill = await client().trackWaybill({ waybill: order.cnote, courier: "sicepat" });
      expect(waybill.data.delivered).toBe(true);
    });
  });

  describe("ShippingStarterClient", () => {
    const client = () => new ShippingStarterClient({ apiKey: key("starter"), ...common(), cache: false });

    it("listProvinces / listCities / calculateCost", async () => {
      expect((await client().listProvinces()).data).toHaveLength(34);
      expect((await client().listCities({ id: 327 })).data[0]?.city_name).toBe("Palembang");
      const cost = await client().calculateCost({ origin: 327, destination: 318, weight: 2000, courier: "jne" });
      expect(cost.data.results[0]?.code).toBe("jne");
    });
  });

  describe("OrderWebhookClient", () => {
    it("registerWebhook sets where order webhooks go", async () => {
      const client = new OrderWebhookClient({ apiKey: key("orders"), ...common() });
      const result = await client.registerWebhook({ url: `https://shop.example.co.id/webhooks/orders?mode=${mode}` });
      expect(result.status).toBe(200);
      expect(provider.orders.webhookUrl).toBe(`https://shop.example.co.id/webhooks/orders?mode=${mode}`);
    });
  });

  describe("transport behaviour against faults", () => {
    it("retries a read after a 503 and after a dropped connection", async () => {
      const client = new ShippingClient({ apiKey: key("shipping"), ...common(), cache: false });
      provider.failNext({ path: "/api/v1/destination/province", status: 503 });
      provider.failNext({ path: "/api/v1/destination/province", networkError: true });
      expect((await client.listProvinces()).status).toBe(200);
      const tail = provider.requests.slice(-3).map((r) => r.status);
      expect(tail).toEqual([503, "network-error", 200]);
    });

    it("never retries a create after a 503", async () => {
      const client = new PaymentGatewayClient({ apiKey: key("payment"), ...common() });
      provider.failNext({ path: "/user/api/v1/user/payment/create", status: 503 });
      const before = provider.requests.length;
      await expect(
        client.createPayment({
          order_id: "X",
          payment_type: "bank_transfer",
          channel_code: "BCA",
          amount: 10_000,
          customer: { name: "A", email: "a@b.co", phone: "0812" },
          items: [{ name: "x", quantity: 1, price: 10_000 }],
        }),
      ).rejects.toMatchObject({ status: 503 });
      expect(provider.requests.length - before).toBe(1);
    });

    it("surfaces a dropped connection on a write as ConnectionError, and a slow answer as TimeoutError", async () => {
      const client = new QrisClient({ apiKey: key("qris"), ...common(), timeoutMs: 50, maxRetries: 0 });
      provider.failNext({ path: "/user/api/v1/qr/generate-qris", networkError: true });
      await expect(client.generateQris({ qris_id: 1, amount: 10_000, output_type: "string" })).rejects.toBeInstanceOf(
        ConnectionError,
      );
      provider.failNext({ path: "/user/api/v1/qr/generate-qris", delayMs: 1_000 });
      await expect(client.generateQris({ qris_id: 1, amount: 10_000, output_type: "string" })).rejects.toBeInstanceOf(
        TimeoutError,
      );
    });

    it("maps 429 to RateLimitError with the reset from the headers", async () => {
      const limited = createFakeProvider({ rateLimit: { limit: 1, windowMs: 60_000 } });
      const client = new ShippingClient({
        apiKey: limited.apiKeys.shipping[0] ?? "",
        baseUrl: limited.baseUrl,
        fetch: limited.fetch,
        maxRetries: 0,
        cache: false,
      });
      await client.listProvinces();
      const error = await client.listProvinces().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(RateLimitError);
      expect((error as RateLimitError).retryAfterMs).toBe(60_000);
    });
  });
});
