// The overview: per source, the last 24 hours; the reconciler's runs; "reconcile one reference now".
import type { OverviewData, SourceOverview } from "../data/overview.js";
import { urlOf } from "../routes.js";
import { reconcileForm } from "./forms.js";
import { html, join, type SafeHtml } from "./html.js";
import { runOutcome, SOURCE_LABELS } from "./labels.js";
import { layout, type PageContext } from "./layout.js";
import { duration, when } from "./time.js";

const UNREAD = html`<p class="bad">Could not be read right now (the app's error log has why).</p>`;

function silence(card: SourceOverview, now: number, silentAfterMs: number): SafeHtml {
  const last = card.summary?.lastSuccessAt;
  if (last === undefined) {
    return html`<p class="warn" role="note">No successful webhook delivery in the last 24 h: is the webhook URL still registered and active at the provider?</p>`;
  }
  if (now - last < silentAfterMs) return html``;
  return html`<p class="warn" role="note">Silent for ${duration(now - last)}: no successful webhook delivery since. A deactivated webhook looks like this.</p>`;
}

function sourceCard(card: SourceOverview, data: OverviewData, silentAfterMs: number, context: PageContext): SafeHtml {
  const summary = card.summary;
  const inbox = card.inbox;
  const inboxPart =
    inbox === undefined
      ? html``
      : !inbox.ok
        ? html`<h4>Inbox</h4>${UNREAD}`
        : html`<h4>Inbox</h4><dl>
<dt>Waiting</dt><dd>${inbox.value.waiting}</dd>
<dt>Being processed</dt><dd>${inbox.value.active}</dd>
<dt>Oldest waiting</dt><dd>${inbox.value.oldestWaitingAgeMs === undefined ? "none" : `${duration(inbox.value.oldestWaitingAgeMs)} old`}</dd>
<dt>Dead letters</dt><dd>${inbox.value.deadLetters === 0 ? "0" : html`<a href="${urlOf(context.base, "deadLetters")}#${card.source}" class="bad">${inbox.value.deadLetters}</a>`}</dd>
</dl>`;
  return html`<section class="card" aria-labelledby="source-${card.source}">
<h3 id="source-${card.source}">${SOURCE_LABELS[card.source]}</h3>
${data.journalRead ? silence(card, data.now, silentAfterMs) : UNREAD}
<dl>
<dt>Deliveries (24 h)</dt><dd>${summary?.deliveries ?? 0}</dd>
<dt>Failed (5xx)</dt><dd${(summary?.failures ?? 0) > 0 ? html` class="bad"` : ""}>${summary?.failures ?? 0}</dd>
<dt>Refused (4xx)</dt><dd>${summary?.refused ?? 0}</dd>
<dt>Duplicates</dt><dd>${summary?.duplicates ?? 0}</dd>
<dt>Last successful webhook</dt><dd>${when(summary?.lastSuccessAt, data.now)}</dd>
</dl>
${inboxPart}
</section>`;
}

function runsSection(data: OverviewData): SafeHtml {
  if (!data.runs.ok) return UNREAD;
  if (data.runs.value.length === 0) return html`<p class="muted">No reconciler run journalled yet.</p>`;
  const items = data.runs.value.map((run) => {
    const outcomes = Object.entries(run.outcomes).filter(([, count]) => count > 0);
    const applied = run.outcomes.applied ?? 0;
    return html`<li class="card">
<p>${when(run.startedAt, data.now)}, took ${duration(run.finishedAt - run.startedAt)}: asked about ${run.references} reference${run.references === 1 ? "" : "s"}${applied > 0 ? html` — <strong class="bad">${applied} payment${applied === 1 ? "" : "s"} found only by reconciliation</strong>` : ""}.</p>
${outcomes.length === 0 ? "" : html`<ul>${outcomes.map(([outcome, count]) => html`<li>${runOutcome(outcome, count)}</li>`)}</ul>`}
<p class="muted">Instance ${run.instance}</p>
</li>`;
  });
  return html`<ul class="plain cards">${join(items)}</ul>`;
}

/** The overview page. */
export function overviewPage(context: PageContext, data: OverviewData, silentAfterMs: number): string {
  const cards =
    data.sources.length === 0
      ? html`<p class="muted">No deliveries journalled in the last 24 hours, and no source configured.</p>`
      : html`<div class="cards">${data.sources.map((card) => sourceCard(card, data, silentAfterMs, context))}</div>`;
  const content = html`<section aria-labelledby="sources"><h3 id="sources">Sources, last 24 hours</h3>${cards}</section>
<section aria-labelledby="runs"><h3 id="runs">Reconciliation runs</h3>${runsSection(data)}</section>
${
  context.canReconcile
    ? html`<section aria-labelledby="reconcile"><h3 id="reconcile">Reconcile one reference now</h3>
<p class="muted">Asks the provider about one payment and applies it through the same handlers and idempotency store as its webhook.</p>
${reconcileForm(context, "reconcile")}</section>`
    : ""
}`;
  return layout(context, "Overview", content);
}
