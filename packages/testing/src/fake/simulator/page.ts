// The simulator page: server-rendered HTML, one inline stylesheet and one small inline script (no build step). Every
// action is a real <form> with a real <button>, so it works by keyboard and even without the script (the server
// then answers with a redirect back to the page). The script only makes it live: it polls `GET /__fake/state`, and
// when the revision moves it fetches the same page with `?fragment=1` and swaps the lists, keeping keyboard focus.
import { CONTROL_PREFIX, SIMULATOR_PATH } from "../routes/paths.js";
import { ORDER_CANCELLED } from "../transitions.js";
import { SIMULATOR_SCRIPT, SIMULATOR_STYLE } from "./assets.js";
import type { DeliveryView, OrderView, PaymentView, QrCodeView, SimulatorState } from "./state.js";

/** Which page: the overview of everything, or one QR code large enough to scan from the screen. */
export type SimulatorView = { kind: "list" } | { kind: "qris"; historyId: string };

const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** Escapes text for HTML content and attribute values. */
export function esc(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (char) => ESCAPES[char] ?? char);
}

const rupiahFormat = new Intl.NumberFormat("id-ID");
const rupiah = (amount: number) => `Rp ${rupiahFormat.format(amount)}`;

/** `2026-01-15 10:00:00 WIB` (UTC+7, the zone of the services' own timestamps) in a <time> element. */
function time(isoValue: string | null): string {
  if (isoValue === null) return "–";
  const wib = new Date(Date.parse(isoValue) + 7 * 3_600_000).toISOString().slice(0, 19).replace("T", " ");
  return `<time datetime="${esc(isoValue)}">${wib} WIB</time>`;
}

/** An id safe for `id=""` and `getElementById` (the payment ids carry `/`). */
function domId(...parts: string[]): string {
  return parts.join("-").replace(/[^A-Za-z0-9_-]/g, "_");
}

const ACTION_LABELS: Record<string, string> = { pay: "Pay", expire: "Expire", cancel: "Cancel" };

/** One action as its own form: a hidden id field and a button whose accessible name says what it acts on. */
function actionForm(options: {
  path: string;
  field: string;
  id: string;
  action: string;
  buttonId: string;
  what: string;
  extra?: string;
}): string {
  const label = ACTION_LABELS[options.action] ?? options.action;
  const kind = options.action === "pay" ? "primary" : "secondary";
  return `<form method="post" action="${CONTROL_PREFIX}${options.path}" data-control data-done="${esc(`${label}: done for ${options.what}`)}">
<input type="hidden" name="${options.field}" value="${esc(options.id)}">${options.extra ?? ""}
<button type="submit" class="${kind}" id="${esc(options.buttonId)}">${label}<span class="sr-only"> ${esc(options.what)}</span></button>
</form>`;
}

function badge(status: string): string {
  return `<span class="badge badge-${esc(status.toLowerCase())}">${esc(status)}</span>`;
}

/** How a QR code is named in labels: its amount and the start of its id. */
function qrWhat(code: QrCodeView): string {
  return `QR code ${rupiah(code.finalAmount)} (${code.historyId.slice(0, 8)})`;
}

/** The forms of the actions a QR code still allows (`extra`: hidden fields, e.g. where to return). */
function qrActionForms(code: QrCodeView, key: string, extra?: string): string {
  return code.actions
    .map((action) =>
      actionForm({
        path: `/qris/${action}`,
        field: "history_id",
        id: code.historyId,
        action,
        buttonId: `${key}-${action}`,
        what: qrWhat(code),
        ...(extra === undefined ? {} : { extra }),
      }),
    )
    .join("");
}

function qrCard(code: QrCodeView): string {
  const key = domId("qr", code.historyId);
  const what = qrWhat(code);
  const actions = qrActionForms(code, key);
  const detail = `${SIMULATOR_PATH}/qris/${encodeURIComponent(code.historyId)}`;
  return `<article class="card" id="${key}" data-focus-key="${key}" tabindex="-1" aria-labelledby="${key}-h">
<div class="card-head"><h3 id="${key}-h">${rupiah(code.finalAmount)}</h3>${badge(code.status)}</div>
<a class="qr" href="${esc(detail)}"><img src="${esc(code.imageUrl)}" width="176" height="176" alt="${esc(`Scannable ${what}`)}"></a>
<dl>
<dt>History id</dt><dd><code>${esc(code.historyId)}</code></dd>
<dt>Amount</dt><dd>${rupiah(code.originalAmount)} + unique code ${code.uniqueCode}</dd>
<dt>Created</dt><dd>${time(code.createdAt)}</dd>
${code.paidAt ? `<dt>Paid</dt><dd>${time(code.paidAt)} with ${esc(code.paymentProvider ?? "?")}</dd>` : `<dt>Expires</dt><dd>${time(code.expiresAt)}</dd>`}
</dl>
<div class="actions">${actions || '<p class="muted">Final state: no action left.</p>'}</div>
<p><a href="${esc(detail)}">Open QR code <span class="sr-only">${esc(code.historyId)}</span></a></p>
</article>`;
}

function qrDetail(code: QrCodeView): string {
  const key = domId("qr", code.historyId);
  const returnTo = `${SIMULATOR_PATH}/qris/${encodeURIComponent(code.historyId)}`;
  const what = qrWhat(code);
  const actions = qrActionForms(code, key, `<input type="hidden" name="return_to" value="${esc(returnTo)}">`);
  return `<section class="detail" id="${key}" data-focus-key="${key}" tabindex="-1" aria-labelledby="${key}-h">
<div class="card-head"><h2 id="${key}-h">${rupiah(code.finalAmount)}</h2>${badge(code.status)}</div>
<div class="detail-body">
<img class="qr-large" src="${esc(code.imageUrl)}" width="320" height="320" alt="${esc(`Scannable ${what}`)}">
<div>
<dl>
<dt>History id</dt><dd><code>${esc(code.historyId)}</code></dd>
<dt>Amount</dt><dd>${rupiah(code.originalAmount)} + unique code ${code.uniqueCode}</dd>
<dt>Created</dt><dd>${time(code.createdAt)}</dd>
<dt>Expires</dt><dd>${time(code.expiresAt)}</dd>
${code.paidAt ? `<dt>Paid</dt><dd>${time(code.paidAt)} with ${esc(code.paymentProvider ?? "?")}</dd>` : ""}
<dt>QRIS string</dt><dd><code class="qris-string">${esc(code.qrisString)}</code></dd>
</dl>
<div class="actions">${actions || '<p class="muted">Final state: no action left.</p>'}</div>
</div>
</div>
</section>`;
}

function paymentCard(payment: PaymentView): string {
  const key = domId("payment", payment.paymentId);
  const what = `payment ${payment.paymentId}`;
  const actions = payment.actions
    .map((action) =>
      actionForm({
        path: `/payments/${action}`,
        field: "payment_id",
        id: payment.paymentId,
        action,
        buttonId: `${key}-${action}`,
        what,
      }),
    )
    .join("");
  const channel =
    payment.paymentType === "qris"
      ? "QRIS (gateway)"
      : `${esc(payment.bankCode)} virtual account <code>${esc(payment.vaNumber)}</code>`;
  const image = payment.imageUrl
    ? `<img src="${esc(payment.imageUrl)}" width="176" height="176" alt="${esc(`Scannable QR code of ${what}`)}">`
    : "";
  return `<article class="card" id="${key}" data-focus-key="${key}" tabindex="-1" aria-labelledby="${key}-h">
<div class="card-head"><h3 id="${key}-h">${rupiah(payment.amount)}</h3>${badge(payment.status)}</div>
${image}
<dl>
<dt>Payment id</dt><dd><code>${esc(payment.paymentId)}</code></dd>
<dt>Order id</dt><dd><code>${esc(payment.orderId)}</code></dd>
<dt>Channel</dt><dd>${channel}</dd>
<dt>Created</dt><dd>${time(isoOf(payment.createdAt))}</dd>
${payment.paidAt ? `<dt>Paid</dt><dd>${time(isoOf(payment.paidAt))}</dd>` : `<dt>Expires</dt><dd>${time(isoOf(payment.expiresAt))}</dd>`}
${payment.cancelReason !== null ? `<dt>Cancel reason</dt><dd>${esc(payment.cancelReason || "(none given)")}</dd>` : ""}
<dt>Callback</dt><dd>${payment.callbackUrl ? `<code>${esc(payment.callbackUrl)}</code>` : "none (no callback_url)"}</dd>
</dl>
<div class="actions">${actions || '<p class="muted">Final state: no action left.</p>'}</div>
</article>`;
}

// The gateway writes `2026-01-15T03:00:00Z`; <time> and the WIB display want a parseable ISO string either way.
function isoOf(value: string): string {
  return new Date(value).toISOString();
}

function orderCard(order: OrderView): string {
  const key = domId("order", order.orderNo);
  const buttons = order.nextStatuses
    .map(
      (status) =>
        `<button type="submit" name="status" value="${esc(status)}" id="${esc(`${key}-${status}`)}" class="${status === ORDER_CANCELLED ? "secondary" : "primary"}" data-done="${esc(`Order ${order.orderNo} is now ${status}`)}">${esc(status)}<span class="sr-only"> order ${esc(order.orderNo)}</span></button>`,
    )
    .join("");
  const form = buttons
    ? `<form method="post" action="${CONTROL_PREFIX}/orders/status" data-control>
<input type="hidden" name="order_no" value="${esc(order.orderNo)}">
<fieldset><legend>Move to</legend><div class="actions">${buttons}</div></fieldset>
</form>`
    : '<p class="muted">Final state: no status left.</p>';
  return `<article class="card" id="${key}" data-focus-key="${key}" tabindex="-1" aria-labelledby="${key}-h">
<div class="card-head"><h3 id="${key}-h">${esc(order.orderNo)}</h3>${badge(order.status)}</div>
<dl>
<dt>Waybill</dt><dd><code>${esc(order.waybill)}</code> (${esc(order.courier.toUpperCase())})</dd>
<dt>To</dt><dd>${esc(order.receiverName)}, ${esc(order.destinationCity)}</dd>
</dl>
${form}
</article>`;
}

function answerCell(delivery: DeliveryView): string {
  // A slow app is not a failing one: no verdict until it answers or the attempt's time limit passes.
  if (delivery.inFlight) {
    return `<span class="badge badge-pending">in flight</span> <span class="muted">waiting for the app's answer…</span>`;
  }
  if (delivery.error !== null) {
    return `<span class="badge badge-failed">${delivery.injectedFailure ? "failed (injected)" : "no answer"}</span> <code>${esc(delivery.error)}</code>`;
  }
  const body = delivery.responseBody ?? "";
  const shown = body.length > 300 ? `${body.slice(0, 300)}…` : body;
  const verdict = delivery.acknowledged
    ? '<span class="badge badge-paid">acknowledged</span>'
    : '<span class="badge badge-failed">not acknowledged</span>';
  return `<strong>${delivery.status ?? "?"}</strong> ${verdict} <code>${esc(shown) || "(empty body)"}</code>`;
}

function deliveryRow(delivery: DeliveryView): string {
  const next = delivery.inFlight
    ? '<span class="muted">once answered</span>'
    : delivery.acknowledged
      ? "none needed"
      : delivery.nextAttemptAt !== null
        ? time(delivery.nextAttemptAt)
        : "gave up (no retry left)";
  return `<tr>
<td data-label="Time">${time(delivery.at)}</td>
<td data-label="Event"><code>${esc(delivery.event)}</code> <span class="muted">${esc(delivery.deliveryId)}</span>${delivery.duplicate ? ' <span class="badge">duplicate</span>' : ""}</td>
<td data-label="Attempt">${delivery.attempt}</td>
<td data-label="Sent to"><code>${esc(delivery.method)} ${esc(delivery.url)}</code></td>
<td data-label="App's answer">${answerCell(delivery)}</td>
<td data-label="Next retry">${next}</td>
</tr>`;
}

function deliveryLog(deliveries: DeliveryView[], total: number): string {
  const body =
    deliveries.length === 0
      ? '<p class="muted">No webhook sent yet. Pay or expire something above.</p>'
      : `<table>
<caption class="sr-only">Every webhook attempt, newest first</caption>
<thead><tr><th scope="col">Time</th><th scope="col">Event</th><th scope="col">Attempt</th><th scope="col">Sent to</th><th scope="col">App's answer</th><th scope="col">Next retry</th></tr></thead>
<tbody>${deliveries.map(deliveryRow).join("")}</tbody>
</table>`;
  return `<section id="log" aria-labelledby="log-h" tabindex="-1">
<h2 id="log-h">Delivery log <span class="count">(${total})</span></h2>
${total > deliveries.length ? `<p class="muted">The newest ${deliveries.length}; every attempt is at <a href="${CONTROL_PREFIX}/deliveries">${CONTROL_PREFIX}/deliveries</a>.</p>` : ""}
${body}
</section>`;
}

function webhookSettings(state: SimulatorState): string {
  const { webhooks } = state;
  return `<section id="webhooks" aria-labelledby="webhooks-h">
<h2 id="webhooks-h">Webhooks</h2>
<dl class="inline">
<dt>QR events go to</dt><dd>${webhooks.qrisUrl ? `<code>${esc(webhooks.qrisUrl)}</code>` : "nowhere yet (set a QR webhook URL)"}</dd>
<dt>Order events go to</dt><dd>${webhooks.ordersUrl ? `<code>${esc(webhooks.ordersUrl)}</code>` : "nowhere yet (register one)"}</dd>
<dt>Next deliveries to fail</dt><dd id="pending-failures">${webhooks.pendingFailures}</dd>
${webhooks.held > 0 ? `<dt>Held deliveries</dt><dd>${webhooks.held}</dd>` : ""}
</dl>
</section>`;
}

function listSection(id: string, title: string, items: string[], empty: string): string {
  return `<section id="${id}" aria-labelledby="${id}-h">
<h2 id="${id}-h">${title} <span class="count">(${items.length})</span></h2>
${items.length === 0 ? `<p class="muted">${empty}</p>` : `<div class="grid">${items.join("")}</div>`}
</section>`;
}

/** The part of the page the script swaps when the state moves. */
export function simulatorSections(state: SimulatorState, view: SimulatorView): string {
  if (view.kind === "qris") {
    const code = state.qrCodes.find((c) => c.historyId === view.historyId);
    if (!code) return `<p class="error">No QR code ${esc(view.historyId)}. It may be gone after a reset.</p>`;
    return `${qrDetail(code)}\n${deliveryLog(state.deliveries, state.deliveryCount)}`;
  }
  return [
    webhookSettings(state),
    listSection(
      "qr-codes",
      "QR codes",
      state.qrCodes.map(qrCard),
      "No QR code yet: generate one with <code>QrisClient.generateQris</code> against this fake.",
    ),
    listSection(
      "payments",
      "Payments",
      state.payments.map(paymentCard),
      "No payment yet: create one with <code>PaymentGatewayClient.createPayment</code> (a virtual account or QRIS).",
    ),
    listSection("orders", "Orders", state.orders.map(orderCard), "No order yet: create one with the form above."),
    deliveryLog(state.deliveries, state.deliveryCount),
  ].join("\n");
}

const COURIERS = ["jne", "pos", "tiki", "sicepat", "jnt", "anteraja"];
const CLOCK_STEPS: [number, string][] = [
  [60_000, "+1 minute"],
  [300_000, "+5 minutes"],
  [900_000, "+15 minutes"],
  [3_600_000, "+1 hour"],
  [86_400_000, "+1 day"],
];

function controls(): string {
  const clockButtons = CLOCK_STEPS.map(
    ([ms, label]) =>
      `<button type="submit" name="ms" value="${ms}" class="secondary" id="clock-${ms}" data-done="Clock moved ${label.slice(1)}">${label}</button>`,
  ).join("");
  return `<section id="controls" aria-labelledby="controls-h" class="panel">
<h2 id="controls-h" class="sr-only">Controls</h2>
<form method="post" action="${CONTROL_PREFIX}/clock/advance" data-control>
<fieldset><legend>Advance the fake clock</legend><div class="actions">${clockButtons}</div>
<p class="hint">Expiries and webhook retries fall due as it moves.</p></fieldset>
</form>
<form method="post" action="${CONTROL_PREFIX}/webhooks/fail-next" data-control data-done="The next webhook deliveries will fail">
<label for="fail-count">Webhook deliveries to fail</label>
<div class="row"><input id="fail-count" name="count" type="number" min="0" max="100" step="1" value="1" inputmode="numeric" required aria-describedby="fail-hint">
<button type="submit" class="secondary" id="fail-next">Fail the next deliveries</button></div>
<p class="hint" id="fail-hint">They never reach your app and are retried after 1, 5 and 15 minutes.</p>
</form>
<form method="post" action="${CONTROL_PREFIX}/orders" data-control data-done="Order created">
<label for="order-courier">Courier of a new order</label>
<div class="row"><select id="order-courier" name="courier">${COURIERS.map((c) => `<option value="${c}">${c.toUpperCase()}</option>`).join("")}</select>
<button type="submit" class="secondary" id="create-order">Create an order</button></div>
</form>
</section>`;
}

/** The whole page (`GET /__fake/simulator`, or one QR code at `/__fake/simulator/qris/:historyId`). */
export function simulatorPage(state: SimulatorState, view: SimulatorView): string {
  const title = view.kind === "qris" ? "QR code · kirimbayar fake provider" : "Simulator · kirimbayar fake provider";
  const nav = view.kind === "qris" ? `<p><a href="${SIMULATOR_PATH}">← All payments, QR codes and orders</a></p>` : "";
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>${title}</title>
<style>${SIMULATOR_STYLE}</style>
</head>
<body>
<a class="skip" href="#log">Skip to the delivery log</a>
<header class="top">
<h1>kirimbayar fake provider</h1>
<p class="tagline">Pay, expire and cancel what your app created, and watch the webhooks arrive. A fake for local
development: nothing here moves money.</p>
<p class="clock">Fake time: <time id="now" datetime="${esc(state.now)}">${time(state.now).replace(/<[^>]+>/g, "")}</time></p>
${nav}
</header>
<div id="status" role="status" aria-live="polite"></div>
<main>
${view.kind === "list" ? controls() : ""}
<div id="sections" data-revision="${esc(state.revision)}" data-state-url="${CONTROL_PREFIX}/state">
${simulatorSections(state, view)}
</div>
</main>
<script>${SIMULATOR_SCRIPT}</script>
</body>
</html>`;
}

/** The page a form submitted without the script gets when the action is refused. */
export function simulatorErrorPage(status: number, message: string, back: string): string {
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><link rel="icon" href="data:,">
<title>Refused (${status}) · kirimbayar fake provider</title><style>${SIMULATOR_STYLE}</style></head>
<body><main><h1>Refused (HTTP ${status})</h1><p class="error" role="alert">${esc(message)}</p>
<p><a href="${esc(back)}">Back to the simulator</a></p></main></body>
</html>`;
}
