// What the console's tests share: a console over the real memory journal, a small inbox and reconciler that
// record what they are asked, hostile values, and requests as a browser would send them.
import type { PendingReference, ReconcileResult } from "@kirimbayar/core";
import type { IdempotencyRecordView } from "@kirimbayar/core/journal";
import { type JournalEntry, MemoryDeliveryJournal } from "@kirimbayar/core/journal";
import {
  type ConsoleDeadLetter,
  type ConsoleInbox,
  type ConsoleReconciler,
  createWebhookConsole,
  type WebhookConsoleOptions,
} from "../src/index.js";

export const BASE = "/kirimbayar/console";
export const ORIGIN = "http://shop.test";
/** 2026-11-27 12:00:00 UTC. */
export const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);
export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;

/** Values an attacker can put into a webhook's fields. */
export const HOSTILE = {
  script: "<script>alert(1)</script>",
  javascriptUrl: "javascript:alert(1)",
  quotes: `"'><img src=x onerror=alert(1)>`,
  long: `L${"x".repeat(20_000)}`,
  rtl: "\u202Egnp.exe\u202C 🧾💸 مرحبا",
} as const;

/** A secret that must never appear on a page. */
export const WEBHOOK_TOKEN = "whk_live_5ecr3t_t0ken_value";

/** A webhook token of issue 38's length (22 characters), of no shape a name pattern would catch. */
export const SHORT_TOKEN = "q7Hx2vK9pLmN4sR8wZ1yBc";

/** Words (no run a key pattern would mask) filling `length` characters. */
export const filler = (length: number) => "the shop's order ".repeat(Math.ceil(length / 17)).slice(0, length);

/** Every piece of `secret`, 4 characters or more, that `text` shows (none, or the console leaked it). */
export function piecesOf(secret: string, text: string): string[] {
  const found: string[] = [];
  for (let start = 0; start + 4 <= secret.length; start++) {
    const piece = secret.slice(start, start + 4);
    if (text.includes(piece)) found.push(piece);
  }
  return found;
}

/** An inbox in memory that records replays (the console only reads it and calls replayDeadLetter). */
export class RecordingInbox implements ConsoleInbox {
  readonly replayed: string[] = [];
  letters: ConsoleDeadLetter[] = [];
  stats = async () => ({ waiting: 3, active: 1, deadLetters: this.letters.length, oldestWaitingAgeMs: 7 * MINUTE });
  async listDeadLetters() {
    return this.letters;
  }
  async getDeadLetter(id: string) {
    return this.letters.find((letter) => letter.id === id);
  }
  async replayDeadLetter(id: string) {
    const index = this.letters.findIndex((letter) => letter.id === id);
    if (index < 0) return false;
    this.letters.splice(index, 1);
    this.replayed.push(id);
    return true;
  }
}

/** A reconciler that records the references it is asked about and answers `outcome`. */
export class RecordingReconciler implements ConsoleReconciler {
  readonly asked: PendingReference[] = [];
  outcome: ReconcileResult["outcome"] = "applied";
  async reconcile(references: readonly PendingReference[]) {
    this.asked.push(...references);
    return references.map((reference) => ({ reference, outcome: this.outcome }));
  }
}

/** An idempotency store with `inspect` (the console never calls anything else of it). */
export function inspectableStore(records: Record<string, IdempotencyRecordView>) {
  return {
    claim: () => ({ state: "claimed" as const }),
    complete: () => true,
    release: () => true,
    inspect: async (key: string) => records[key],
  };
}

/** An entry as a receiver journals it, with defaults. */
export function entry(fields: Partial<JournalEntry> & Pick<JournalEntry, "at">): JournalEntry {
  return {
    source: "qris",
    origin: "webhook",
    references: {},
    httpStatus: 200,
    outcome: "processed",
    instance: "web-1",
    ...fields,
  };
}

/** Who the test requests are: `x-test-user` names the user; without it, authorize refuses. */
export const authorizeByHeader = (request: Request) => request.headers.get("x-test-user") ?? false;

/** A console over a memory journal at a settable clock. */
export function setup(overrides: Partial<WebhookConsoleOptions> = {}) {
  const clock = { now: NOW };
  const journal = new MemoryDeliveryJournal({ clock: () => clock.now, instance: "web-1" });
  const inbox = new RecordingInbox();
  const reconciler = new RecordingReconciler();
  const errors: { error: unknown; operation: string }[] = [];
  const console = createWebhookConsole({
    journal,
    authorize: authorizeByHeader,
    basePath: BASE,
    inboxes: { qris: inbox },
    reconciler,
    clock: () => clock.now,
    secrets: [WEBHOOK_TOKEN],
    onError: (error, { operation }) => errors.push({ error, operation }),
    ...overrides,
  });
  return { console, journal, inbox, reconciler, clock, errors };
}

/** A GET as the signed-in browser of `user` sends it (`null`: signed out). */
export function get(path: string, user: string | null = "alice", headers: Record<string, string> = {}) {
  return new Request(`${ORIGIN}${path}`, {
    headers: { ...(user === null ? {} : { "x-test-user": user }), ...headers },
  });
}

/** A form POST as a same-origin page of `user` sends it (override the headers to forge it). */
export function post(
  path: string,
  fields: Record<string, string>,
  user: string | null = "alice",
  headers: Record<string, string> = { origin: ORIGIN, "sec-fetch-site": "same-origin" },
) {
  return new Request(`${ORIGIN}${path}`, {
    method: "POST",
    headers: {
      "content-type": "application/x-www-form-urlencoded",
      ...(user === null ? {} : { "x-test-user": user }),
      ...headers,
    },
    body: new URLSearchParams(fields).toString(),
  });
}

/** The CSRF token of a rendered page's forms. */
export function tokenOf(page: string): string {
  const match = /name="csrf" value="([^"]+)"/.exec(page);
  if (match === null) throw new Error("the page has no form with a CSRF token");
  return match[1] as string;
}
