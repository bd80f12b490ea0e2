// The console in a real browser: headless Chromium (Debian's `chromium`, or CHROMIUM_PATH) driven by playwright-core,
// against a real node:http server on 127.0.0.1 wrapping the console's fetch. No console errors, no CSP violation,
// keyboard only, a phone's width.
import { existsSync } from "node:fs";
import { MemoryDeliveryJournal } from "@kirimbayar/core/journal";
import { createWebhookReceiver, tokenVerifier } from "@kirimbayar/core/webhooks";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createWebhookConsole } from "../src/index.js";
import {
  BASE,
  entry,
  filler,
  HOSTILE,
  HOUR,
  MINUTE,
  piecesOf,
  RecordingInbox,
  RecordingReconciler,
  SHORT_TOKEN,
} from "./helpers.js";
import { serve } from "./node-server.js";

// What the callbacks run in the page use of its globals, typed here: the tests compile without the DOM library.
declare const document: {
  activeElement: { id: string; tagName: string; className: string; textContent: string | null } | null;
  documentElement: { scrollWidth: number };
  addEventListener(type: string, listener: (event: { violatedDirective: string; blockedURI: string }) => void): void;
};
declare const window: {
  innerWidth: number;
  violations?: string[];
  getComputedStyle(element: unknown): { outlineStyle: string };
};

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const SESSION = "console-session-alice";

// Without Chromium every test fails with this message (CI installs Debian's package): never a silent skip.
const missingChromium = existsSync(CHROMIUM)
  ? undefined
  : `The console's browser test needs Chromium at ${CHROMIUM}: install Debian's "chromium" package ` +
    "(apt-get install chromium) or point CHROMIUM_PATH at a Chromium or Chrome binary.";

const journal = new MemoryDeliveryJournal({ instance: "web-1" });
const inbox = new RecordingInbox();
const reconciler = new RecordingReconciler();
const webhookConsole = createWebhookConsole({
  journal,
  // The app's own session check: a cookie here.
  authorize: (request) => (request.headers.get("cookie")?.includes(`session=${SESSION}`) ? "alice" : false),
  basePath: BASE,
  inboxes: { qris: inbox },
  reconciler,
});

let server: Awaited<ReturnType<typeof serve>> | undefined;
let browser: Browser | undefined;
let context: BrowserContext;
let page: Page;
/** What the page reported: console errors, page errors and CSP violations. */
let problems: string[] = [];

/** A page with an inline script and an inline style under the console's own CSP: what the CSP must block. */
async function probe(): Promise<Response> {
  const headers = new Headers((await webhookConsole.fetch(new Request("http://x/"))).headers);
  headers.set("content-type", "text/html; charset=utf-8");
  const body = '<!doctype html><p style="color:red">probe</p><script>document.title = "ran"</script>';
  return new Response(body, { status: 200, headers });
}

function ready(): NonNullable<typeof server> {
  if (missingChromium) throw new Error(missingChromium);
  if (!server || !browser) throw new Error("the server or the browser did not start (see beforeAll)");
  return server;
}

beforeAll(async () => {
  const now = Date.now();
  await journal.record([
    entry({
      at: now - 30 * MINUTE,
      references: { qris_history_id: "h-flaky" },
      idempotencyKey: "qris:payment.success:h-flaky",
      event: "payment.success",
      outcome: "failed",
      httpStatus: 500,
      error: "orders db timeout",
      attempt: 1,
    }),
    entry({
      at: now - 20 * MINUTE,
      references: { qris_history_id: "h-flaky" },
      idempotencyKey: "qris:payment.success:h-flaky",
      event: "payment.success",
      outcome: "failed",
      httpStatus: 500,
      error: "orders db timeout",
      attempt: 2,
    }),
    entry({
      at: now - 10 * MINUTE,
      references: { qris_history_id: "h-flaky" },
      idempotencyKey: "qris:payment.success:h-flaky",
      event: "payment.success",
      attempt: 3,
      handlerMs: 12,
    }),
    entry({
      at: now - 5 * MINUTE,
      source: "orders",
      references: { order_no: HOSTILE.script, cnote: HOSTILE.long, order_id: HOSTILE.javascriptUrl },
      idempotencyKey: `orders:${HOSTILE.long}`,
      event: HOSTILE.quotes,
      state: HOSTILE.rtl,
      outcome: "failed",
      httpStatus: 500,
      error: HOSTILE.long,
      instance: HOSTILE.long,
    }),
  ]);
  await journal.recordReconcileRun({
    startedAt: now - HOUR,
    finishedAt: now - HOUR + 1_500,
    references: 2,
    outcomes: { applied: 1, pending: 1 },
    instance: "worker-1",
  });
  inbox.letters = [
    {
      id: "dl-1",
      message: {
        key: "qris:payment.success:h-dead",
        source: "qris",
        body: JSON.stringify({ event: "payment.success", data: { qris_history_id: "h-dead" } }),
        receivedAt: now - 2 * HOUR,
      },
      attempts: [{ at: now - HOUR, attempt: 1, error: HOSTILE.script }],
      deadAt: now - HOUR,
    },
  ];
  // Issue 38's delivery: its handler's error carries the webhook token at character 484 of the journal's summary.
  const qris = createWebhookReceiver({
    source: "qris",
    verify: [tokenVerifier({ secrets: SHORT_TOKEN, in: "query" })],
    logger: { warn() {}, error() {} },
    journal,
  }).on("payment.success", () => {
    throw new Error(`${filler(477)}${SHORT_TOKEN} was refused by the orders service`);
  });
  await qris.handle({
    method: "POST",
    url: `/webhooks/qris?token=${SHORT_TOKEN}`,
    headers: { "content-type": "application/json" },
    rawBody: JSON.stringify({
      event: "payment.success",
      timestamp: new Date().toISOString(),
      data: { qris_history_id: "h-cut-token", amount: 10_000 },
    }),
  });
  await journal.flush();
  if (missingChromium) return;
  // The app around the console: it has a favicon (the browser asks for one), everything else is the console's.
  server = await serve(async (request) =>
    new URL(request.url).pathname === "/favicon.ico"
      ? new Response(null, { status: 204 })
      : new URL(request.url).pathname === "/probe"
        ? probe()
        : webhookConsole.fetch(request),
  );
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--headless=new"],
    timeout: 30_000,
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addCookies([{ name: "session", value: SESSION, url: server.origin }]);
  // Injected by the browser's tooling, not the page: the page itself runs no script, and its CSP allows none.
  await context.addInitScript(() => {
    window.violations = [];
    document.addEventListener("securitypolicyviolation", (event) =>
      window.violations?.push(`${event.violatedDirective} ${event.blockedURI}`),
    );
  });
  page = await context.newPage();
  page.setDefaultTimeout(15_000);
  page.on("console", (message) => {
    if (message.type() === "error" || message.type() === "warning") problems.push(`console: ${message.text()}`);
  });
  page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await server?.close();
}, 30_000);

beforeEach(() => {
  problems = [];
});

async function open(path: string, viewport = { width: 1280, height: 900 }) {
  const { origin } = ready();
  await page.setViewportSize(viewport);
  const response = await page.goto(`${origin}${path}`);
  expect(response?.status(), path).toBe(200);
}

async function cleanPage() {
  const violations = await page.evaluate(() => window.violations ?? []);
  expect([...problems, ...violations]).toEqual([]);
}

/** Presses Tab until the element `matches` has focus (bounded). */
async function tabTo(matches: (active: { id: string; tagName: string; text: string }) => boolean, what: string) {
  for (let presses = 0; presses < 60; presses++) {
    await page.keyboard.press("Tab");
    const active = await page.evaluate(() => ({
      id: document.activeElement?.id ?? "",
      tagName: document.activeElement?.tagName ?? "",
      text: document.activeElement?.textContent ?? "",
    }));
    if (matches(active)) return;
  }
  throw new Error(`Tab never reached ${what}`);
}

describe("the console in Chromium", { timeout: 30_000 }, () => {
  it("loads the overview with no console error and no CSP violation", async () => {
    await open(`${BASE}/`);
    await expect(page.locator("h1").textContent()).resolves.toBe("Webhook console");
    await expect(page.locator("main").textContent()).resolves.toMatch(/1 payment found only by reconciliation/);
    await cleanPage();
  });

  it("blocks an inline script and style under its CSP, and the test sees the violations", async () => {
    await open("/probe");
    expect(await page.title()).toBe("");
    const violations = await page.evaluate(() => window.violations ?? []);
    expect(violations.map((violation) => violation.split(" ")[0]).sort()).toEqual([
      "script-src-elem",
      "style-src-attr",
    ]);
    problems = [];
  });

  it("is refused without the session cookie", async () => {
    const { origin } = ready();
    const other = await browser?.newPage();
    try {
      const response = await other?.goto(`${origin}${BASE}/`);
      expect(response?.status()).toBe(401);
      await expect(other?.locator("body").textContent()).resolves.toBe("Unauthorized");
    } finally {
      await other?.close();
    }
  });

  it("searches by keyboard alone: skip link first, a labelled field, Enter submits, the story shows", async () => {
    await open(`${BASE}/`);
    await page.keyboard.press("Tab");
    const first = await page.evaluate(() => ({
      className: document.activeElement?.className,
      outline: window.getComputedStyle(document.activeElement).outlineStyle,
    }));
    expect(first).toEqual({ className: "skip", outline: "solid" });
    await tabTo((active) => active.id === "q", "the search field");
    await expect(page.locator("label[for=q]").textContent()).resolves.toBe("Reference");
    await page.keyboard.type("h-flaky");
    await Promise.all([page.waitForURL(/\/search\?q=h-flaky$/), page.keyboard.press("Enter")]);
    await expect(page.locator("#findings + ul").textContent()).resolves.toContain(
      "The payment.success event was processed by a webhook delivery (attempt 3) after 2 failed tries.",
    );
    await expect(page.locator("ol.timeline > li").count()).resolves.toBe(3);
    await cleanPage();
  });

  it("replays a dead letter by keyboard: the browser's own POST passes the CSRF and origin checks", async () => {
    await open(`${BASE}/search?q=h-dead`);
    await tabTo((active) => active.tagName === "BUTTON" && active.text.startsWith("Replay"), "the Replay button");
    await Promise.all([page.waitForURL(/notice=replayed$/), page.keyboard.press("Enter")]);
    await expect(page.locator(".notice").textContent()).resolves.toMatch(/^The dead letter was queued again/);
    expect(inbox.replayed).toEqual(["dl-1"]);
    await cleanPage();
  });

  it("shows no piece of a webhook token cut at the error's length limit", async () => {
    await open(`${BASE}/search?q=h-cut-token`);
    // Everything in the page's main part, shown or not.
    const shown = (await page.locator("main").textContent()) ?? "";
    expect(shown).toMatch(/Error: the shop's order .*\[redacted\]/s);
    expect(piecesOf(SHORT_TOKEN, shown)).toEqual([]);
    expect(piecesOf(SHORT_TOKEN, await page.content())).toEqual([]);
    await cleanPage();
  });

  it("renders hostile values as text, and fits a phone's width without horizontal scrolling", async () => {
    const paths = [`${BASE}/`, `${BASE}/search?q=${encodeURIComponent(HOSTILE.script)}`, `${BASE}/dead-letters`];
    for (const path of paths) {
      await open(path, { width: 360, height: 740 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow, path).toBeLessThanOrEqual(0);
    }
    await open(`${BASE}/search?q=${encodeURIComponent(HOSTILE.script)}`, { width: 360, height: 740 });
    await expect(page.locator("ol.timeline code", { hasText: HOSTILE.script }).count()).resolves.toBeGreaterThan(0);
    await expect(page.locator("script").count()).resolves.toBe(0);
    await cleanPage();
  });
});
