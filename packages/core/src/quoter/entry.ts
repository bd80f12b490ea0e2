import type { RateEntry } from "./types.js";

/**
 * Freezes an answer and its options before it is kept in memory: quotes hand out the cached options themselves (no
 * copy per hit), so a caller that sorts or edits them gets a TypeError instead of changing the next customer's quote.
 *
 * @example
 * store.set(key, frozenEntry({ fetchedAt: now, options }));
 */
export function frozenEntry(entry: RateEntry): RateEntry {
  if (Object.isFrozen(entry)) return entry;
  for (const option of entry.options) Object.freeze(option);
  Object.freeze(entry.options);
  return Object.freeze(entry);
}
