// Issue #30, end to end: a small Express shop (the adapter's webhook router and console mount, a QR receiver
// answering directly, a payment-gateway receiver in inbox mode on BullMQ over a real redis-server, the reconciler,
// the memory journal) gets real deliveries from the fake provider over HTTP: one QR payment whose webhook fails twice
// then succeeds, one delivered twice, one found only by reconciliation, and one payment callback that becomes a dead
// letter. Then headless Chromium (Debian's `chromium`, or CHROMIUM_PATH), driven with the keyboard only, logs in,
// searches each reference, checks the story the console tells, replays the dead letter with the handler fixed (the
// effect applies exactly once) and renders at a phone's width. KIRIMBAYAR_SCREENSHOTS=1 also writes the README's
// screenshots to docs/.
import { existsSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { createWebhookConsole, type WebhookConsole } from "@kirimbayar/console";
import { createReconciler, PaymentGatewayClient, QrisClient, type Reconciler } from "@kirimbayar/core";
import { MemoryDeliveryJournal } from "@kirimbayar/core/journal";
import {
  callbackKeyVerifier,
  createWebhookReceiver,
  MemoryIdempotencyStore,
  tokenVerifier,
  type WebhookReceiver,
} from "@kirimbayar/core/webhooks";
import { consoleRouter, createWebhookRouter } from "@kirimbayar/express";
import type { InboxQueue, InboxWorker } from "@kirimbayar/inbox";
import { startInboxWorker } from "@kirimbayar/inbox";
import { createBullMqInbox } from "@kirimbayar/inbox/bullmq";
import { startRedisServer, type TestRedisServer } from "@kirimbayar/test-redis-server";
import { createFakeProvider, type FakeProvider, type RunningServer } from "@kirimbayar/testing";
import express from "express";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

// What the callbacks run in the page use of its globals, typed here: the example compiles without the DOM library.
declare const document: {
  activeElement: { id: string; tagName: string; textContent: string | null } | null;
  documentElement: { scrollWidth: number; clientWidth: number };
};

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SCREENSHOTS = process.env.KIRIMBAYAR_SCREENSHOTS === "1";
const DOCS = join(dirname(fileURLToPath(import.meta.url)), "../../../docs");
const WEBHOOK_TOKEN = "qris-webhook-token-for-the-console-test";
const CALLBACK_API_KEY = "callback-key-for-the-console-test";
const OPERATOR = { username: "operator", password: "console-password-for-the-test" };
const BASE_PATH = "/kirimbayar/console";

// Without Chromium the test fails with this message (CI installs Debian's package): never a silent skip.
const missingChromium = existsSync(CHROMIUM)
  ? undefined
  : `The console's browser test needs Chromium at ${CHROMIUM}: install Debian's "chromium" package ` +
    "(apt-get install chromium) or point CHROMIUM_PATH at a Chromium or Chrome binary.";

/** Waits until `done()` holds, polling every 50 ms, at most `timeoutMs`. */
async function until(what: string, done: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The shop under test: what its handlers applied, and the switches that make them fail. */
interface TestShop {
  url: string;
  /** How many times each QR payment / payment callback was applied. */
  applied: Map<string, number>;
  /** QR payments whose handler fails its next N runs. */
  failQrisRuns: Map<string, number>;
  /** The ledger the payment handler writes to is down while this is true. */
  ledgerDown: { value: boolean };
  receivers: { qris: WebhookReceiver<"qris">; payment: WebhookReceiver<"payment"> };
  reconciler: Reconciler;
  webConsole: WebhookConsole;
  close(): Promise<void>;
}

async function startTestShop(provider: FakeProvider, fakeUrl: string, inbox: InboxQueue): Promise<TestShop> {
  const journal = new MemoryDeliveryJournal();
  const store = new MemoryIdempotencyStore();
  const quiet = { warn: () => {}, error: () => {}, info: () => {} };
  const applied = new Map<string, number>();
  const apply = (id: string) => applied.set(id, (applied.get(id) ?? 0) + 1);
  const failQrisRuns = new Map<string, number>();
  const ledgerDown = { value: true };

  const qris = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: [WEBHOOK_TOKEN], in: "query", name: "token" })],
    idempotency: { store },
    journal,
    logger: quiet,
  });
  qris.on("payment.success", (event) => {
    const id = String(event.data.qris_history_id);
    const failures = failQrisRuns.get(id) ?? 0;
    if (failures > 0) {
      failQrisRuns.set(id, failures - 1);
      throw new Error("order database timed out");
    }
    apply(id);
  });
  const payment = createWebhookReceiver({
    source: "payment",
    verify: [callbackKeyVerifier({ secrets: [CALLBACK_API_KEY] })],
    idempotency: { store },
    inbox,
    journal,
    logger: quiet,
  });
  payment.on("payment.callback", (callback) => {
    if (ledgerDown.value) throw new Error("ledger service unavailable");
    apply(String(callback.payment_id));
  });

  const clients = {
    qris: new QrisClient({ apiKey: provider.apiKeys.qris[0] ?? "", baseUrl: fakeUrl }),
    payment: new PaymentGatewayClient({ apiKey: provider.apiKeys.payment[0] ?? "", baseUrl: fakeUrl }),
  };
  const reconciler = createReconciler({ receivers: { qris, payment }, clients, journal });
  const webConsole = createWebhookConsole({
    journal,
    basePath: BASE_PATH,
    authorize: (request) =>
      request.headers.get("authorization") === `Basic ${btoa(`${OPERATOR.username}:${OPERATOR.password}`)}`
        ? OPERATOR.username
        : false,
    unauthorizedChallenge: 'Basic realm="kirimbayar console"',
    stores: { qris: store, payment: store },
    inboxes: { payment: inbox },
    reconciler,
    sources: ["qris", "payment"],
    secrets: [WEBHOOK_TOKEN, CALLBACK_API_KEY, ...provider.apiKeys.qris, ...provider.apiKeys.payment],
  });

  const app = express();
  app.use("/webhooks", createWebhookRouter({ qris, payment }));
  app.use(webConsole.basePath, consoleRouter(webConsole));
  const server = await new Promise<Server>((resolve) => {
    const started = app.listen(0, "127.0.0.1", () => resolve(started));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    applied,
    failQrisRuns,
    ledgerDown,
    receivers: { qris, payment },
    reconciler,
    webConsole,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await journal.close();
    },
  };
}

let redis: TestRedisServer | undefined;
let inbox: InboxQueue | undefined;
let worker: InboxWorker | undefined;
let provider: FakeProvider | undefined;
let fake: RunningServer | undefined;
let shop: TestShop | undefined;
let browser: Browser | undefined;
let context: BrowserContext | undefined;
/** The references of the four stories. */
const refs = { retried: "", duplicated: "", reconciled: "", dead: "" };
/** Script errors of the pages and errors they log (a CSP violation): none expected. */
const pageErrors: string[] = [];

beforeAll(async () => {
  if (missingChromium) return;
  redis = await startRedisServer();
  inbox = await createBullMqInbox({
    connection: { host: "127.0.0.1", port: redis.port },
    name: "console-e2e",
  });
  provider = createFakeProvider({ seed: 30 });
  fake = await provider.listen({ host: "127.0.0.1", port: 0 });
  shop = await startTestShop(provider, fake.url, inbox);
  worker = await startInboxWorker({
    inbox,
    receivers: shop.receivers,
    // A dead letter within a second: a few quick tries, then the retry period is over.
    retry: { baseDelayMs: 100, maxDelayMs: 200, periodMs: 700 },
    logger: { warn: () => {}, error: () => {} },
  });
  provider.qris.setWebhookUrl(`${shop.url}/webhooks/qris?token=${WEBHOOK_TOKEN}`);
  await playTheStories(provider, shop, inbox);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox"] });
  context = await browser.newContext({ httpCredentials: OPERATOR, viewport: { width: 1280, height: 900 } });
}, 90_000);

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await worker?.stop({ timeoutMs: 2_000 });
  await shop?.close();
  await inbox?.close();
  await fake?.close();
  await redis?.stop();
}, 30_000);

/** The four deliveries' stories, through the fake provider over HTTP. */
async function playTheStories(fakeProvider: FakeProvider, testShop: TestShop, queue: InboxQueue): Promise<void> {
  const qrisClient = new QrisClient({ apiKey: fakeProvider.apiKeys.qris[0] ?? "", baseUrl: fake?.url ?? "" });
  const newQr = async () =>
    (await qrisClient.generateQris({ qris_id: 1, amount: 150_000, output_type: "string" })).data.history_id;

  // 1. The handler fails twice (500); the provider retries 1 minute after the first try and 5 after the second: the
  // third try is processed.
  refs.retried = String(await newQr());
  testShop.failQrisRuns.set(refs.retried, 2);
  await fakeProvider.qris.pay(refs.retried);
  await fakeProvider.clock.advance(60_000);
  await fakeProvider.webhooks.settled();
  await fakeProvider.clock.advance(5 * 60_000);
  await fakeProvider.webhooks.settled();
  expect(testShop.applied.get(refs.retried)).toBe(1);

  // 2. Delivered twice: the copy is a duplicate.
  refs.duplicated = String(await newQr());
  fakeProvider.webhooks.duplicateNext(1);
  await fakeProvider.qris.pay(refs.duplicated);
  await fakeProvider.webhooks.settled();
  expect(testShop.applied.get(refs.duplicated)).toBe(1);

  // 3. Every delivery fails to reach the shop (nothing listens at port 9); the reconciler finds the payment.
  refs.reconciled = String(await newQr());
  const shopUrl = fakeProvider.qris.webhookUrl;
  fakeProvider.qris.setWebhookUrl(`http://127.0.0.1:9/webhooks/qris?token=${WEBHOOK_TOKEN}`);
  await fakeProvider.qris.pay(refs.reconciled);
  await fakeProvider.clock.advance(30 * 60_000);
  await fakeProvider.webhooks.settled();
  fakeProvider.qris.setWebhookUrl(shopUrl);
  const [found] = await testShop.reconciler.reconcile([{ source: "qris", history_id: refs.reconciled }]);
  expect(found?.outcome).toBe("applied");
  expect(testShop.applied.get(refs.reconciled)).toBe(1);

  // 4. A payment callback is queued; the inbox worker's handler fails every try until it is a dead letter.
  const paymentClient = new PaymentGatewayClient({
    apiKey: fakeProvider.apiKeys.payment[0] ?? "",
    baseUrl: fake?.url ?? "",
  });
  const created = await paymentClient.createPayment({
    order_id: "ORD-CONSOLE-4",
    payment_type: "bank_transfer",
    channel_code: "BCA",
    amount: 215_000,
    customer: { name: "Sari Wulandari", email: "sari@example.test", phone: "081234567890" },
    items: [{ name: "Kopi Gayo 250 g", quantity: 1, price: 215_000 }],
    callback_url: `${testShop.url}/webhooks/payment`,
    callback_api_key: CALLBACK_API_KEY,
  });
  refs.dead = String(created.data.payment_id);
  await fakeProvider.payments.pay(refs.dead);
  await fakeProvider.webhooks.settled();
  await until("the payment callback's dead letter", async () => (await queue.listDeadLetters()).length === 1);
  expect(testShop.applied.get(refs.dead)).toBeUndefined();
}

function ready(): { page: () => Promise<Page>; shop: TestShop } {
  if (missingChromium) throw new Error(missingChromium);
  if (context === undefined || shop === undefined) throw new Error("the shop or the browser did not start");
  const open = context;
  return {
    shop,
    page: async () => {
      const page = await open.newPage();
      page.on("pageerror", (error) => pageErrors.push(error.message));
      page.on("console", (message) => {
        // The browser's own request for the site's icon (`/favicon.ico`, outside the console) is the shop's 404.
        if (message.type() === "error" && !message.location().url.endsWith("/favicon.ico")) {
          pageErrors.push(`${message.text()} (${message.location().url})`);
        }
      });
      return page;
    },
  };
}

/** The page's main content as a person reads it (rendered text, spaces collapsed). */
async function mainText(page: Page): Promise<string> {
  // biome-ignore lint/performance/useDomNodeTextContent: Playwright's innerText is the rendered text, as read on screen.
  return (await page.locator("main").innerText()).replace(/\s+/g, " ");
}

/** Presses Tab until the focused element matches, at most `limit` times; fails otherwise. */
async function tabTo(
  page: Page,
  what: string,
  matches: (focused: { id: string; tagName: string; text: string }) => boolean,
  limit = 60,
): Promise<void> {
  for (let presses = 0; presses < limit; presses++) {
    await page.keyboard.press("Tab");
    const focused = await page.evaluate(() => {
      const element = document.activeElement;
      return { id: element?.id ?? "", tagName: element?.tagName ?? "", text: element?.textContent?.trim() ?? "" };
    });
    if (matches(focused)) return;
  }
  throw new Error(`${what} was not reached with ${limit} presses of Tab`);
}

/** Searches `reference` with the keyboard only: Tab to the search field, type, Enter. */
async function searchByKeyboard(page: Page, reference: string): Promise<string> {
  await tabTo(page, "the search field", (focused) => focused.id === "q");
  await page.keyboard.press("Control+A");
  await page.keyboard.type(reference);
  // A new document for this reference (the previous page was a search page too).
  await Promise.all([
    page.waitForEvent("load"),
    page.waitForURL((url) => url.searchParams.get("q") === reference),
    page.keyboard.press("Enter"),
  ]);
  return await mainText(page);
}

async function screenshot(page: Page, name: string): Promise<void> {
  if (SCREENSHOTS) await page.screenshot({ path: join(DOCS, name), fullPage: false });
}

describe("the webhook console in a shop, in Chromium", () => {
  it("asks for the password, then shows the overview of every source", async () => {
    if (missingChromium) throw new Error(missingChromium);
    const anonymous = await fetch(`${shop?.url}${BASE_PATH}`);
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("www-authenticate")).toBe('Basic realm="kirimbayar console"');
    const { page: newPage, shop: testShop } = ready();
    const page = await newPage();
    const response = await page.goto(`${testShop.url}${BASE_PATH}`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()["content-security-policy"]).toContain("default-src 'none'");
    const overview = await mainText(page);
    expect(overview).toMatch(/QR/);
    expect(overview).toMatch(/Dead letters 1/);
    // The reconciler's run, and what it found.
    expect(overview).toMatch(/asked about 1 reference — 1 payment found only by reconciliation/);
    await screenshot(page, "console-overview-desktop.png");
    await page.close();
  });

  it("tells each reference's story, searched with the keyboard only", async () => {
    const { page: newPage, shop: testShop } = ready();
    const page = await newPage();
    await page.goto(`${testShop.url}${BASE_PATH}`);

    const retried = await searchByKeyboard(page, refs.retried);
    expect(retried).toMatch(/was processed by a webhook delivery.*after 2 failed tries/);
    expect(retried.match(/order database timed out/g)?.length).toBe(2);
    expect(retried).toMatch(/completed: a new delivery of this event is a duplicate/);
    await screenshot(page, "console-search-desktop.png");

    const duplicated = await searchByKeyboard(page, refs.duplicated);
    expect(duplicated).toMatch(/1 duplicate delivery was ignored \(answered 200, nothing ran twice\)/);
    expect(duplicated).toMatch(/duplicate, ignored/);

    const reconciled = await searchByKeyboard(page, refs.reconciled);
    expect(reconciled).toMatch(/was applied by reconciliation: its webhook never arrived/);
    expect(reconciled).toMatch(/applied by reconciliation/);

    const dead = await searchByKeyboard(page, refs.dead);
    expect(dead).toMatch(/dead letter/);
    expect(dead).toMatch(/ledger service unavailable/);
    await page.close();
  });

  it("replays the dead letter from the page (keyboard only), and the fixed handler applies it exactly once", async () => {
    const { page: newPage, shop: testShop } = ready();
    testShop.ledgerDown.value = false;
    const page = await newPage();
    await page.goto(`${testShop.url}${BASE_PATH}`);
    await searchByKeyboard(page, refs.dead);
    await tabTo(
      page,
      "the Replay button",
      (focused) => focused.tagName === "BUTTON" && focused.text.startsWith("Replay"),
    );
    await Promise.all([page.waitForEvent("load"), page.keyboard.press("Enter")]);
    expect(await mainText(page)).toMatch(/queued again/);
    await until("the replayed payment to be applied", () => testShop.applied.get(refs.dead) === 1);
    // A while longer: a second application would show now.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(testShop.applied.get(refs.dead)).toBe(1);
    await until("the dead letter to be gone", async () => (await inbox?.listDeadLetters())?.length === 0);
    const after = await searchByKeyboard(page, refs.dead);
    expect(after).toMatch(/processed/);
    expect(after).not.toMatch(/Replay dead letter/);
    await page.close();
  });

  it("fits a phone's width (360 px) without scrolling sideways", async () => {
    const { page: newPage, shop: testShop } = ready();
    const page = await newPage();
    await page.setViewportSize({ width: 360, height: 780 });
    await page.goto(`${testShop.url}${BASE_PATH}/search?q=${encodeURIComponent(refs.retried)}`);
    const width = await page.evaluate(() => ({
      scroll: document.documentElement.scrollWidth,
      client: document.documentElement.clientWidth,
    }));
    expect(width.scroll).toBeLessThanOrEqual(width.client);
    expect(await mainText(page)).toMatch(/after 2 failed tries/);
    await screenshot(page, "console-search-phone.png");
    await page.close();
  });

  it("showed no secret and raised no script or CSP error on any page", async () => {
    const { page: newPage, shop: testShop } = ready();
    const page = await newPage();
    for (const path of ["", "/dead-letters", `/search?q=${encodeURIComponent(refs.dead)}`]) {
      await page.goto(`${testShop.url}${BASE_PATH}${path}`);
      const html = await page.content();
      for (const secret of [WEBHOOK_TOKEN, CALLBACK_API_KEY, OPERATOR.password]) expect(html).not.toContain(secret);
    }
    await page.close();
    expect(pageErrors).toEqual([]);
  });
});
