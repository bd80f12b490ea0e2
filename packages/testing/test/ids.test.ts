// Ids a shop stores or keys on never come back: not after `reset()`, not from another fake, not in another process
// or a later run. An app's database and idempotency store outlive all of those.
import { execFile } from "node:child_process";
import { access } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { PaymentGatewayClient, QrisClient } from "@kirimbayar/core";
import { createWebhookReceiver, MemoryIdempotencyStore, tokenVerifier } from "@kirimbayar/core/webhooks";
import { beforeAll, describe, expect, it } from "vitest";
import { createFakeProvider, type FakeProvider, type FakeProviderOptions } from "../src/index.js";
import { scriptedReceiver, validPayment } from "./helpers.js";

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const dist = fileURLToPath(new URL("../dist/index.js", import.meta.url));

/** Everything with an id one round of a test makes: QR codes, payments (one paid: a callback), orders, deliveries. */
async function oneRound(provider: FakeProvider) {
  const qris = new QrisClient({ apiKey: provider.apiKeys.qris[0]!, baseUrl: provider.baseUrl, fetch: provider.fetch });
  const payments = new PaymentGatewayClient({
    apiKey: provider.apiKeys.payment[0]!,
    baseUrl: provider.baseUrl,
    fetch: provider.fetch,
  });
  const codes = [];
  for (const amount of [25_000, 25_000, 60_000]) {
    codes.push((await qris.generateQris({ qris_id: 1, amount, output_type: "string" })).data);
  }
  const created = [];
  for (const order_id of ["INV-1", "INV-2"]) {
    const body = validPayment({ order_id, callback_url: "https://shop.test/cb", callback_api_key: "cb-key-123" });
    created.push((await payments.createPayment(body as never)).data);
  }
  const orders = [provider.orders.create(), provider.orders.create({ courier: "sicepat" })];
  await provider.qris.pay(String(codes[0]?.history_id));
  await provider.payments.pay(String(created[0]?.payment_id));
  await provider.orders.setStatus(orders[0]!.orderNo, "Dijemput");
  return {
    historyIds: codes.map((c) => String(c.history_id)),
    // Not an id, but a shop may store it: two codes never share a QRIS string either.
    qrisStrings: codes.map((c) => c.qris_string),
    paymentIds: created.map((p) => String(p.payment_id)),
    vaNumbers: created.map((p) => String(p.va_number)),
    orderNos: orders.map((o) => o.orderNo),
    waybills: orders.map((o) => o.cnote),
    deliveryIds: provider.deliveries.map((d) => d.deliveryId),
  };
}

type Round = Awaited<ReturnType<typeof oneRound>>;

function fakeWith(options: FakeProviderOptions = {}) {
  const receiver = scriptedReceiver();
  return createFakeProvider({
    seed: "same-seed",
    webhooks: { qrisUrl: "https://shop.test/q", ordersUrl: "https://shop.test/o", fetch: receiver.fetch },
    ...options,
  });
}

describe('ids by default (ids: "unique")', () => {
  it("never repeat within a fake, across reset() or across fakes with the same seed", async () => {
    const rounds: Round[] = [];
    for (const provider of [fakeWith(), fakeWith()]) {
      for (let round = 0; round < 3; round++) {
        rounds.push(await oneRound(provider));
        provider.reset();
      }
    }
    for (const kind of Object.keys(rounds[0]!) as (keyof Round)[]) {
      const all = rounds.flatMap((round) => round[kind]);
      expect(all.length, kind).toBeGreaterThanOrEqual(rounds.length * 2);
      expect(new Set(all).size, `${kind} repeated: ${all.join(" ")}`).toBe(all.length);
    }
    // Still shaped like the services' ids.
    const last = rounds.at(-1)!;
    for (const id of last.historyIds) expect(id).toMatch(UUID_V7);
    for (const id of last.paymentIds) expect(id).toMatch(/^KPAY-\d{22}\/KM\/2026$/);
    for (const va of last.vaNumbers) expect(va).toMatch(/^8808\d{12}$/);
    for (const no of last.orderNos) expect(no).toMatch(/^KOM\d{22}$/);
    expect(last.waybills[0]).toMatch(/^JN\d{22}$/);
    expect(last.waybills[1]).toMatch(/^SI\d{22}$/);
  });

  it("are time-ordered from the wall clock, whatever the fake's clock says", async () => {
    const before = Date.now();
    const past = fakeWith({ clock: new Date("2020-01-01T00:00:00Z") });
    const future = fakeWith({ clock: new Date("2030-01-01T00:00:00Z") });
    const rounds = [await oneRound(future), await oneRound(past), await oneRound(future)];
    const after = Date.now();
    const historyIds = rounds.flatMap((r) => r.historyIds);
    expect([...historyIds].sort()).toEqual(historyIds);
    const numbers = rounds.flatMap((r) => r.paymentIds).map((id) => BigInt(/^KPAY-(\d+)\//.exec(id)?.[1] ?? "0"));
    expect(numbers.every((n, i) => i === 0 || n > numbers[i - 1]!)).toBe(true);
    // A version-7 UUID's first 48 bits are the Unix time in milliseconds it was made.
    const madeAt = Number.parseInt(historyIds[0]!.replace(/-/g, "").slice(0, 12), 16);
    expect(madeAt).toBeGreaterThanOrEqual(before);
    expect(madeAt).toBeLessThanOrEqual(after);
  });

  it("give each test's payment to an app whose idempotency store kept the previous tests' records", async () => {
    // The app's store lives as long as its database: across reset(), across fakes.
    const store = new MemoryIdempotencyStore();
    const receiver = createWebhookReceiver({
      source: "qris",
      verify: [tokenVerifier({ secrets: ["t0k3n"], in: "query" })],
      idempotency: { store },
    });
    const paid: string[] = [];
    receiver.on("payment.success", async (event) => {
      paid.push(String(event.data.qris_history_id));
    });
    const run = async (provider: FakeProvider) => {
      const qris = new QrisClient({
        apiKey: provider.apiKeys.qris[0]!,
        baseUrl: provider.baseUrl,
        fetch: provider.fetch,
      });
      const { data } = await qris.generateQris({ qris_id: 1, amount: 50_000, output_type: "string" });
      await provider.qris.pay(String(data.history_id));
      return provider.deliveries.at(-1);
    };
    const options = (ids?: "seeded"): FakeProviderOptions => ({
      ...(ids ? { ids } : {}),
      webhooks: { qrisUrl: "https://shop.test/q?token=t0k3n", fetch: (request) => receiver.fetch(request) },
    });
    const suiteFake = createFakeProvider(options());
    await run(suiteFake);
    suiteFake.reset();
    await run(suiteFake);
    await run(createFakeProvider(options()));
    expect(paid).toHaveLength(3);
    expect(new Set(paid).size).toBe(3);

    // Seeded ids are the explicit opposite: the next test's payment is the previous test's id, a duplicate.
    const seeded = createFakeProvider(options("seeded"));
    await run(seeded);
    seeded.reset();
    const second = await run(seeded);
    expect(paid).toHaveLength(4);
    expect(second).toMatchObject({ status: 200, acknowledged: true });
  });

  it("refuses an unknown ids mode", () => {
    expect(() => createFakeProvider({ ids: "random" as never })).toThrow(/ids must be "unique" or "seeded"/);
  });
});

describe("ids across processes and test runs", () => {
  beforeAll(async () => {
    await access(dist).catch(() => {
      throw new Error("dist/index.js is missing: run `pnpm --filter @kirimbayar/testing build` first");
    });
  });

  // A test run in a process of its own: a fake, QR codes, payments and orders, its ids printed as JSON.
  const script = `
    const { createFakeProvider } = await import(${JSON.stringify(dist)});
    const provider = createFakeProvider();
    const key = (s) => ({ "X-API-Key": provider.apiKeys[s][0], "content-type": "application/json" });
    const ids = [];
    for (let i = 0; i < 40; i++) {
      const qr = await provider.fetch(provider.baseUrl + "/user/api/v1/qr/generate-qris", {
        method: "POST", headers: key("qris"), body: JSON.stringify({ qris_id: 1, amount: 20000, output_type: "string" }),
      });
      ids.push((await qr.json()).data.history_id);
      const payment = await provider.fetch(provider.baseUrl + "/user/api/v1/user/payment/create", {
        method: "POST", headers: key("payment"), body: JSON.stringify(${JSON.stringify(validPayment())}),
      });
      ids.push((await payment.json()).data.payment_id);
      ids.push(provider.orders.create().orderNo);
      provider.reset();
    }
    console.log(JSON.stringify(ids));
  `;
  const runProcess = async (): Promise<string[]> => {
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", script], {
      timeout: 20_000,
    });
    return JSON.parse(stdout);
  };

  it("never share an id between two processes at once, and a later run's ids sort after an earlier run's", async () => {
    const [a, b] = await Promise.all([runProcess(), runProcess()]);
    const later = await runProcess();
    const all = [...a, ...b, ...later];
    expect(all).toHaveLength(360);
    expect(new Set(all).size).toBe(all.length);
    const earliest = (ids: string[]) => ids.filter((id) => UUID_V7.test(id)).sort()[0]!;
    const latest = (ids: string[]) =>
      ids
        .filter((id) => UUID_V7.test(id))
        .sort()
        .at(-1)!;
    expect(earliest(later) > latest([...a, ...b])).toBe(true);
  });
});
