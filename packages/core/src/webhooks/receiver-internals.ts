import { WebhookConfigurationError } from "./errors.js";
import type { Dispatch, JournalTap } from "./pipeline/journal.js";
import type { FailureReports } from "./pipeline/report.js";
import type { ReceiverConfig } from "./receiver-config.js";
import type { HandlerRegistry } from "./registry.js";

/**
 * What the stages outside the receiver object (`applyEvent`, `processInboxMessage`) need of a receiver. Kept under a
 * registered symbol, so that only apps that import those stages bundle them, and a receiver made by another copy of
 * core (its CommonJS build next to the ESM one) is still recognised.
 */
export interface ReceiverInternals {
  readonly config: ReceiverConfig;
  readonly reports: FailureReports;
  readonly registry: HandlerRegistry;
  /** The receiver's dispatch; with a journal, watched by it (its `journal` is then the journal's tap). */
  dispatch: Dispatch & { readonly journal?: JournalTap };
}

const RECEIVER_INTERNALS = Symbol.for("kirimbayar.webhookReceiver");

/** Attaches `internals` to `receiver`, not enumerable (a spread or a log of the receiver leaves them out). */
export function attachInternals(receiver: object, internals: ReceiverInternals): void {
  Object.defineProperty(receiver, RECEIVER_INTERNALS, { value: internals });
}

/** The internals of a receiver made by `createWebhookReceiver`; throws a clear error for anything else. */
export function internalsOf(receiver: unknown, caller: string): ReceiverInternals {
  const internals = (receiver as Record<symbol, ReceiverInternals | undefined> | null | undefined)?.[
    RECEIVER_INTERNALS
  ];
  if (internals === undefined) {
    throw new WebhookConfigurationError(`${caller}: the receiver must be one createWebhookReceiver made`);
  }
  return internals;
}

/** Whether `receiver` was made by `createWebhookReceiver`. */
export function isWebhookReceiver(receiver: unknown): boolean {
  return (receiver as Record<symbol, unknown> | null | undefined)?.[RECEIVER_INTERNALS] !== undefined;
}
