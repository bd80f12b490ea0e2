import { NoCourierServiceError, ShippingClient } from "@kirimbayar/core";
import { describe, expect, it } from "vitest";
import { type FakeProvider, SHIPPING_MESSAGES } from "../src/index.js";
import { api, fake } from "./helpers.js";

const GAMBIR = 1_520_101;
const BRAGA = 230_201;
const route = { origin: GAMBIR, destination: BRAGA, weight: 1_000 };

function clientOf(provider: FakeProvider) {
  return new ShippingClient({
    apiKey: provider.apiKeys.shipping[0] ?? "",
    baseUrl: provider.baseUrl,
    fetch: provider.fetch,
    maxRetries: 0,
  });
}

const codesOf = (options: { code: string }[]) => [...new Set(options.map((o) => o.code))];

describe("fake shipping: faults of single couriers in the multi-courier cost call", () => {
  it("a slow courier slows the whole call by its delay; the others alone answer at once", async () => {
    const provider = fake();
    provider.setCourierFault("sicepat", { delayMs: 300 });
    const shipping = clientOf(provider);
    let started = performance.now();
    const { data } = await shipping.calculateDomesticCost({ ...route, courier: "jne:sicepat:pos" });
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    expect(codesOf(data)).toEqual(["jne", "sicepat", "pos"]);
    started = performance.now();
    await shipping.calculateDomesticCost({ ...route, courier: "jne:pos" });
    expect(performance.now() - started).toBeLessThan(250);
  });

  it("a failing courier fails every call that names it with its status, and no other call", async () => {
    const provider = fake();
    provider.setCourierFault("jnt", { status: 503 });
    const shipping = clientOf(provider);
    const failed = await shipping.calculateDomesticCost({ ...route, courier: ["jne", "jnt"] }).catch((e) => e);
    expect(failed).toMatchObject({ status: 503, retryable: true, providerMessage: "Courier jnt is unavailable" });
    const { data } = await shipping.calculateDistrictDomesticCost({
      origin: 15_201,
      destination: 2_302,
      weight: 500,
      courier: "jne",
    });
    expect(codesOf(data)).toEqual(["jne"]);
    const raw = await api(provider).shipping.form("/api/v1/calculate/international-cost", {
      origin: GAMBIR,
      destination: "108",
      weight: 500,
      courier: "jnt:pos",
    });
    expect(raw.status).toBe(503);
    expect((await raw.json()).meta).toEqual({ message: "Courier jnt is unavailable", code: 503, status: "error" });
  });

  it("a refusing courier is left out; a call of refusing couriers only is 'Calculate … not found'", async () => {
    const provider = fake();
    provider.setCourierFault("anteraja", { refuse: true });
    provider.setCourierFault("jnt", { refuse: true });
    const shipping = clientOf(provider);
    const { data } = await shipping.calculateDomesticCost({ ...route, courier: "jne:anteraja" });
    expect(codesOf(data)).toEqual(["jne"]);
    const none = await shipping.calculateDomesticCost({ ...route, courier: "anteraja:jnt" }).catch((e) => e);
    expect(none).toBeInstanceOf(NoCourierServiceError);
    expect(none.providerMessage).toBe(SHIPPING_MESSAGES.costNotFound);
  });

  it("`times` limits a fault to that many calls naming the courier; undefined clears one, clearFaults and reset all", async () => {
    const provider = fake();
    const shipping = clientOf(provider);
    provider.setCourierFault("pos", { status: 500, times: 2 });
    const outcomes = [];
    for (let i = 0; i < 3; i++) {
      outcomes.push(
        await shipping.calculateDomesticCost({ ...route, courier: "pos" }).then(
          () => "ok",
          (e: { status: number }) => e.status,
        ),
      );
    }
    expect(outcomes).toEqual([500, 500, "ok"]);

    provider.setCourierFault("pos", { refuse: true });
    provider.setCourierFault("pos", undefined);
    await expect(shipping.calculateDomesticCost({ ...route, courier: "pos" })).resolves.toBeDefined();
    provider.setCourierFault("jne", { refuse: true });
    provider.clearFaults();
    await expect(shipping.calculateDomesticCost({ ...route, courier: "jne" })).resolves.toBeDefined();
    provider.setCourierFault("jne", { refuse: true });
    provider.reset();
    await expect(shipping.calculateDomesticCost({ ...route, courier: "jne" })).resolves.toBeDefined();
  });

  it("applies to the legacy cost calls (Pro, Starter, Pro international) in their own envelope", async () => {
    const provider = fake();
    const starterForm = { origin: "501", destination: "114", weight: 1_200 };
    provider.setCourierFault("tiki", { delayMs: 300, refuse: true });
    const started = performance.now();
    const starter = await (
      await api(provider).starter.form("/starter/cost", { ...starterForm, courier: "jne:tiki" })
    ).json();
    expect(performance.now() - started).toBeGreaterThanOrEqual(290);
    // A refusing courier stays in the answer with no services, as the legacy interface answers a route it does not serve.
    const byCode = Object.fromEntries(
      starter.rajaongkir.results.map((r: { code: string; costs: unknown[] }) => [r.code, r.costs.length]),
    );
    expect(byCode.tiki).toBe(0);
    expect(byCode.jne).toBeGreaterThan(0);

    provider.setCourierFault("pos", { status: 503, message: "POS is down" });
    const failed = await api(provider).pro.form("/api/cost", {
      origin: "501",
      originType: "city",
      destination: "114",
      destinationType: "city",
      weight: 1_200,
      courier: "jne:pos",
    });
    expect(failed.status).toBe(503);
    expect((await failed.json()).rajaongkir.status).toEqual({ code: 503, description: "POS is down" });
    const international = await api(provider).pro.form("/api/v2/internationalCost", {
      origin: "152",
      destination: "199",
      weight: 1_000,
      courier: "pos",
    });
    expect(international.status).toBe(503);
    const unharmed = await api(provider).pro.form("/api/cost", {
      origin: "501",
      originType: "city",
      destination: "114",
      destinationType: "city",
      weight: 1_200,
      courier: "jne",
    });
    expect(unharmed.status).toBe(200);
  });

  it("refuses a fault it cannot apply", () => {
    const provider = fake();
    expect(() => provider.setCourierFault("jne:pos", { refuse: true })).toThrow(/one courier code/);
    expect(() => provider.setCourierFault("jne", {})).toThrow(/delayMs, status or refuse/);
    expect(() => provider.setCourierFault("jne", { status: 200 })).toThrow(/error status/);
    expect(() => provider.setCourierFault("jne", { delayMs: -1 })).toThrow(/non-negative/);
    expect(() => provider.setCourierFault("jne", { refuse: true, times: 0 })).toThrow(/positive integer/);
  });

  it("applies the faults to calls over HTTP too, and a slow courier's call is cut by the caller's timeout", async () => {
    const provider = fake();
    const server = await provider.listen();
    try {
      provider.setCourierFault("sicepat", { delayMs: 2_000 });
      const shipping = new ShippingClient({
        apiKey: provider.apiKeys.shipping[0] ?? "",
        baseUrl: server.url,
        maxRetries: 0,
        timeoutMs: 200,
      });
      const late = await shipping.calculateDomesticCost({ ...route, courier: "jne:sicepat" }).catch((e) => e);
      expect(late.code).toBe("timeout");
      const { data } = await shipping.calculateDomesticCost({ ...route, courier: "jne" });
      expect(codesOf(data)).toEqual(["jne"]);
    } finally {
      await server.close();
    }
  });
});
