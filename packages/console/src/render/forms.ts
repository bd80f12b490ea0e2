// The action forms: POST, a CSRF token, and a button whose accessible name says what it acts on.
import type { WebhookSource } from "@kirimbayar/core/webhooks";
import { urlOf } from "../routes.js";
import { html, type SafeHtml } from "./html.js";
import { csrfField, type PageContext } from "./layout.js";

/** Replay one dead letter; after it, the browser comes back to `back` (the dead letters, or this search). */
export function replayForm(
  context: PageContext,
  source: WebhookSource,
  id: string,
  back: { readonly reference?: string } = {},
): SafeHtml {
  return html`<form method="post" action="${urlOf(context.base, "replay")}">
${csrfField(context)}<input type="hidden" name="source" value="${source}">
<input type="hidden" name="id" value="${id}">
${back.reference === undefined ? "" : html`<input type="hidden" name="q" value="${back.reference}">`}
<button type="submit">Replay<span class="sr-only"> dead letter ${id}</span></button>
</form>`;
}

/** Reconcile one reference now: a source picker and the reference (prefilled when known). */
export function reconcileForm(
  context: PageContext,
  idPrefix: string,
  reference = "",
  source?: WebhookSource,
): SafeHtml {
  const option = (value: WebhookSource, label: string) =>
    html`<option value="${value}"${value === source ? html` selected` : ""}>${label}</option>`;
  return html`<form method="post" action="${urlOf(context.base, "reconcile")}" class="search">
${csrfField(context)}
<div><label for="${idPrefix}-source">Source</label>
<select id="${idPrefix}-source" name="source">${option("qris", "QR payment (history id)")}${option("payment", "Payment gateway (payment id)")}</select></div>
<div><label for="${idPrefix}-reference">Reference</label>
<input id="${idPrefix}-reference" name="reference" value="${reference}" maxlength="256" required autocomplete="off"></div>
<button type="submit" class="secondary">Reconcile now</button>
</form>`;
}
