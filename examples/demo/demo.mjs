#!/usr/bin/env node
// The one-command demo (`pnpm demo` at the repository root): builds what it needs, starts the fake provider and one
// example shop on loopback, and plays a scripted story over real HTTP while printing the key exchanges.
// KIRIMBAYAR_DEMO_FRAMEWORK=express|hono|nestjs|fastify picks the shop (default express). Exits 0 when the story ends as
// scripted, 1 otherwise; once built, a watchdog stops it after 90 s whatever happens.
import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const FRAMEWORKS = { express: "Express 5", hono: "Hono", nestjs: "NestJS 12", fastify: "Fastify 5" };
const framework = (process.env.KIRIMBAYAR_DEMO_FRAMEWORK ?? "express").trim().toLowerCase();
if (!(framework in FRAMEWORKS)) {
  console.error(`KIRIMBAYAR_DEMO_FRAMEWORK must be one of ${Object.keys(FRAMEWORKS).join(", ")}; got "${framework}".`);
  process.exit(2);
}
const shopPackage = `@kirimbayar/example-${framework}-shop`;
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), "../..");

// 1. Build the chosen shop, the packages under it and the fake provider (turbo skips what is up to date).
console.log(`Building ${shopPackage} and @kirimbayar/testing ...`);
const build = spawnSync(
  join(repoRoot, "node_modules/.bin/turbo"),
  ["run", "build", `--filter=${shopPackage}...`, "--filter=@kirimbayar/testing...", "--output-logs=errors-only"],
  { cwd: repoRoot, stdio: ["ignore", "ignore", "inherit"], env: { ...process.env, TURBO_TELEMETRY_DISABLED: "1" } },
);
if (build.status !== 0) {
  console.error("The build failed (see above).");
  process.exit(1);
}

// From here on the story itself: a watchdog stops it after 90 s whatever happens (the build above may take longer on a
// fresh machine and is not counted).
const watchdog = setTimeout(() => {
  console.error("\nThe demo did not finish within 90 s: stopping.");
  process.exit(1);
}, 90_000);
watchdog.unref();

const { createFakeProvider } = await import("@kirimbayar/testing");
const { CONSOLE_PATH, CONSOLE_USER, loadShopConfig, qrTerminalText, rupiah, webhookUrls } = await import(
  "@kirimbayar/example-shop-domain"
);
/** KIRIMBAYAR_DEMO_KEEP_OPEN=1: after the story, the shop and the fake stay up (Ctrl-C ends) to browse the console. */
const keepOpen = process.env.KIRIMBAYAR_DEMO_KEEP_OPEN === "1";
const { startShop } = await import(shopPackage);

// ---------------------------------------------------------------------------------------------------------------
// Transcript helpers
// ---------------------------------------------------------------------------------------------------------------
const color = process.stdout.isTTY && !process.env.NO_COLOR;
const paint = (code) => (text) => (color ? `\x1b[${code}m${text}\x1b[0m` : text);
const bold = paint("1");
const dim = paint("2");
const green = paint("32");
const cyan = paint("36");
const yellow = paint("33");

let step = 0;
const chapter = (title) => console.log(`\n${bold(`${++step}. ${title}`)}`);
const say = (text) => console.log(`   ${text}`);
const short = (value, max = 110) => {
  const text = typeof value === "string" ? value : JSON.stringify(value);
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
};

/** The customer's browser: real HTTP to the shop, each exchange printed. */
async function browser(method, path, body) {
  console.log(`   ${cyan("→")} ${method} ${path}${body === undefined ? "" : ` ${dim(short(body, 90))}`}`);
  const response = await fetch(`${shopUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const json = await response.json();
  console.log(`   ${cyan("←")} ${response.status}`);
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${short(json, 300)}`);
  return json.data;
}

/** The shop's own calls to the provider, printed as they happen. */
const providerCalls = [];
// The reconciler's status requests run in the background all along: counted, and shown only in its chapter.
const statusPolls = [];
async function loggingFetch(input, init) {
  const request = new Request(input, init);
  const response = await fetch(request);
  const url = new URL(request.url);
  const line = `${request.method} ${url.pathname}${url.search} → ${response.status}`;
  (/\/payment-?status\/|\/payment\/status\//.test(url.pathname) ? statusPolls : providerCalls).push(line);
  return response;
}
function flushProviderCalls() {
  for (const call of providerCalls.splice(0)) say(dim(`   shop → provider  ${call}`));
}

/** Webhook deliveries since the last call, printed from the fake's record. */
let seenDeliveries = 0;
function flushDeliveries() {
  for (const d of provider.deliveries.slice(seenDeliveries)) {
    const path = new URL(d.url).pathname + new URL(d.url).search;
    const tag = d.duplicate ? yellow(" (duplicate copy)") : d.attempt > 1 ? yellow(` (retry ${d.attempt - 1})`) : "";
    say(`${yellow("⇢")} provider → shop  ${d.method} ${decodeURIComponent(path)}  ${bold(d.event)}${tag}`);
    say(`     ${d.status ?? d.error} ${dim(short(d.responseBody ?? "", 90))}`);
  }
  seenDeliveries = provider.deliveries.length;
}

function printQuote(options) {
  for (const o of options) {
    const badges = [o.cheapest ? green("cheapest") : "", o.fastest ? green("fastest") : ""].filter(Boolean).join(" ");
    const etd =
      o.etd.max === null
        ? "?"
        : o.etd.min === o.etd.max
          ? `${o.etd.max} ${o.etd.unit}`
          : `${o.etd.min}-${o.etd.max} ${o.etd.unit}`;
    say(
      `     ${o.courier_code.padEnd(8)} ${o.service.padEnd(12)} ${rupiah(o.cost).padStart(10)}  ${etd.padEnd(9)} ${badges}`,
    );
  }
}

function printEvents(order) {
  for (const e of order.events) {
    say(
      `     ${dim(`${e.at.slice(0, 16).replace("T", " ")} UTC`)} ${e.source.padEnd(7)} ${e.type.padEnd(16)} ${e.detail}`,
    );
  }
}

const expectations = [];
function expectThat(what, actual, wanted) {
  const ok = actual === wanted;
  expectations.push({ what, ok });
  say(`${ok ? green("✓") : "✗"} ${what}: ${bold(String(actual))}${ok ? "" : ` (expected ${wanted})`}`);
}

// ---------------------------------------------------------------------------------------------------------------
// The story
// ---------------------------------------------------------------------------------------------------------------
const WEBHOOK_SECRET = "demo-webhook-secret-9f2c1e7a";
const provider = createFakeProvider({ seed: 2026 });
const fakeServer = await provider.listen({ host: "127.0.0.1", port: 0 });
const env = {
  PORT: "0",
  HOST: "127.0.0.1",
  KIRIMBAYAR_PAYMENT_API_KEY: provider.apiKeys.payment[0],
  KIRIMBAYAR_PAYMENT_BASE_URL: fakeServer.url,
  KIRIMBAYAR_QRIS_API_KEY: provider.apiKeys.qris[0],
  KIRIMBAYAR_QRIS_ID: "1",
  KIRIMBAYAR_CALLBACK_API_KEY: "demo-callback-key-4b7d0c2e",
  KIRIMBAYAR_SHIPPING_API_KEY: provider.apiKeys.shipping[0],
  KIRIMBAYAR_SHIPPING_BASE_URL: fakeServer.url,
  KIRIMBAYAR_ORDERS_API_KEY: provider.apiKeys.orders[0],
  KIRIMBAYAR_ORDERS_BASE_URL: fakeServer.url,
  KIRIMBAYAR_WEBHOOK_SECRET: WEBHOOK_SECRET,
  SHOP_ORIGIN_ID: "1520101", // Gambir, Jakarta Pusat
  // Ask the provider about payments still pending twice a second (a real shop: every minute or so).
  SHOP_RECONCILE_EVERY_MS: "500",
  // Express and Hono: orders and webhook records in one PostgreSQL database (in-process PGlite), each payment webhook
  // applied in the same transaction as its record. The NestJS and Fastify shops always keep them in their ORM's
  // database (an embedded PostgreSQL without DATABASE_URL).
  ...(framework === "nestjs" ? {} : { SHOP_DATABASE: "postgres" }),
};
// The webhook console's password: yours from KIRIMBAYAR_CONSOLE_PASSWORD, else one made for this run (printed below).
if (process.env.KIRIMBAYAR_CONSOLE_PASSWORD) env.KIRIMBAYAR_CONSOLE_PASSWORD = process.env.KIRIMBAYAR_CONSOLE_PASSWORD;
const shopConfig = loadShopConfig(env);
// The shop reads the fake's clock too, so its event log and the provider's expiries tell one timeline.
const shop = await startShop(shopConfig, {
  fetch: loggingFetch,
  now: () => new Date(provider.clock.now()),
  ...(framework === "nestjs" ? { logger: false } : {}),
});
const shopUrl = shop.url;
provider.qris.setWebhookUrl(webhookUrls(shopUrl, WEBHOOK_SECRET).qris);

let exitCode = 1;
try {
  console.log(
    `\n${bold(`kirimbayar demo: the ${FRAMEWORKS[framework]} example shop and the fake provider, on loopback`)}`,
  );
  say(`fake provider  ${fakeServer.url}  (payment gateway, QRIS, shipping, order service; manual clock)`);
  say(`${framework} shop${" ".repeat(Math.max(1, 10 - framework.length))}${shopUrl}`);
  say(
    `webhook console  ${shopUrl}${CONSOLE_PATH}  (user ${CONSOLE_USER}, password ${bold(shopConfig.console.password)}` +
      `${keepOpen ? "" : "; KIRIMBAYAR_DEMO_KEEP_OPEN=1 keeps the shop up after the story to browse it"})`,
  );
  say(
    dim(
      framework === "nestjs"
        ? "orders, webhook records and journal in PostgreSQL (embedded PGlite) through TypeORM; payment webhooks commit with their record and journal entry"
        : "orders and webhook records in PostgreSQL (in-process PGlite); payment webhooks commit with their record",
    ),
  );
  say(
    dim(
      `order webhook registered at start: ${decodeURIComponent(provider.orders.webhookUrl ?? "").replace(WEBHOOK_SECRET, "[secret]")}`,
    ),
  );
  flushProviderCalls();

  chapter("The customer looks up where to ship: Braga, Bandung");
  const destinations = await browser("GET", "/shipping/destinations?search=braga");
  const braga = destinations[0];
  say(`     ${braga.label} (destination id ${braga.id})`);
  flushProviderCalls();

  chapter("Shipping quote for 1.2 kg from the Jakarta warehouse");
  const quote = await browser("POST", "/shipping/quote", {
    destination_id: braga.id,
    weight: 1200,
    couriers: ["jne", "sicepat", "pos", "tiki"],
  });
  printQuote(quote);
  flushProviderCalls();

  chapter("The customer orders and picks SiCepat REG; the shop generates a QRIS code");
  const cart = {
    customer: { name: "Sari Wulandari", email: "sari@example.test", phone: "081234567890" },
    items: [
      { name: "Kopi Gayo 250 g", quantity: 2, price: 85_000, weight: 250 },
      { name: "Gula Aren 500 g", quantity: 1, price: 32_000, weight: 700 },
    ],
    destination_id: braga.id,
    courier: "sicepat",
    service: "REG",
  };
  const first = await browser("POST", "/orders", cart);
  flushProviderCalls();
  const qr = first.order.payments[0];
  say(
    `     order ${bold(first.order.id)}: items ${rupiah(first.order.subtotal)} + shipping ${rupiah(first.order.shipping.cost)} = ${rupiah(first.order.total)}`,
  );
  say(
    `     QR to pay ${bold(rupiah(first.qris.final_amount))} (the total plus the unique code ${first.qris.final_amount - first.order.total}), CRC checked, expires ${first.qris.expires_at}`,
  );
  console.log((await qrTerminalText(first.qris.qris_string)).replace(/^/gm, "     "));

  chapter("The customer pays; the provider's webhook is delivered twice (a duplicate)");
  await provider.clock.advance(3 * 60_000);
  provider.webhooks.duplicateNext(1);
  await provider.qris.pay(qr.history_id);
  await provider.webhooks.settled();
  flushDeliveries();
  let order = await browser("GET", `/orders/${first.order.id}`);
  expectThat("order status after payment", order.status, "paid");
  expectThat(
    "payment events processed (duplicate ignored)",
    order.events.filter((e) => e.type === "payment.success").length,
    1,
  );

  chapter("The courier picks the parcel up and delivers it: order-status webhooks");
  provider.orders.create({
    order_no: first.order.id,
    courier: "sicepat",
    destination: braga.id,
    weight: first.order.weight,
  });
  for (const [status, hoursLater] of [
    ["Dijemput", 2],
    ["Dikirim", 5],
    ["Selesai", 26],
  ]) {
    await provider.clock.advance(hoursLater * 3_600_000);
    await provider.orders.setStatus(first.order.id, status);
  }
  await provider.webhooks.settled();
  flushDeliveries();
  order = await browser("GET", `/orders/${first.order.id}`);
  expectThat("order status after the courier's updates", order.status, "delivered");
  say(`     waybill ${order.cnote}; the order's event log:`);
  printEvents(order);

  chapter("A second order is never paid: its QR code expires (the fake's clock moves 16 minutes)");
  const second = await browser("POST", "/orders", { ...cart, courier: "jne", service: "REG" });
  flushProviderCalls();
  say(`     order ${bold(second.order.id)} waits for ${rupiah(second.qris.final_amount)}`);
  await provider.clock.advance(16 * 60_000);
  await provider.webhooks.settled();
  flushDeliveries();
  const expired = await browser("GET", `/orders/${second.order.id}`);
  expectThat("second order status", expired.status, "expired");

  chapter("A third customer pays while the shop is unreachable: every webhook fails, reconciliation finds it");
  const third = await browser("POST", "/orders", { ...cart, courier: "jne", service: "REG" });
  flushProviderCalls();
  const shopWebhookUrl = provider.qris.webhookUrl;
  provider.qris.setWebhookUrl(`http://127.0.0.1:9/webhooks/qris?token=${WEBHOOK_SECRET}`); // nothing listens there
  await provider.qris.pay(third.order.payments[0].history_id);
  await provider.clock.advance(30 * 60_000); // past the provider's last retry (now, +1, +5, +15 minutes)
  await provider.webhooks.settled();
  provider.qris.setWebhookUrl(shopWebhookUrl);
  for (const d of provider.deliveries.slice(seenDeliveries)) {
    say(
      `${yellow("⇢")} provider → shop  ${bold(d.event)} attempt ${d.attempt}: ${d.error ?? d.status} (the shop is unreachable)`,
    );
  }
  seenDeliveries = provider.deliveries.length;
  say("     the provider has given up; the shop's reconciler asks the QR status endpoint about pending payments ...");
  statusPolls.splice(0);
  let thirdNow = await browser("GET", `/orders/${third.order.id}`);
  for (let waited = 0; thirdNow.status !== "paid" && waited < 5_000; waited += 250) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    thirdNow = await browser("GET", `/orders/${third.order.id}`);
  }
  const poll = statusPolls.find((line) => line.includes(third.order.payments[0].history_id));
  if (poll !== undefined) say(dim(`      shop → provider  ${poll}  (the reconciler)`));
  expectThat("third order status after reconciliation", thirdNow.status, "paid");
  printEvents(thirdNow);

  const failed = expectations.filter((e) => !e.ok);
  console.log(
    failed.length === 0
      ? `\n${green(bold("The story ended as scripted."))} Webhooks delivered: ${provider.deliveries.length}, provider API calls: ${provider.requests.length}.`
      : `\n${failed.length} expectation(s) failed: ${failed.map((e) => e.what).join("; ")}`,
  );
  exitCode = failed.length === 0 ? 0 : 1;
  if (keepOpen) {
    clearTimeout(watchdog);
    console.log(
      `\nThe shop stays up: open ${shopUrl}${CONSOLE_PATH} (user ${CONSOLE_USER}, password ${shopConfig.console.password}) and search ${first.order.payments[0].history_id}. Ctrl-C ends.`,
    );
    await new Promise((resolve) => process.once("SIGINT", resolve));
  }
} catch (error) {
  console.error(`\nThe demo failed: ${error instanceof Error ? error.message : error}`);
} finally {
  await shop.close();
  await fakeServer.close();
}
process.exit(exitCode);
