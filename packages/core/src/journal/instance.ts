// The default name of the process that writes journal entries: small, so the reconciler can use it too.

/**
 * Which process answered, for `JournalEntry.instance` when the journal names none: the `HOSTNAME` environment
 * variable and the pid where the runtime has them, else `"unknown"`.
 *
 * @example
 * defaultJournalInstance() // "shop-7d9f:4312"
 */
export function defaultJournalInstance(): string {
  const runtime = (globalThis as { process?: { pid?: number; env?: Record<string, string | undefined> } }).process;
  const parts = [runtime?.env?.HOSTNAME, runtime?.pid].filter((part) => part !== undefined && part !== "");
  return parts.length === 0 ? "unknown" : parts.join(":");
}
