// JSON parsing for untrusted webhook bodies. `JSON.parse` itself is safe, but its result is not: an own
// `__proto__` key turns into a prototype change as soon as code copies the object with assignment (a zod loose
// object, `Object.assign`, a deep merge), and a duplicate key is silently resolved to its last value, so two
// systems reading the same body may disagree on, e.g., the status. Both are refused at every depth.

const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);
// Their lengths: a key of any other length skips hashing into the set (most keys, on every delivery).
const FORBIDDEN_KEY_LENGTHS = new Set([...FORBIDDEN_KEYS].map((key) => key.length));
// Objects are checked for duplicates with a linear scan up to this many keys, then with a Set.
const LINEAR_SCAN_LIMIT = 16;

/** Outcome of {@link parseUntrustedJson}: the value, or the reason the body was refused. */
export type JsonParseResult = { ok: true; value: unknown } | { ok: false; reason: string };

/** Options of {@link parseUntrustedJson}. */
export interface UntrustedJsonOptions {
  /** Refuse objects that repeat a key (default true). */
  rejectDuplicateKeys?: boolean;
}

/**
 * Parses a webhook body, refusing `__proto__`, `constructor` and `prototype` keys and (by default) duplicate keys
 * at any depth, including keys spelled with `\u` escapes.
 *
 * @example
 * parseUntrustedJson('{"a":1,"a":2}'); // { ok: false, reason: 'duplicate key "a" in a JSON object' }
 */
export function parseUntrustedJson(text: string, options: UntrustedJsonOptions = {}): JsonParseResult {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, reason: "body is not valid JSON" };
  }
  const problem = findKeyProblemIn(value, text, options.rejectDuplicateKeys ?? true);
  return problem === undefined ? { ok: true, value } : { ok: false, reason: problem };
}

/**
 * {@link findKeyProblem} for a document already parsed into `value`, answered quickly in the usual case of a clean
 * body: the parsed objects are walked for prototype keys, and duplicates are detected by counting, since an object
 * that repeats a key holds fewer keys than the text spells. Only a body with a problem takes the full scan, which
 * names the first problem in text order.
 */
export function findKeyProblemIn(value: unknown, text: string, rejectDuplicates: boolean): string | undefined {
  // Counting matters even when duplicates are allowed: the value a repeated key dropped is not in the parsed
  // result, and a prototype key may hide in it.
  const parsedKeys = countKeysUnlessForbidden(value);
  if (parsedKeys >= 0 && parsedKeys === countKeysInText(text)) return undefined;
  return findKeyProblem(text, rejectDuplicates);
}

/**
 * {@link findKeyProblemIn} for text that `JSON.stringify` wrote, which never repeats a key: only the walk for
 * prototype keys, without counting the keys the text spells.
 */
export function findPrototypeKeyIn(value: unknown, text: string): string | undefined {
  return countKeysUnlessForbidden(value) >= 0 ? undefined : findKeyProblem(text, false);
}

// Containers still to visit by countKeysUnlessForbidden. One array for every call (the walk is synchronous and
// leaves it empty), so a delivery does not grow a new one.
const pending: object[] = [];

// The number of keys of every object in a parsed JSON value, or -1 on a prototype key. An explicit stack keeps a
// deeply nested body (which `JSON.parse` accepts) from overflowing the call stack.
function countKeysUnlessForbidden(value: unknown): number {
  if (typeof value !== "object" || value === null) return 0;
  let count = 0;
  pending.push(value);
  while (pending.length > 0) {
    const container = pending.pop() as Record<string, unknown> | unknown[];
    if (Array.isArray(container)) {
      for (let i = 0; i < container.length; i++) {
        const item = container[i];
        if (typeof item === "object" && item !== null) pending.push(item);
      }
      continue;
    }
    // `JSON.parse` defines every key, `__proto__` included, as an own enumerable property.
    for (const key in container) {
      if (FORBIDDEN_KEY_LENGTHS.has(key.length) && FORBIDDEN_KEYS.has(key)) {
        pending.length = 0;
        return -1;
      }
      count++;
      const child = container[key];
      if (typeof child === "object" && child !== null) pending.push(child);
    }
  }
  return count;
}

// The number of keys a JSON text spells, duplicates included. In valid JSON every `"` outside a string opens one,
// and a string is a key exactly when a `:` follows it, so the walk jumps from string to string.
function countKeysInText(text: string): number {
  let count = 0;
  let open = text.indexOf('"');
  while (open !== -1) {
    let next = closingQuote(text, open) + 1;
    let code = text.charCodeAt(next);
    while (code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09) code = text.charCodeAt(++next);
    if (code === 0x3a /* : */) count++;
    open = text.indexOf('"', next);
  }
  return count;
}

/**
 * Why a document `JSON.parse` accepted must still be refused (a prototype key, or a duplicate key when
 * `rejectDuplicates`), or `undefined`. Call it only on text `JSON.parse` accepted.
 */
export function findKeyProblem(text: string, rejectDuplicates: boolean): string | undefined {
  // Walks the text looking at object keys only. Valid JSON keeps the walk simple: a string is a key exactly when
  // it follows `{` or an object's `,`. The keys of every open object sit in one flat list; `starts` holds where
  // each open container's keys begin (-1 for arrays).
  const keys: string[] = [];
  const starts: number[] = [];
  // Objects past LINEAR_SCAN_LIMIT keys get a Set, by the position where their keys start.
  let sets: Map<number, Set<string>> | undefined;
  let expectKey = false;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code === 0x22 /* " */) {
      const end = closingQuote(text, i);
      if (expectKey) {
        const key = readKey(text, i, end);
        if (FORBIDDEN_KEY_LENGTHS.has(key.length) && FORBIDDEN_KEYS.has(key))
          return `key "${key}" is not allowed in a webhook body`;
        if (rejectDuplicates) {
          const start = starts[starts.length - 1] as number;
          const set = sets?.get(start);
          if (set !== undefined) {
            if (set.has(key)) return duplicateKey(key);
            set.add(key);
          } else {
            for (let k = start; k < keys.length; k++) if (keys[k] === key) return duplicateKey(key);
            // Past a few keys a Set keeps a hostile body with thousands of keys linear.
            if (keys.length - start >= LINEAR_SCAN_LIMIT) {
              sets ??= new Map();
              sets.set(start, new Set(keys.slice(start)).add(key));
            }
          }
          keys.push(key);
        }
        expectKey = false;
      }
      i = end + 1;
      continue;
    }
    if (code === 0x7b /* { */) {
      starts.push(keys.length);
      expectKey = true;
    } else if (code === 0x5b /* [ */) {
      starts.push(-1);
    } else if (code === 0x7d /* } */ || code === 0x5d /* ] */) {
      const start = starts.pop() as number;
      if (start >= 0) {
        keys.length = start;
        sets?.delete(start);
      }
    } else if (code === 0x2c /* , */) {
      expectKey = (starts[starts.length - 1] ?? -1) >= 0;
    }
    i++;
  }
  return undefined;
}

function closingQuote(text: string, open: number): number {
  let end = text.indexOf('"', open + 1);
  for (;;) {
    let backslashes = 0;
    while (text.charCodeAt(end - 1 - backslashes) === 0x5c /* \ */) backslashes++;
    if (backslashes % 2 === 0) return end;
    end = text.indexOf('"', end + 1);
  }
}

function readKey(text: string, open: number, close: number): string {
  const key = text.slice(open + 1, close);
  // Escapes (`\u005f_proto__`) are decoded so a forbidden or repeated key cannot hide behind them.
  return key.includes("\\") ? (JSON.parse(text.slice(open, close + 1)) as string) : key;
}

function duplicateKey(key: string): string {
  const shown = key.length > 40 ? `${key.slice(0, 40)}…` : key;
  return `duplicate key ${JSON.stringify(shown)} in a JSON object`;
}
