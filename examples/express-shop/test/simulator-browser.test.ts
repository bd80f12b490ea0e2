// Issue #19, end to end: the real Express shop against the fake provider over HTTP (wall clock, control API on, as
// `kirimbayar-fake serve` runs it), and the fake's simulator page in headless Chromium (Debian's `chromium`, or
// CHROMIUM_PATH) driven by playwright-core. The shop creates a QR payment through its own API; the page lists it,
// its image decodes back to the shop's QRIS string, its Pay button delivers the webhook to the shop, and the shop's
// order is paid.
import { existsSync } from "node:fs";
import { loadShopConfig, type Order, webhookUrls } from "@kirimbayar/example-shop-domain";
import { createFakeProvider, type FakeProvider, type RunningServer } from "@kirimbayar/testing";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningShop, startShop } from "../src/server.js";
import { decodeQrDataUrl, decodeQrPng } from "./qr-decode.js";

// What the callbacks run in the page use of its globals, typed here: the example compiles without the DOM library.
interface PageImage {
  complete: boolean;
  naturalWidth: number;
  naturalHeight: number;
}
interface PageCanvas {
  width: number;
  height: number;
  getContext(kind: "2d"): { drawImage(image: PageImage, x: number, y: number): void } | null;
  toDataURL(type: "image/png"): string;
}
declare const document: {
  querySelector(selector: string): PageImage | null;
  createElement(tag: "canvas"): PageCanvas;
};

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const WEBHOOK_SECRET = "webhook-secret-for-the-browser-test";
const CALLBACK_API_KEY = "callback-key-for-the-browser-test";
/** Gambir, Jakarta Pusat: the warehouse. */
const ORIGIN_ID = 15_201_01;

// Without Chromium the test fails with this message (CI installs Debian's package): never a silent skip.
const missingChromium = existsSync(CHROMIUM)
  ? undefined
  : `The simulator's browser test needs Chromium at ${CHROMIUM}: install Debian's "chromium" package ` +
    "(apt-get install chromium) or point CHROMIUM_PATH at a Chromium or Chrome binary.";

let provider: FakeProvider | undefined;
let fake: RunningServer | undefined;
let shop: RunningShop | undefined;
let browser: Browser | undefined;
let page: Page | undefined;
/** Script errors of the page and errors it logs (a CSP violation, a failed fetch): none expected. */
const pageErrors: string[] = [];

/** The shop's environment pointing at the fake: every service at its one base URL, reconciliation off. */
function shopEnv(fakeProvider: FakeProvider, fakeUrl: string): Record<string, string> {
  return {
    PORT: "0",
    HOST: "127.0.0.1",
    KIRIMBAYAR_PAYMENT_API_KEY: fakeProvider.apiKeys.payment[0] ?? "",
    KIRIMBAYAR_PAYMENT_BASE_URL: fakeUrl,
    KIRIMBAYAR_QRIS_API_KEY: fakeProvider.apiKeys.qris[0] ?? "",
    KIRIMBAYAR_QRIS_ID: "1",
    KIRIMBAYAR_CALLBACK_API_KEY: CALLBACK_API_KEY,
    KIRIMBAYAR_SHIPPING_API_KEY: fakeProvider.apiKeys.shipping[0] ?? "",
    KIRIMBAYAR_SHIPPING_BASE_URL: fakeUrl,
    KIRIMBAYAR_ORDERS_API_KEY: fakeProvider.apiKeys.orders[0] ?? "",
    KIRIMBAYAR_ORDERS_BASE_URL: fakeUrl,
    KIRIMBAYAR_WEBHOOK_SECRET: WEBHOOK_SECRET,
    SHOP_ORIGIN_ID: String(ORIGIN_ID),
    // Only the webhook may pay the order here: no reconciliation asking the fake behind the page's back.
    SHOP_RECONCILE_EVERY_MS: "0",
  };
}

/** A JSON request with a bounded wait; answers the status and the parsed body. */
async function call<T>(url: string, init: RequestInit = {}): Promise<{ status: number; body: T }> {
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  return { status: response.status, body: (await response.json()) as T };
}

/** The fake, the shop and the browser, once all are up; throws why not otherwise. */
function ready(): { fake: RunningServer; shop: RunningShop; page: Page } {
  if (missingChromium) throw new Error(missingChromium);
  if (!fake || !shop || !page) throw new Error("the fake, the shop or the browser did not start (see beforeAll)");
  return { fake, shop, page };
}

/** The simulator's element id for a QR code (`domId` of its page: anything but `[A-Za-z0-9_-]` becomes `_`). */
function qrCardId(historyId: string): string {
  return `qr-${historyId}`.replace(/[^A-Za-z0-9_-]/g, "_");
}

/** An <img> of the page as the browser decoded it, redrawn on a canvas at its own size and read back as a PNG. */
async function imageAsPng(on: Page, selector: string): Promise<Uint8Array> {
  const dataUrl = await on.$eval(selector, (element) => {
    const image = element as unknown as PageImage;
    const canvas = document.createElement("canvas");
    canvas.width = image.naturalWidth;
    canvas.height = image.naturalHeight;
    const context = canvas.getContext("2d");
    if (!context || canvas.width === 0) throw new Error("the image did not load");
    context.drawImage(image, 0, 0);
    return canvas.toDataURL("image/png");
  });
  return Buffer.from(dataUrl.slice(dataUrl.indexOf(",") + 1), "base64");
}

beforeAll(async () => {
  if (missingChromium) return;
  // As `kirimbayar-fake serve` sets it up: the wall clock, the control API and the simulator page, on loopback.
  provider = createFakeProvider({ clock: "real", controlApi: true, seed: "express-shop-browser" });
  fake = await provider.listen({ port: 0, host: "127.0.0.1" });
  shop = await startShop(loadShopConfig(shopEnv(provider, fake.url)));
  // The QR webhook URL is a dashboard setting at the real provider: set it through the fake's control API.
  const qrisWebhookUrl = webhookUrls(shop.url, WEBHOOK_SECRET).qris;
  const set = await call<{ url: string | null }>(`${fake.url}/__fake/qris/webhook-url`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ url: qrisWebhookUrl }),
  });
  if (set.status !== 200 || set.body.url !== qrisWebhookUrl) {
    throw new Error(`the fake refused the QR webhook URL: HTTP ${set.status} ${JSON.stringify(set.body)}`);
  }
  // Tests run as root in CI: Chromium's sandbox needs a user namespace it may not get there.
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--headless=new"],
    timeout: 30_000,
  });
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(15_000);
  page.setDefaultNavigationTimeout(15_000);
  page.on("pageerror", (error) => pageErrors.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    if (message.type() === "error") pageErrors.push(`console: ${message.text()} at ${message.location().url}`);
  });
  page.on("response", (response) => {
    if (response.status() >= 400) pageErrors.push(`HTTP ${response.status()} ${response.url()}`);
  });
}, 60_000);

afterAll(async () => {
  // The browser first (its page polls the fake every second), then the shop, then the fake its webhooks came from.
  await browser?.close();
  await shop?.close();
  await fake?.close();
}, 30_000);

interface CreatedOrder {
  order: Order;
  qris: { qris_string: string; final_amount: number; expires_at: string | undefined; image_data_url: string };
}

// A busy CI machine runs this beside every other project: room for a slow browser, every wait still bounded.
describe("simulator page in Chromium driving the Express shop", { timeout: 60_000 }, () => {
  it("lists the shop's QR payment, its image scans to the shop's QRIS string, Pay delivers the webhook and the order is paid", async () => {
    const { fake, shop, page } = ready();

    // The shop's own API, as its storefront would call it: a destination, then an order paid by QRIS.
    const found = await call<{ data: { id: number; label: string }[] }>(
      `${shop.url}/shipping/destinations?search=braga`,
    );
    expect(found.status).toBe(200);
    const destination = found.body.data.find((d) => d.label.startsWith("BRAGA"));
    if (!destination) throw new Error(`no BRAGA destination in ${JSON.stringify(found.body.data)}`);
    const created = await call<{ data: CreatedOrder }>(`${shop.url}/orders`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        customer: { name: "Sari Wulandari", email: "sari@example.test", phone: "081234567890" },
        items: [{ name: "Kopi Gayo 250 g", quantity: 2, price: 85_000, weight: 250 }],
        destination_id: destination.id,
        courier: "sicepat",
        service: "REG",
      }),
    });
    expect(created.status).toBe(201);
    const { order, qris } = created.body.data;
    expect(order.status).toBe("awaiting_payment");
    const payment = order.payments[0];
    if (payment?.method !== "qris") throw new Error(`expected a QRIS payment, got ${JSON.stringify(payment)}`);
    // The shop's own picture of the code says the same as its string.
    expect(decodeQrDataUrl(qris.image_data_url)).toBe(qris.qris_string);

    // The simulator lists the code the shop made, with the amount the shop was quoted.
    await page.goto(`${fake.url}/__fake/simulator`);
    const cardId = qrCardId(payment.history_id);
    const card = page.locator(`#${cardId}`);
    await card.waitFor();
    await expect(card.locator("h3").textContent()).resolves.toBe(
      `Rp ${new Intl.NumberFormat("id-ID").format(qris.final_amount)}`,
    );
    await expect(card.locator(".badge").textContent()).resolves.toBe("unpaid");
    await expect(card.locator("dd code").first().textContent()).resolves.toBe(payment.history_id);

    // Its image, as the browser decoded it, scans back to the very QRIS string the shop got.
    await page.waitForFunction(
      (selector) => {
        const image = document.querySelector(selector);
        return image?.complete === true && image.naturalWidth > 0;
      },
      `#${cardId} img`,
      { timeout: 15_000 },
    );
    expect(decodeQrPng(await imageAsPng(page, `#${cardId} img`))).toBe(qris.qris_string);

    // Pay: the page posts to the control API, the fake delivers payment.success to the shop's webhook route.
    await page.click(`#${cardId}-pay`);
    const row = page.locator("#log tbody tr", { hasText: "payment.success" });
    await row.waitFor({ timeout: 15_000 });
    const rowText = (await row.textContent()) ?? "";
    expect(rowText).toMatch(/200\s*acknowledged/);
    // Sent to the shop's QR webhook route, with the token redacted on the page.
    expect(rowText).toContain(`POST ${shop.url}/webhooks/qris?token=[redacted]`);
    expect(rowText).not.toContain(WEBHOOK_SECRET);
    await expect(card.locator(".badge").textContent()).resolves.toBe("paid");
    await expect(page.locator(`#${cardId}-pay`).count()).resolves.toBe(0);
    await expect(page.locator("#status").textContent()).resolves.toMatch(/^Pay: done for QR code/);

    // The shop's API: the order is paid, by that webhook (not by reconciliation), once.
    await expect
      .poll(async () => (await call<{ data: Order }>(`${shop.url}/orders/${order.id}`)).body.data.status, {
        timeout: 5_000,
        interval: 100,
      })
      .toBe("paid");
    const paid = (await call<{ data: Order }>(`${shop.url}/orders/${order.id}`)).body.data;
    expect(paid.payments[0]).toMatchObject({ method: "qris", state: "paid", history_id: payment.history_id });
    const paidEvents = paid.events.filter((e) => e.type === "payment.success");
    expect(paidEvents).toHaveLength(1);
    expect(paidEvents[0]).toMatchObject({ source: "qris" });
    expect(paidEvents[0]?.detail).toContain(`QR ${payment.history_id}`);
    expect(paidEvents[0]?.detail).not.toMatch(/reconciliation/);
    expect(shop.runtime.handlers.unmatched).toEqual([]);

    // And the fake's record of the delivery agrees with the page.
    const deliveries = provider?.deliveries.filter((d) => d.event === "payment.success") ?? [];
    expect(deliveries).toHaveLength(1);
    expect(deliveries[0]).toMatchObject({ status: 200, acknowledged: true, attempt: 1 });
    expect(pageErrors).toEqual([]);
  });
});
