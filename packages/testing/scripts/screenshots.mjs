#!/usr/bin/env node
// Screenshots of the simulator page for the README: the list, one QR code and the delivery log, at desktop and
// phone width, written to docs/simulator-*.png at the repository root. Run on demand after changing the page
// (`pnpm --filter @kirimbayar/testing build && node packages/testing/scripts/screenshots.mjs`); not part of the tests.
// Needs Chromium: /usr/bin/chromium (Debian's `chromium` package) or the path in CHROMIUM_PATH.
import { existsSync, mkdirSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { PaymentGatewayClient, QrisClient } from "@kirimbayar/core";
import { createWebhookReceiver, tokenVerifier } from "@kirimbayar/core/webhooks";
import { chromium } from "playwright-core";
import { createFakeProvider } from "../dist/index.js";

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
const docs = join(repoRoot, "docs");
const executablePath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (!existsSync(executablePath)) {
  console.error(`No Chromium at ${executablePath}: install Debian's chromium package or set CHROMIUM_PATH.`);
  process.exit(1);
}

// A shop that takes QR events in-process, so the log shows real answers (one of them after injected failures).
const receiver = createWebhookReceiver({
  source: "qris",
  verify: [tokenVerifier({ secrets: ["shop-token"], in: "query" })],
}).on("payment.success", () => {});
receiver.on("payment.expired", () => {});
const provider = createFakeProvider({
  controlApi: true,
  seed: "screenshots",
  webhooks: { qrisUrl: "http://localhost:3000/webhooks/qris?token=shop-token", fetch: (r) => receiver.fetch(r) },
});
const qris = new QrisClient({ apiKey: provider.apiKeys.qris[0], baseUrl: provider.baseUrl, fetch: provider.fetch });
const gateway = new PaymentGatewayClient({
  apiKey: provider.apiKeys.payment[0],
  baseUrl: provider.baseUrl,
  fetch: provider.fetch,
});
const customer = { name: "Budi Santoso", email: "budi@example.co.id", phone: "081234567890" };
const { data: paidCode } = await qris.generateQris({ qris_id: 1, amount: 125_000, output_type: "string" });
const { data: expiredCode } = await qris.generateQris({ qris_id: 1, amount: 20_000, output_type: "string" });
await provider.clock.advance(2 * 60_000);
const { data: openCode } = await qris.generateQris({ qris_id: 1, amount: 50_000, output_type: "string" });
const { data: va } = await gateway.createPayment({
  order_id: "INV-2026-0042",
  payment_type: "bank_transfer",
  channel_code: "BCA",
  amount: 150_000,
  customer,
  items: [{ name: "Kaos batik", quantity: 1, price: 150_000 }],
});
await gateway.createPayment({
  order_id: "INV-2026-0043",
  payment_type: "bank_transfer",
  channel_code: "BNI",
  amount: 89_000,
  customer,
  items: [{ name: "Tas anyaman", quantity: 1, price: 89_000 }],
});
provider.webhooks.failNext(1);
await provider.qris.pay(String(paidCode.history_id), { paymentProvider: "GoPay" });
await provider.clock.advance(60_000); // the retry after the injected failure is acknowledged
await provider.qris.expire(String(expiredCode.history_id));
await provider.payments.pay(va.payment_id);
const order = provider.orders.create({ courier: "jne", receiverName: "Siti Rahayu" });
await provider.orders.setStatus(order.orderNo, "Dijemput");
provider.orders.create({ courier: "sicepat", receiverName: "Andi Wijaya" });

const server = await provider.listen({ port: 0, host: "127.0.0.1" });
const browser = await chromium.launch({ executablePath, args: ["--no-sandbox", "--headless=new"], timeout: 30_000 });
mkdirSync(docs, { recursive: true });
const written = [];
try {
  for (const [name, viewport] of [
    ["desktop", { width: 1280, height: 900 }],
    ["phone", { width: 390, height: 844 }],
  ]) {
    const page = await browser.newPage({ viewport, deviceScaleFactor: 1 });
    const shot = async (file, options) => {
      const path = join(docs, `simulator-${file}-${name}.png`);
      await page.screenshot({ path, ...options });
      written.push(relative(repoRoot, path));
    };
    await page.goto(`${server.url}/__fake/simulator`);
    await page.waitForFunction(() => [...document.images].every((image) => image.complete && image.naturalWidth > 0));
    if (name === "desktop") {
      await shot("list", { fullPage: true });
    } else {
      // A phone shows the controls first: start the picture at the QR codes.
      await page.evaluate(() => document.getElementById("qr-codes")?.scrollIntoView());
      await shot("list", {});
    }
    const log = join(docs, `simulator-log-${name}.png`);
    await page.locator("#log").screenshot({ path: log });
    written.push(relative(repoRoot, log));
    await page.goto(`${server.url}/__fake/simulator/qris/${openCode.history_id}`);
    await page.waitForFunction(() => [...document.images].every((image) => image.complete && image.naturalWidth > 0));
    await shot("qr", {});
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
}
console.log(`Wrote ${written.join(", ")}`);
