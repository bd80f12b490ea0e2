import { createHash, timingSafeEqual } from "node:crypto";
import { type ConsoleReconciler, createWebhookConsole, type WebhookConsole } from "@kirimbayar/console";
import type { DeliveryJournal } from "@kirimbayar/core/journal";
import type { IdempotencyStore } from "@kirimbayar/core/webhooks";

/** Where every example shop serves its webhook console. */
export const CONSOLE_PATH = "/kirimbayar/console";
/** The user name of the console's HTTP Basic login (the password is `KIRIMBAYAR_CONSOLE_PASSWORD`). */
export const CONSOLE_USER = "operator";

/** What {@link createShopConsole} needs. */
export interface ShopConsoleOptions {
  journal: DeliveryJournal;
  /** The console password (`config.console.password`). */
  password: string;
  /** The idempotency store behind the three receivers: the timeline shows each event's current record. */
  store?: IdempotencyStore;
  /** The shop's reconciler: enables "reconcile this reference now". */
  reconciler?: ConsoleReconciler;
  /** Secret values never to show (the shop's webhook token, callback key and API keys). */
  secrets: readonly string[];
}

/**
 * The shop's webhook console at {@link CONSOLE_PATH}, behind HTTP Basic (`operator` and the console password): a
 * production shop would put its own admin login in `authorize` instead. Each framework mounts it in one line.
 *
 * @example
 * const webConsole = createShopConsole({ journal, password: config.console.password, secrets: [] });
 * app.use(webConsole.basePath, consoleRouter(webConsole));
 */
export function createShopConsole(options: ShopConsoleOptions): WebhookConsole {
  const expected = digest(`${CONSOLE_USER}:${options.password}`);
  return createWebhookConsole({
    journal: options.journal,
    basePath: CONSOLE_PATH,
    // Compared as digests of equal length, in constant time; the operator's name binds the forms' CSRF tokens.
    authorize: (request) => {
      const given = basicCredentials(request.headers.get("authorization"));
      return given !== undefined && timingSafeEqual(digest(given), expected) ? CONSOLE_USER : false;
    },
    unauthorizedChallenge: 'Basic realm="kirimbayar console", charset="UTF-8"',
    ...(options.store === undefined
      ? {}
      : { stores: { qris: options.store, payment: options.store, orders: options.store } }),
    ...(options.reconciler === undefined ? {} : { reconciler: options.reconciler }),
    sources: ["qris", "payment", "orders"],
    secrets: options.secrets.filter((secret) => secret !== ""),
  });
}

/** `user:password` of an `Authorization: Basic …` header, if it is one. */
function basicCredentials(header: string | null): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header ?? "");
  if (match === null) return undefined;
  return Buffer.from(match[1] as string, "base64").toString("utf8");
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}
