// The two actions. Both only go through what already applies events exactly once: the inbox's replayDeadLetter
// (the worker runs the event through the idempotency store) and the reconciler (the receiver's handlers and store).
import type { PendingReference } from "@kirimbayar/core";
import type { WebhookSource } from "@kirimbayar/core/webhooks";
import type { ConsoleConfig } from "./config.js";
import type { NoticeCode } from "./render/notices.js";
import { urlOf } from "./routes.js";

/** Form fields of an action. */
export type ActionForm = URLSearchParams;

const sourceOf = (value: string | null): WebhookSource | undefined =>
  value === "qris" || value === "payment" || value === "orders" ? value : undefined;

/** A field, trimmed, at most 256 characters; undefined when missing, empty or longer. */
function field(form: ActionForm, name: string): string | undefined {
  const value = form.get(name)?.trim();
  return value === undefined || value === "" || value.length > 256 ? undefined : value;
}

/** Replays one dead letter; answers where to go back to, with the notice to show there. */
export async function replay(config: ConsoleConfig, form: ActionForm): Promise<string> {
  const reference = field(form, "q");
  const back = (notice: NoticeCode) =>
    reference === undefined
      ? urlOf(config.base, "deadLetters", { notice })
      : urlOf(config.base, "search", { q: reference, notice });
  const source = sourceOf(form.get("source"));
  const id = field(form, "id");
  const inbox = source === undefined ? undefined : config.inboxes[source];
  if (inbox === undefined) return back("replay_unavailable");
  if (id === undefined) return back("replay_missing");
  try {
    return back((await inbox.replayDeadLetter(id)) ? "replayed" : "replay_missing");
  } catch (error) {
    config.report(error, `inboxes.${source}.replayDeadLetter`);
    return back("replay_failed");
  }
}

/** Reconciles one reference now; answers the search page of that reference, with the outcome as its notice. */
export async function reconcile(config: ConsoleConfig, form: ActionForm): Promise<string> {
  const reference = field(form, "reference");
  const source = sourceOf(form.get("source"));
  const back = (notice: NoticeCode) =>
    reference === undefined
      ? urlOf(config.base, "overview", { notice })
      : urlOf(config.base, "search", { q: reference, notice });
  if (config.reconciler === undefined) return back("reconcile_unavailable");
  if (reference === undefined || (source !== "qris" && source !== "payment")) return back("reconcile_invalid");
  const pending: PendingReference =
    source === "qris" ? { source, history_id: reference } : { source, payment_id: reference };
  try {
    const [result] = await config.reconciler.reconcile([pending]);
    if (result === undefined) return back("reconcile_failed");
    if (result.outcome === "failed") config.report(result.error, "reconciler.reconcile");
    return back(`reconcile_${result.outcome}`);
  } catch (error) {
    // The reconciler throws only for a reference it cannot take (no client or receiver for that source).
    config.report(error, "reconciler.reconcile");
    return back("reconcile_unavailable");
  }
}
