// The search page: one reference's whole story — the findings in words, then every journal entry newest first,
// the current idempotency records, dead letters, and "reconcile now".
import type { WebhookSource } from "@kirimbayar/core/webhooks";
import { summarizeBody } from "../data/body-references.js";
import { clip, type TextRedactor } from "../data/redact.js";
import { ORIGIN_LABELS, OUTCOME_LABELS, storyOf } from "../data/story.js";
import type { EventRecord, TimelineData } from "../data/timeline.js";
import type { JournalEntry, JournalReferences } from "../journal.js";
import type { ConsoleDeadLetter } from "../options.js";
import { reconcileForm, replayForm } from "./forms.js";
import { html, join, type SafeHtml } from "./html.js";
import { SOURCE_LABELS } from "./labels.js";
import { layout, type PageContext } from "./layout.js";
import { when } from "./time.js";

/** Longest error text shown (journals keep ≤ 500 characters; anything longer is cut). */
const ERROR_MAX = 500;
const BODY_MAX = 4_000;

function referencesList(references: JournalReferences): SafeHtml {
  const pairs = Object.entries(references).filter(([, value]) => typeof value === "string" && value !== "");
  if (pairs.length === 0) return html`<span class="muted">none</span>`;
  return join(
    pairs.map(([name, value]) => html`<code>${name}</code> <code>${clip(String(value), 256)}</code>`),
    ", ",
  );
}

function entryItem(entry: JournalEntry, now: number, redact: TextRedactor): SafeHtml {
  const outcome =
    entry.origin === "reconciliation" && entry.outcome === "processed"
      ? "applied by reconciliation"
      : (OUTCOME_LABELS[entry.outcome] ?? entry.outcome);
  return html`<li class="${entry.outcome}">
<p><span class="badge ${entry.outcome}">${outcome}</span> ${ORIGIN_LABELS[entry.origin] ?? entry.origin}, ${when(entry.at, now)}</p>
<dl>
<dt>Source</dt><dd>${SOURCE_LABELS[entry.source] ?? entry.source}</dd>
${entry.event === undefined ? "" : html`<dt>Event</dt><dd><code>${clip(entry.event, 200)}</code>${entry.state === undefined ? "" : html` — state <code>${clip(entry.state, 200)}</code>`}</dd>`}
<dt>Answer</dt><dd>HTTP ${entry.httpStatus}</dd>
${entry.attempt === undefined ? "" : html`<dt>Attempt</dt><dd>${entry.attempt}</dd>`}
${entry.handlerMs === undefined ? "" : html`<dt>Handlers took</dt><dd>${Math.round(entry.handlerMs)} ms</dd>`}
${entry.error === undefined ? "" : html`<dt>Error</dt><dd class="bad">${clip(redact(entry.error), ERROR_MAX)}</dd>`}
<dt>References</dt><dd>${referencesList(entry.references)}</dd>
${entry.idempotencyKey === undefined ? "" : html`<dt>Idempotency key</dt><dd><code>${clip(entry.idempotencyKey, 256)}</code></dd>`}
<dt>Instance</dt><dd>${clip(entry.instance, 200)}</dd>
</dl>
${entry.body === undefined ? "" : html`<details><summary>Body (redacted)</summary><pre>${clip(redact(entry.body), BODY_MAX)}</pre></details>`}
</li>`;
}

function recordItem(record: EventRecord, now: number): SafeHtml {
  const head = html`<code>${clip(record.key, 256)}</code> <span class="muted">(${SOURCE_LABELS[record.source]})</span>`;
  if (record.record === "no-store")
    return html`<li>${head}: the console was given no idempotency store for this source.</li>`;
  if (record.record === "no-inspect") return html`<li>${head}: this store cannot show its records.</li>`;
  if (!record.record.ok) return html`<li>${head}: <span class="bad">could not be read right now.</span></li>`;
  const view = record.record.value;
  if (view === undefined)
    return html`<li>${head}: no record (never claimed, or past its retention): a delivery now would run the handlers.</li>`;
  const state =
    view.state === "completed"
      ? "completed: a new delivery of this event is a duplicate"
      : view.state === "in_progress"
        ? "in progress: a delivery holds it right now"
        : "released: the last try failed, the next delivery runs the handlers again";
  return html`<li>${head}: <strong>${state}</strong>
<dl>
${view.attempt === undefined ? "" : html`<dt>Attempts</dt><dd>${view.attempt}</dd>`}
${view.completedAt === undefined ? "" : html`<dt>Completed</dt><dd>${when(view.completedAt, now)}</dd>`}
${view.expiresAt === undefined ? "" : html`<dt>${view.state === "in_progress" ? "Lease ends" : "Record expires"}</dt><dd>${when(view.expiresAt, now)}</dd>`}
</dl></li>`;
}

/** One dead letter: what it is (references read from its body, never the body), its tries, and Replay. */
export function deadLetterItem(
  context: PageContext,
  source: WebhookSource,
  letter: ConsoleDeadLetter,
  redact: TextRedactor,
  back: { readonly reference?: string } = {},
): SafeHtml {
  const summary = summarizeBody(letter.message.body);
  return html`<li class="failed">
<p><span class="badge failed">dead letter</span> ${SOURCE_LABELS[source]}, dead ${when(letter.deadAt, context.now)}</p>
<dl>
<dt>Id</dt><dd><code>${clip(letter.id, 256)}</code></dd>
${summary.event === undefined ? "" : html`<dt>Event</dt><dd><code>${clip(summary.event, 200)}</code>${summary.state === undefined ? "" : html` — state <code>${clip(summary.state, 200)}</code>`}</dd>`}
<dt>References</dt><dd>${referencesList(summary.references)}</dd>
<dt>Idempotency key</dt><dd><code>${clip(letter.message.key, 256)}</code></dd>
<dt>Received</dt><dd>${when(letter.message.receivedAt, context.now)}</dd>
</dl>
<details><summary>${letter.attempts.length} tr${letter.attempts.length === 1 ? "y" : "ies"}</summary><ol>
${letter.attempts.map((attempt) => html`<li>Try ${attempt.attempt}, ${when(attempt.at, context.now)}: <span class="bad">${clip(redact(attempt.error), ERROR_MAX)}</span></li>`)}
</ol></details>
${replayForm(context, source, letter.id, back)}
</li>`;
}

/** What to prefill the reconcile form with: the payment this timeline is about, if it names one. */
function reconcileTarget(data: TimelineData): { reference: string; source: WebhookSource } | undefined {
  const entries = data.entries.ok ? data.entries.value : [];
  for (const entry of entries) {
    if (entry.source === "qris" && entry.references.qris_history_id !== undefined) {
      return { source: "qris", reference: entry.references.qris_history_id };
    }
    if (entry.source === "payment" && entry.references.payment_id !== undefined) {
      return { source: "payment", reference: entry.references.payment_id };
    }
  }
  return undefined;
}

/** The search page for `data.reference` (or the empty search page). */
export function searchPage(context: PageContext, data: TimelineData | undefined, redact: TextRedactor): string {
  if (data === undefined) {
    return layout(context, "Search", html`<p>Search by a reference to see its whole story.</p>`);
  }
  const entries = data.entries.ok ? data.entries.value : [];
  const story = storyOf(
    entries,
    new Set(data.deadLetters.map(({ source, letter }) => `${source}\n${letter.message.key}`)),
  );
  const findings = !data.entries.ok
    ? html`<p class="bad">The journal could not be read right now (the app's error log has why).</p>`
    : entries.length === 0
      ? html`<p>Nothing in the journal matches this reference. Check it, or it may be older than the journal's retention.</p>`
      : html`<ul class="story">${story.map((sentence) => html`<li>${sentence}</li>`)}</ul>`;
  const target = reconcileTarget(data);
  const content = html`<p>Reference <code>${clip(data.reference, 256)}</code></p>
<section aria-labelledby="findings"><h3 id="findings">What happened</h3>${findings}</section>
${
  data.deadLetters.length === 0 && data.unreadInboxes.length === 0
    ? ""
    : html`<section aria-labelledby="dead"><h3 id="dead">Dead letters</h3>
${data.unreadInboxes.length === 0 ? "" : html`<p class="bad">The inbox of ${data.unreadInboxes.join(", ")} could not be read right now.</p>`}
<ol class="timeline">${data.deadLetters.map(({ source, letter }) => deadLetterItem(context, source, letter, redact, { reference: data.reference }))}</ol></section>`
}
${data.records.length === 0 ? "" : html`<section aria-labelledby="records"><h3 id="records">Idempotency record now</h3><ul>${data.records.map((record) => recordItem(record, data.now))}</ul></section>`}
<section aria-labelledby="timeline"><h3 id="timeline">Timeline, newest first</h3>
${entries.length === 0 ? html`<p class="muted">No entries.</p>` : html`<ol class="timeline">${entries.map((entry) => entryItem(entry, data.now, redact))}</ol>`}
</section>
${
  context.canReconcile
    ? html`<section aria-labelledby="reconcile"><h3 id="reconcile">Reconcile now</h3>
<p class="muted">Asks the provider and applies the payment through the same handlers and idempotency store as its webhook: nothing runs twice.</p>
${reconcileForm(context, "reconcile", target?.reference ?? data.reference, target?.source)}</section>`
    : ""
}`;
  return layout(context, "Search", content, data.reference);
}
