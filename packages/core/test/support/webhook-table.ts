// Runner shared by the per-source request tables (webhooks-*-table.test.ts). Each table declares only its rows and
// how to build its receiver; the loop that sends the rows and the checks every answer must pass live here, so that
// the three sources are held to one contract and a new check reaches all of them at once.
import { describe, expect, it } from "vitest";
import type { WebhookHttpRequest } from "../../src/webhooks/contract.js";
import type { WebhookReceiver } from "../../src/webhooks.js";
import { bodyOf, type DeliveredEvent, webhookRequest } from "./webhook-requests.js";

/** The issue asks for at least this many requests per source, good and hostile together. */
export const MIN_TABLE_ROWS = 50;

/** Logger for table receivers: rows that expect a 500 would otherwise print their error to the test output. */
export const silentLogger = { error: () => {} };

/** One delivery of a table and the answer it must get. */
export interface WebhookTableRow {
  /** The test name: what is special about this delivery. */
  name: string;
  /** The delivery; the parts it leaves out come from {@link webhookRequest}. */
  request: Partial<WebhookHttpRequest>;
  /** Sent first, each must be answered 200 (replays). */
  before?: Partial<WebhookHttpRequest>[];
  status: number;
  /** Handler calls over the whole row, `before` deliveries included. */
  calls: number;
  /** What the answer's `message` must match, where the reason matters. */
  message?: RegExp;
  /** Checks on the delivered events, for rows about what the handler receives. */
  check?: (events: DeliveredEvent[]) => void;
}

/** A receiver built for one row, with the checks only its source has. */
export interface TableReceiver<R extends WebhookTableRow> {
  receiver: WebhookReceiver;
  /** Run after the shared checks, e.g. the call count of a second handler. */
  verify?: (row: R) => void;
}

/** A source's table: its rows, its receiver and what its answers must (not) show. */
export interface WebhookTable<R extends WebhookTableRow> {
  /** The `describe` title. */
  title: string;
  rows: R[];
  /**
   * Builds a fresh receiver for each row, so that no replay state leaks from one row to the next; its handlers push
   * what they receive into `events`.
   */
  setup: (events: DeliveredEvent[]) => TableReceiver<R>;
  /** Secrets no answer body may contain, in any letter case (an error message must never echo a token or key). */
  secrets: readonly string[];
  /** The `Allow` header a 405 must carry: the methods the source's sender may use. */
  allow: string;
}

/** Declares the table's tests: the row count, then one test per row, named `<row name> → <status>`. */
export function describeWebhookTable<R extends WebhookTableRow>(table: WebhookTable<R>): void {
  describe(table.title, () => {
    it(`has at least ${MIN_TABLE_ROWS} rows`, () => expect(table.rows.length).toBeGreaterThanOrEqual(MIN_TABLE_ROWS));

    it.each(table.rows)("$name → $status", async (row) => {
      const events: DeliveredEvent[] = [];
      const { receiver, verify } = table.setup(events);
      for (const earlier of row.before ?? []) {
        expect((await receiver.handle(webhookRequest(earlier))).status).toBe(200);
      }
      const response = await receiver.handle(webhookRequest(row.request));
      const body = bodyOf(response);

      expect(response.status).toBe(row.status);
      expect(body.success).toBe(row.status === 200);
      expect(response.headers["content-type"]).toMatch(/^application\/json/);
      expect(events).toHaveLength(row.calls);
      if (row.message !== undefined) expect(body.message).toMatch(row.message);
      for (const secret of table.secrets) expect(response.body.toLowerCase()).not.toContain(secret.toLowerCase());
      if (row.status === 405) expect(response.headers.allow).toBe(table.allow);
      verify?.(row);
      row.check?.(events);
    });
  });
}
