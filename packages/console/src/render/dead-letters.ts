// The dead letters of every inbox, newest first, each with its tries and Replay.
import type { WebhookSource } from "@kirimbayar/core/webhooks";
import type { TextRedactor } from "../data/redact.js";
import type { Settled } from "../data/settle.js";
import type { ConsoleDeadLetter } from "../options.js";
import { html } from "./html.js";
import { SOURCE_LABELS } from "./labels.js";
import { layout, type PageContext } from "./layout.js";
import { deadLetterItem } from "./search.js";

/** The dead letters read from one source's inbox. */
export interface InboxDeadLetters {
  readonly source: WebhookSource;
  readonly letters: Settled<readonly ConsoleDeadLetter[]>;
}

/** The dead-letters page. */
export function deadLettersPage(
  context: PageContext,
  inboxes: readonly InboxDeadLetters[],
  redact: TextRedactor,
): string {
  const sections = inboxes.map(
    ({ source, letters }) => html`<section aria-labelledby="${source}"><h3 id="${source}">${SOURCE_LABELS[source]}</h3>
${!letters.ok ? html`<p class="bad">Could not be read right now (the app's error log has why).</p>` : letters.value.length === 0 ? html`<p class="muted">No dead letters.</p>` : html`<ol class="timeline">${letters.value.map((letter) => deadLetterItem(context, source, letter, redact))}</ol>`}
</section>`,
  );
  const content =
    inboxes.length === 0
      ? html`<p class="muted">No inbox is configured in this console.</p>`
      : html`<p class="muted">Replaying queues the event again: the inbox worker runs it through the idempotency store, so it is applied at most once.</p>${sections}`;
  return layout(context, "Dead letters", content);
}
