// Redaction shared by every journal: what a journal keeps of a body or an error never holds a secret. Webhook
// bodies and error messages are text from outside; these helpers mask what looks like a credential and keep the
// rest as it is (ids, amounts, statuses), so a person can still read the story.

/** The longest error summary a journal keeps. */
export const MAX_ERROR_SUMMARY = 500;
const REDACTED = "[redacted]";
// Names of fields and parameters whose values are credentials.
const SECRET_NAME =
  /token|secret|passw|pwd|api[_-]?key|callback[_-]?key|private[_-]?key|authori[sz]ation|signature|cookie|credential|^key$|^auth$/i;
// `name=value` or `name: value` pairs in free text (query strings, header dumps, messages).
const SECRET_PAIR =
  /\b([\w-]*(?:token|secret|passw(?:or)?d?|pwd|api[_-]?key|apikey|callback[_-]?key|signature|authori[sz]ation|cookie|credential)[\w-]*)(["']?\s*[=:]\s*["']?)(?:(?:bearer|basic)\s+)?[^\s"'&,;}]+/gi;
const AUTH_SCHEME = /\b(bearer|basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi;
const URL_USERINFO = /(\/\/)[^/\s:@]*:[^/\s@]+@/g;
// JSON Web Tokens, and long runs of key-like characters (hex or base64 keys) without the hyphens of ids.
const JWT = /\beyJ[\w-]+\.[\w-]+\.[\w-]*/g;
const LONG_KEY = /\b[A-Za-z0-9+/_]{40,}={0,2}/g;

/**
 * Masks every secret-looking part of free text: `token=…` and other credential parameters in URLs and messages,
 * `Authorization`/`Bearer`/`Basic` values, passwords in URLs, JSON Web Tokens and long key-like strings.
 *
 * @example
 * redactText("GET /hook?token=abc123&id=7") // "GET /hook?token=[redacted]&id=7"
 */
export function redactText(text: string): string {
  return text
    .replace(SECRET_PAIR, `$1$2${REDACTED}`)
    .replace(AUTH_SCHEME, `$1 ${REDACTED}`)
    .replace(URL_USERINFO, `$1${REDACTED}@`)
    .replace(JWT, REDACTED)
    .replace(LONG_KEY, REDACTED);
}

/**
 * A raw body as a journal may keep it: a JSON body with the values of secret-looking fields (`token`, `api_key`,
 * `callback_key`, `password`, `signature`, `authorization` …) replaced by `"[redacted]"` and every other string
 * value passed through {@link redactText}; any other text through {@link redactText} as a whole.
 *
 * @example
 * redactBody('{"order_no":"A1","callback_key":"k"}') // '{"order_no":"A1","callback_key":"[redacted]"}'
 */
export function redactBody(text: string): string {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return redactText(text);
  }
  return JSON.stringify(redactValue(value, 0));
}

function redactValue(value: unknown, depth: number): unknown {
  if (typeof value === "string") return redactText(value);
  if (typeof value !== "object" || value === null) return value;
  if (depth > 32) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1));
  const copy: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) {
    copy[name] = SECRET_NAME.test(name) && field !== null && field !== "" ? REDACTED : redactValue(field, depth + 1);
  }
  return copy;
}

/**
 * A short summary of an error for a journal entry: its name and message (and its cause's, one level), on one
 * line, without a stack, secrets masked ({@link redactText}), at most 500 characters.
 *
 * @example
 * summarizeError(new Error("connect failed for postgres://app:hunter2@db/shop")) // "Error: connect failed for postgres://[redacted]@db/shop"
 */
export function summarizeError(error: unknown): string {
  let text = describe(error);
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause !== undefined && cause !== error) text += `; cause: ${describe(cause)}`;
  const summary = redactText(
    text
      .slice(0, 8 * MAX_ERROR_SUMMARY)
      .replace(/\s+/g, " ")
      .trim(),
  );
  return summary.length > MAX_ERROR_SUMMARY ? `${summary.slice(0, MAX_ERROR_SUMMARY - 1)}…` : summary;
}

// One error's name and message, without the lines of a stack a message may carry.
function describe(error: unknown): string {
  let text: string;
  if (error instanceof Error) text = error.message === "" ? error.name : `${error.name}: ${error.message}`;
  else if (typeof error === "string") text = error;
  else {
    try {
      text = String(error);
    } catch {
      return "unknown error";
    }
  }
  return text
    .split("\n")
    .filter((line) => !/^\s*at\s/.test(line))
    .join(" ");
}
