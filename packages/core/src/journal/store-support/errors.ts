import { KirimbayarError } from "../../errors/base.js";

/**
 * A journal could not store entries (the database refused the write, did not answer, or the journal was closed).
 * Its message names the journal and the operation only; `cause` keeps the driver's error class, code and message,
 * never the statement's values (references, bodies) nor a connection string.
 *
 * @example
 * journal.record([entry]).catch((e) => { if (e instanceof DeliveryJournalWriteError) metrics.increment(e.code) });
 */
export class DeliveryJournalWriteError extends KirimbayarError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { code: "delivery_journal_write_failed", cause: options.cause });
  }
}

/**
 * Entries a batching journal dropped without writing them: its buffer was full (the database is slower than the
 * deliveries, or away). Reported to the journal's `onError`, and the dropped entries' `record()` promises reject
 * with it.
 */
export class DeliveryJournalOverflowError extends KirimbayarError {
  /** How many entries this drop discarded. */
  readonly dropped: number;
  /** How many entries the journal dropped since it was built. */
  readonly droppedTotal: number;

  constructor(dropped: number, droppedTotal: number) {
    super(`The delivery journal's buffer was full: ${dropped} entries dropped (${droppedTotal} in all)`, {
      code: "delivery_journal_overflow",
    });
    this.dropped = dropped;
    this.droppedTotal = droppedTotal;
  }
}

/** A driver error without its values: pg, mysql2 and the ORMs may carry the statement, its parameters or a URL. */
export function sanitizedCause(error: unknown): Error {
  const source = error as { name?: unknown; code?: unknown; message?: unknown } | undefined;
  const name = typeof source?.name === "string" ? source.name : "Error";
  const code = typeof source?.code === "string" || typeof source?.code === "number" ? String(source.code) : undefined;
  // Only the first line: some drivers append the statement (and its values) after it.
  const message = typeof source?.message === "string" ? stripUrls(source.message.split("\n")[0] ?? "") : "";
  const cause = new Error(message.slice(0, 300));
  cause.name = name;
  if (code !== undefined) (cause as Error & { code?: string }).code = code;
  return cause;
}

// A connection string may carry a password (postgres://user:secret@host, redis://:secret@host).
function stripUrls(text: string): string {
  return text.replace(/[a-z][a-z0-9+.-]*:\/\/\S+/gi, "<url>");
}

/** The journal's write error for `operation`, its cause sanitised. */
export function writeFailed(journal: string, operation: string, error: unknown): DeliveryJournalWriteError {
  if (error instanceof DeliveryJournalWriteError || error instanceof DeliveryJournalOverflowError) {
    return error as DeliveryJournalWriteError;
  }
  return new DeliveryJournalWriteError(`${journal} ${operation} failed`, { cause: sanitizedCause(error) });
}
