// Checks the options once, at build time, and turns them into what the request handlers read.
import type { WebhookSource } from "@kirimbayar/core/webhooks";
import { ConsoleConfigurationError } from "./errors.js";
import type { ConsoleAuthorize, ConsoleInbox, ConsoleReconciler, PerSource, WebhookConsoleOptions } from "./options.js";

/** Every source, in the order the pages list them. */
export const SOURCES: readonly WebhookSource[] = ["qris", "payment", "orders"];

const HOUR = 3_600_000;

/** The checked options. */
export interface ConsoleConfig {
  readonly journal: WebhookConsoleOptions["journal"];
  readonly authorize: ConsoleAuthorize;
  /** Without a trailing slash; `""` at the root. */
  readonly base: string;
  readonly stores: PerSource<object>;
  readonly inboxes: PerSource<ConsoleInbox>;
  readonly reconciler: ConsoleReconciler | undefined;
  readonly secret: Uint8Array | undefined;
  readonly csrfTtlMs: number;
  readonly allowedOrigins: ReadonlySet<string>;
  readonly unauthorizedChallenge: string | undefined;
  readonly title: string;
  readonly sources: readonly WebhookSource[] | undefined;
  readonly silentAfterMs: number;
  readonly secrets: readonly string[];
  readonly clock: () => number;
  readonly report: (error: unknown, operation: string) => void;
}

// What a base path may hold: it is written into every link and form, so nothing that needs escaping in a URL.
const BASE_PATH = /^(?:\/[A-Za-z0-9._~-]+)*\/?$/;

/** `"/kirimbayar/console/"` → `"/kirimbayar/console"`; `"/"` → `""`. Throws on anything that is not a plain path. */
export function normaliseBasePath(basePath: unknown): string {
  if (
    typeof basePath !== "string" ||
    !basePath.startsWith("/") ||
    !BASE_PATH.test(basePath) ||
    /(^|\/)\.\.?(\/|$)/.test(basePath)
  ) {
    throw new ConsoleConfigurationError(
      "basePath",
      'createWebhookConsole: basePath must be an absolute path of letters, digits and "-._~/" (e.g. "/kirimbayar/console")',
    );
  }
  return basePath.replace(/\/+$/, "");
}

function positive(value: number | undefined, fallback: number, option: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0) {
    throw new ConsoleConfigurationError(option, `createWebhookConsole: ${option} must be a positive number of ms`);
  }
  return value;
}

function secretBytes(secret: string | Uint8Array | undefined): Uint8Array | undefined {
  if (secret === undefined) return undefined;
  const bytes = typeof secret === "string" ? new TextEncoder().encode(secret) : secret;
  if (!(bytes instanceof Uint8Array) || bytes.length < 32) {
    throw new ConsoleConfigurationError(
      "secret",
      "createWebhookConsole: secret must be at least 32 characters or bytes",
    );
  }
  return bytes;
}

function originOf(origin: string): string {
  try {
    const parsed = new URL(origin);
    if (parsed.origin !== "null") return parsed.origin;
  } catch {}
  throw new ConsoleConfigurationError(
    "allowedOrigins",
    'createWebhookConsole: allowedOrigins must be origins such as "https://shop.example"',
  );
}

/** Checks `options`; throws a {@link ConsoleConfigurationError} naming the first wrong option. */
export function configOf(options: WebhookConsoleOptions): ConsoleConfig {
  if (typeof options !== "object" || options === null) {
    throw new ConsoleConfigurationError("options", "createWebhookConsole: options are required");
  }
  if (typeof options.authorize !== "function") {
    throw new ConsoleConfigurationError(
      "authorize",
      "createWebhookConsole: authorize(request) is required: the console shows payments and replays events, so it is never open to everyone",
    );
  }
  const journal = options.journal;
  if (typeof journal !== "object" || journal === null || typeof journal.search !== "function") {
    throw new ConsoleConfigurationError("journal", "createWebhookConsole: journal (a DeliveryJournal) is required");
  }
  const base = normaliseBasePath(options.basePath);
  const onError = options.onError;
  return {
    journal,
    authorize: options.authorize,
    base,
    stores: options.stores ?? {},
    inboxes: options.inboxes ?? {},
    reconciler: options.reconciler,
    secret: secretBytes(options.secret),
    csrfTtlMs: positive(options.csrfTtlMs, 2 * HOUR, "csrfTtlMs"),
    allowedOrigins: new Set((options.allowedOrigins ?? []).map(originOf)),
    unauthorizedChallenge: options.unauthorizedChallenge,
    title: options.title ?? "Webhook console",
    sources: options.sources,
    silentAfterMs: positive(options.silentAfterMs, 3 * HOUR, "silentAfterMs"),
    secrets: (options.secrets ?? []).filter((secret) => typeof secret === "string" && secret !== ""),
    clock: options.clock ?? Date.now,
    report: (error, operation) => {
      try {
        onError?.(error, { operation });
      } catch {
        // A failing onError must not turn a page into an error.
      }
    },
  };
}
