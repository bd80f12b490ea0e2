// The console's public option and result types. A stable API: add optional members, never rename.
import type { PendingReference, ReconcileResult } from "@kirimbayar/core";
import type { IdempotencyStore, WebhookSource } from "@kirimbayar/core/webhooks";
import type { DeliveryJournal } from "./journal.js";

/**
 * What `authorize` decides: `false` refuses the request; `true` lets it in; a non-empty string lets it in as that
 * session or user id, which the CSRF tokens of the page's forms are bound to (recommended: a token of one user is
 * then useless to another). An empty string refuses, as does anything else that is not `true`.
 */
export type ConsoleAuthorization = boolean | string;

/**
 * Decides whether a request may see the console (every route, pages and actions alike). Called once per request;
 * it throws or rejects → the request is refused (403). Reuse the app's own session or admin check here.
 */
export type ConsoleAuthorize = (request: Request) => ConsoleAuthorization | PromiseLike<ConsoleAuthorization>;

/** One failed try of a queued event, as an inbox reports it. */
export interface ConsoleInboxAttempt {
  /** When the try failed (epoch ms). */
  readonly at: number;
  /** Which try it was (1-based). */
  readonly attempt: number;
  /** The try's error message (shown after redaction). */
  readonly error: string;
}

/** A dead letter as an inbox reports it (`@kirimbayar/inbox`'s `DeadLetter`). */
export interface ConsoleDeadLetter {
  /** The engine's id of the dead letter (what Replay passes back). */
  readonly id: string;
  /** The queued event. */
  readonly message: {
    /** The event's idempotency key. */
    readonly key: string;
    readonly source: WebhookSource;
    /** The verified body: the console never shows it, it only reads the references out of it. */
    readonly body: string;
    /** When the delivery arrived (epoch ms). */
    readonly receivedAt: number;
  };
  /** Every failed try, oldest first. */
  readonly attempts: readonly ConsoleInboxAttempt[];
  /** When it became a dead letter (epoch ms). */
  readonly deadAt: number;
}

/** The part of an inbox the console uses: `@kirimbayar/inbox`'s `InboxQueue` (pg-boss, BullMQ) is one. */
export interface ConsoleInbox {
  /** Dead letters, newest first (the console asks for at most 500). */
  listDeadLetters(options?: { limit?: number }): Promise<readonly ConsoleDeadLetter[]>;
  /** The only way the console acts on an inbox: the event is queued again and runs through the idempotency store. */
  replayDeadLetter(id: string): Promise<boolean>;
  /** Counts for the overview: waiting and active events, dead letters, the oldest waiting event's age (ms). */
  stats(): Promise<{
    readonly waiting: number;
    readonly active: number;
    readonly deadLetters: number;
    readonly oldestWaitingAgeMs: number | undefined;
  }>;
}

/** The part of a reconciler the console uses: core's `Reconciler` (`createReconciler`) is one. */
export interface ConsoleReconciler {
  /** Reconciles the references once (the console passes one at a time). */
  reconcile(references: readonly PendingReference[]): Promise<readonly ReconcileResult[]>;
}

/** Something per webhook source. */
export type PerSource<T> = { readonly [source in WebhookSource]?: T };

/** Options of {@link createWebhookConsole}. */
export interface WebhookConsoleOptions {
  /** Where receivers journal their deliveries (`createWebhookReceiver({ journal })`). Required. */
  journal: DeliveryJournal;
  /**
   * Who may use the console. Required: the console refuses to be built without it. Return a session or user id
   * (a string) to bind the forms' CSRF tokens to it, `true` to let the request in, `false` to refuse (401).
   */
  authorize: ConsoleAuthorize;
  /**
   * The path the console is mounted at, e.g. `"/kirimbayar/console"` (a trailing slash is dropped). Letters,
   * digits and `-._~/` only. Every link and form of the page starts with it.
   */
  basePath: string;
  /**
   * The idempotency store of each source: the timeline shows the current record of an event's key through the
   * store's `inspect(key)` where it has one (never the raw store).
   */
  stores?: PerSource<IdempotencyStore> | undefined;
  /** The inbox of each source (inbox-mode receivers): depth, oldest waiting event, dead letters and their replay. */
  inboxes?: PerSource<ConsoleInbox> | undefined;
  /** The reconciler: enables "reconcile this reference now" for QR and payment-gateway payments. */
  reconciler?: ConsoleReconciler | undefined;
  /**
   * The key CSRF tokens are signed with (HMAC-SHA-256), at least 32 characters or bytes. Default: random per
   * process, so tokens stop working on a restart and on another instance: give every instance the same secret
   * when a load balancer may send a form's POST to another instance than its page.
   */
  secret?: string | Uint8Array | undefined;
  /** How long a page's forms stay usable (ms; default 2 hours). */
  csrfTtlMs?: number | undefined;
  /**
   * Origins that may POST the console's forms besides the request's own (`https://shop.example`): when a proxy in
   * front of the app changes the scheme or host the app sees.
   */
  allowedOrigins?: readonly string[] | undefined;
  /** Sent as `WWW-Authenticate` with a 401, e.g. `'Basic realm="console"'` when `authorize` checks Basic auth. */
  unauthorizedChallenge?: string | undefined;
  /** Title of the pages (default `"Webhook console"`). */
  title?: string | undefined;
  /**
   * The sources the shop receives webhooks from: each gets a card on the overview, with a warning when it was
   * silent. Default: the sources of `stores` and `inboxes`, plus any the journal saw in the last 24 hours.
   */
  sources?: readonly WebhookSource[] | undefined;
  /** A source without a successful webhook delivery for this long is flagged as silent (ms; default 3 hours). */
  silentAfterMs?: number | undefined;
  /** Secret values (API keys, callback keys, webhook tokens) scrubbed from anything shown, on top of the usual names. */
  secrets?: readonly string[] | undefined;
  /** Epoch milliseconds; default `Date.now`. */
  clock?: (() => number) | undefined;
  /**
   * Told when a part of a page could not be read (the journal, an inbox, a store) or an action failed; the page
   * itself only says that it failed, never why. Default: nothing.
   */
  onError?: ((error: unknown, context: { readonly operation: string }) => void) | undefined;
}

/** The console: a Web `Request → Response` handler for everything under {@link WebhookConsole.basePath}. */
export interface WebhookConsole {
  /** The normalised base path (`"/kirimbayar/console"`; `"/"` when mounted at the root). */
  readonly basePath: string;
  /**
   * Answers one request under the base path: the pages (`GET /`, `/search?q=`, `/dead-letters`), the actions
   * (`POST /actions/replay`, `/actions/reconcile`), 404 for other paths, 405 for other methods, and 400 before
   * anything else (`authorize` included) for a malformed `Host` header (`a b`, `[::1`, `a@b`). Never throws.
   */
  fetch(request: Request): Promise<Response>;
}
