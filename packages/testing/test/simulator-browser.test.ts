// The simulator page in a real browser: headless Chromium (Debian's `chromium`, or CHROMIUM_PATH) driven by
// playwright-core, against the fake over HTTP and a small shop that receives the webhooks over HTTP too.
import { existsSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { QrisClient } from "@kirimbayar/core";
import { createWebhookReceiver, tokenVerifier } from "@kirimbayar/core/webhooks";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeProvider, type FakeProvider, type RunningServer } from "../src/index.js";
import { decodeQrPng } from "./qr-decode.js";

// What the callbacks run in the page use of its globals, typed here: the package compiles without the DOM library.
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
  activeElement: { id: string } | null;
  documentElement: { scrollWidth: number };
  querySelector(selector: string): PageImage | null;
  createElement(tag: "canvas"): PageCanvas;
};
declare const window: { innerWidth: number; stayed?: boolean };

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SHOP_TOKEN = "shop-webhook-token";
/** What the log shows of an attempt still waiting for the app's answer. */
const IN_FLIGHT = "waiting for the app's answer";

/** A tiny shop: checkout creates a QR payment at the fake, the webhook marks the order paid. */
async function startShop(fakeUrl: () => string, qrisKey: string) {
  const orders = new Map<string, { historyId: string; status: "awaiting_payment" | "paid" }>();
  // While set, every webhook waits for it before being answered: a slow app, as long as a test wants.
  let gate: Promise<void> | undefined;
  const receiver = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [SHOP_TOKEN], in: "query" })],
  }).on("payment.success", (event) => {
    for (const order of orders.values()) {
      if (order.historyId === String(event.data.qris_history_id)) order.status = "paid";
    }
  });
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      void (async () => {
        await gate;
        const answer = await receiver.handle({
          method: request.method ?? "POST",
          url: request.url ?? "/",
          headers: request.headers,
          rawBody: Buffer.concat(chunks),
        });
        response.writeHead(answer.status, answer.headers).end(answer.body);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    webhookUrl: `${url}/webhooks/qris?token=${SHOP_TOKEN}`,
    orders,
    /** What the shop's checkout does: a QR code for the order's amount, from the fake over HTTP. */
    async checkout(orderId: string, amount: number) {
      const qris = new QrisClient({ apiKey: qrisKey, baseUrl: fakeUrl(), maxRetries: 0 });
      const { data } = await qris.generateQris({ qris_id: 1, amount, output_type: "string" });
      orders.set(orderId, { historyId: String(data.history_id), status: "awaiting_payment" });
      return data;
    },
    /** Holds every webhook's answer until the returned function is called. */
    slowDown(): () => void {
      let release = () => {};
      gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      return () => {
        gate = undefined;
        release();
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A delivery log row is drawn as its attempt is sent; this waits (bounded by the page's timeout) for the answer. */
async function answeredRow(text: string) {
  const row = page.locator("#log tbody tr", { hasText: text });
  await row.filter({ hasNotText: IN_FLIGHT }).waitFor();
  return row;
}

/** An <img> of the page as the browser decoded it, redrawn on a canvas at its own size and read back as a PNG. */
async function imageAsPng(selector: string): Promise<Uint8Array> {
  const dataUrl = await page.$eval(selector, (element) => {
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

let browser: Browser | undefined;
let page: Page;
let provider: FakeProvider;
let fake: RunningServer | undefined;
let runningShop: Awaited<ReturnType<typeof startShop>> | undefined;

// Without Chromium every test fails with this message (CI installs Debian's package): never a silent skip.
const missingChromium = existsSync(CHROMIUM)
  ? undefined
  : `The simulator's browser test needs Chromium at ${CHROMIUM}: install Debian's "chromium" package ` +
    "(apt-get install chromium) or point CHROMIUM_PATH at a Chromium or Chrome binary.";

/** The shop, once the fake, the shop and the browser are up; throws why not otherwise. */
function ready(): NonNullable<typeof runningShop> {
  if (missingChromium) throw new Error(missingChromium);
  if (!runningShop || !browser) throw new Error("the fake, the shop or the browser did not start (see beforeAll)");
  return runningShop;
}

beforeAll(async () => {
  if (missingChromium) return;
  // Attempts wait up to 30 s for an answer: a loaded machine's slow page never turns the held answer below into a
  // timeout before the test has seen it in flight.
  provider = createFakeProvider({ controlApi: true, seed: "browser", webhooks: { timeoutMs: 30_000 } });
  fake = await provider.listen({ port: 0, host: "127.0.0.1" });
  runningShop = await startShop(() => fake?.url ?? "", provider.apiKeys.qris[0] ?? "");
  provider.qris.setWebhookUrl(runningShop.webhookUrl);
  // Tests run as root in CI: Chromium's sandbox needs a user namespace it may not get there.
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--headless=new"],
    timeout: 30_000,
  });
  // One page for the whole file: a new page costs about a second on a busy machine, a navigation much less.
  page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.setDefaultTimeout(15_000);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await fake?.close();
  await runningShop?.close();
}, 30_000);

async function open(path: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
  if (!fake) throw new Error("the fake did not start");
  await page.setViewportSize(viewport);
  await page.goto(`${fake.url}${path}`);
  return page;
}

// A busy CI machine runs this beside every other project: room for a slow page load, still bounded.
describe("simulator page in Chromium", { timeout: 30_000 }, () => {
  it("shows a QR payment made from code as a scannable image; Pay delivers the webhook and the order is paid", async () => {
    const shop = ready();
    const created = await shop.checkout("ORDER-1001", 125_000);
    await open("/__fake/simulator");
    const card = page.locator(`#qr-${created.history_id}`);
    await expect(card.locator("h3").textContent()).resolves.toBe(
      `Rp ${new Intl.NumberFormat("id-ID").format(created.final_amount)}`,
    );
    await page.waitForFunction((id) => document.querySelector(`#qr-${id} img`)?.complete === true, created.history_id);
    expect(decodeQrPng(await imageAsPng(`#qr-${created.history_id} img`))).toBe(created.qris_string);

    // The page updates itself: no navigation happens between the click and the log entry.
    await page.evaluate(() => {
      window.stayed = true;
    });
    await page.click(`#qr-${created.history_id}-pay`);
    // The row may first show the attempt in flight (the shop has not answered yet on a busy machine).
    const row = await answeredRow("payment.success");
    await expect(row.textContent()).resolves.toMatch(/200\s*acknowledged/);
    await expect(card.locator(".badge").textContent()).resolves.toBe("paid");
    expect(await page.evaluate(() => window.stayed)).toBe(true);
    await expect(page.locator("#status").textContent()).resolves.toMatch(/^Pay: done for QR code/);
    expect(shop.orders.get("ORDER-1001")?.status).toBe("paid");
    expect(provider.deliveries.at(-1)).toMatchObject({ event: "payment.success", status: 200, acknowledged: true });
  });

  it("shows an attempt the app has not answered yet as in flight, then the app's answer", async () => {
    const shop = ready();
    const created = await shop.checkout("ORDER-1006", 75_000);
    await open("/__fake/simulator");
    const release = shop.slowDown();
    try {
      await page.click(`#qr-${created.history_id}-pay`);
      const inFlight = page.locator("#log tbody tr", { hasText: IN_FLIGHT });
      await inFlight.waitFor();
      const sent = provider.deliveries.at(-1);
      expect(sent).toMatchObject({ event: "payment.success", acknowledged: false });
      expect(sent?.status).toBeUndefined();
      const text = await inFlight.textContent();
      expect(text).toContain(sent?.deliveryId);
      expect(text).toMatch(/in flight\s*waiting for the app's answer…\s*once answered/);
      expect(text).not.toMatch(/not acknowledged|gave up/);
    } finally {
      release();
    }
    const sent = provider.deliveries.at(-1);
    const row = await answeredRow(sent?.deliveryId ?? "no delivery");
    await expect(row.textContent()).resolves.toMatch(/200\s*acknowledged.*none needed/s);
    expect(shop.orders.get("ORDER-1006")?.status).toBe("paid");
  });

  it("shows changes made elsewhere without a reload", async () => {
    const shop = ready();
    await open("/__fake/simulator");
    const created = await shop.checkout("ORDER-1002", 40_000);
    await page.locator(`#qr-${created.history_id}`).waitFor();
    await provider.qris.expire(String(created.history_id));
    await page.locator(`#qr-${created.history_id} .badge`, { hasText: "expired" }).waitFor();
  });

  it("works by keyboard alone: Tab reaches a button, Enter activates it, focus stays on its card", async () => {
    const shop = ready();
    const created = await shop.checkout("ORDER-1003", 60_000);
    await open("/__fake/simulator");
    const target = `qr-${created.history_id}-expire`;
    let presses = 0;
    while ((await page.evaluate(() => document.activeElement?.id)) !== target) {
      if (++presses > 200) throw new Error(`Tab never reached #${target}`);
      await page.keyboard.press("Tab");
    }
    await page.keyboard.press("Enter");
    await page.locator(`#qr-${created.history_id} .badge`, { hasText: "expired" }).waitFor();
    expect(provider.qris.get(String(created.history_id))?.status).toBe("expired");
    // The button went away with the state it belonged to; focus moved to its card, not to the top of the page.
    await page.waitForFunction((id) => document.activeElement?.id === `qr-${id}`, created.history_id);
  });

  it("fits a phone's width without horizontal scrolling, list and QR page alike", async () => {
    const shop = ready();
    const created = await shop.checkout("ORDER-1004", 99_000);
    for (const path of ["/__fake/simulator", `/__fake/simulator/qris/${created.history_id}`]) {
      await open(path, { width: 360, height: 740 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
  });

  it("answers the page's own requests with 404 for an unknown id and 409 naming the allowed transitions", async () => {
    const shop = ready();
    const created = await shop.checkout("ORDER-1005", 30_000);
    await provider.qris.pay(String(created.history_id));
    await open("/__fake/simulator");
    const answers = await page.evaluate(async (id) => {
      const post = async (body: unknown) => {
        const response = await fetch("/__fake/qris/pay", {
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify(body),
        });
        return { status: response.status, body: await response.json() };
      };
      return [await post({ history_id: "no-such-code" }), await post({ history_id: id })];
    }, String(created.history_id));
    expect(answers[0]).toEqual({
      status: 404,
      body: { error: "not_found", message: "no QR code with history_id no-such-code" },
    });
    expect(answers[1]?.status).toBe(409);
    expect(answers[1]?.body).toMatchObject({ error: "invalid_transition", status: "paid", allowed: [] });
    expect(answers[1]?.body.message).toMatch(/Allowed from paid: none/);
  });
});
