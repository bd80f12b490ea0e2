// Redaction shared by every journal: what a journal keeps of a body or an error never holds a secret. Webhook
// bodies and error messages are text from outside; these helpers mask what looks like a credential and keep the
// rest as it is (ids, amounts, statuses), so a person can still read the story.

/** The longest error summary a journal keeps. */
export const MAX_ERROR_SUMMARY = 500;
/**
 * The shortest piece of a known secret that {@link secretRedactor} masks where it was cut off at either end of a text:
 * a cut can leave at most this many characters less one of a secret in view.
 */
export const MIN_SECRET_FRAGMENT = 4;
const REDACTED = "[redacted]";
// How much of an error's text is searched for secrets before its summary is cut: far beyond the summary's length, so
// that no cut of a secret can come into it.
const SCANNED_ERROR_TEXT = 16 * 1024;
const ELLIPSES = ["…", "..."];
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

/** Masks secrets in text: a {@link secretRedactor}, or any function of yours that returns the text with them masked. */
export type SecretMask = (text: string) => string;

/**
 * Masks known secret values in text: each wherever it appears (also URL-encoded, `+` for spaces, and JSON-escaped),
 * and a piece of one of at least {@link MIN_SECRET_FRAGMENT} characters cut off at either end of the text (its end
 * cut at a length limit, with or without an ellipsis after it, or its start cut from the front), so that cutting a
 * text can never leave part of a secret in view. Mask before cutting where you can; this catches texts cut before.
 *
 * @example
 * const mask = secretRedactor(["tok_7Hq2vX9pLmN4sR8wZ1yB"]);
 * mask("GET /hook/tok_7Hq2vX9pLmN4sR8wZ1yB failed") // "GET /hook/[redacted] failed"
 * mask("handler failed for tok_7Hq2vX9pLmN4…") // "handler failed for [redacted]…"
 */
export function secretRedactor(secrets: readonly string[], marker: string = REDACTED): SecretMask {
  const forms = [...new Set(secrets.filter((secret) => typeof secret === "string" && secret !== "").flatMap(formsOf))];
  // Longest first: a secret that contains another is masked whole.
  forms.sort((a, b) => b.length - a.length);
  if (forms.length === 0) return (text) => text;
  const fragments = forms.filter((form) => form.length > MIN_SECRET_FRAGMENT);
  return (text) => {
    let masked = text;
    for (const form of forms) if (masked.includes(form)) masked = masked.split(form).join(marker);
    return fragments.length === 0 ? masked : maskCutEnds(masked, fragments, marker);
  };
}

function formsOf(secret: string): string[] {
  const encoded = encodeURIComponent(secret);
  return [secret, encoded, encoded.replace(/%20/g, "+"), JSON.stringify(secret).slice(1, -1)];
}

// A secret's beginning at the text's end (before an ellipsis), and its end at the text's start (after one). Found
// through the native indexOf of each secret's first (last) characters: a text without them costs one search.
function maskCutEnds(text: string, forms: readonly string[], marker: string): string {
  const ellipsisAtEnd = ELLIPSES.find((ellipsis) => text.endsWith(ellipsis)) ?? "";
  const end = text.length - ellipsisAtEnd.length;
  let cutFrom = end;
  for (const form of forms) {
    // The longest beginning of `form` the text ends with starts with the form's first characters.
    const probe = form.slice(0, MIN_SECRET_FRAGMENT);
    let at = text.indexOf(probe, Math.max(0, end - form.length + 1));
    while (at !== -1 && at <= end - MIN_SECRET_FRAGMENT && at < cutFrom) {
      if (form.startsWith(text.slice(at, end))) {
        cutFrom = at;
        break;
      }
      at = text.indexOf(probe, at + 1);
    }
  }
  let masked = cutFrom < end ? `${text.slice(0, cutFrom)}${marker}${ellipsisAtEnd}` : text;
  const ellipsisAtStart = ELLIPSES.find((ellipsis) => masked.startsWith(ellipsis)) ?? "";
  const start = ellipsisAtStart.length;
  let cutTo = start;
  for (const form of forms) {
    // The longest end of `form` the text starts with ends with the form's last characters.
    const probe = form.slice(-MIN_SECRET_FRAGMENT);
    let at = masked.lastIndexOf(probe, start + form.length - 1 - MIN_SECRET_FRAGMENT);
    while (at >= start && at + MIN_SECRET_FRAGMENT > cutTo) {
      const until = at + MIN_SECRET_FRAGMENT;
      if (form.endsWith(masked.slice(start, until))) {
        cutTo = until;
        break;
      }
      at = at === 0 ? -1 : masked.lastIndexOf(probe, at - 1);
    }
  }
  if (cutTo > start) masked = `${ellipsisAtStart}${marker}${masked.slice(cutTo)}`;
  return masked;
}

/**
 * A raw body as a journal may keep it: a JSON body with the values of secret-looking fields (`token`, `api_key`,
 * `callback_key`, `password`, `signature`, `authorization` …) replaced by `"[redacted]"` and every other string
 * value passed through {@link redactText}; any other text through {@link redactText} as a whole.
 *
 * @example
 * redactBody('{"order_no":"A1","callback_key":"k"}') // '{"order_no":"A1","callback_key":"[redacted]"}'
 */
export function redactBody(text: string, secrets?: SecretMask): string {
  const mask = secrets ?? unmasked;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return redactText(mask(text));
  }
  // Masked again as a whole: a secret may also be a member's name.
  return mask(JSON.stringify(redactValue(value, 0, mask)));
}

const unmasked: SecretMask = (text) => text;

function redactValue(value: unknown, depth: number, mask: SecretMask): unknown {
  if (typeof value === "string") return redactText(mask(value));
  if (typeof value !== "object" || value === null) return value;
  if (depth > 32) return REDACTED;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, depth + 1, mask));
  const copy: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) {
    copy[name] =
      SECRET_NAME.test(name) && field !== null && field !== "" ? REDACTED : redactValue(field, depth + 1, mask);
  }
  return copy;
}

/**
 * A short summary of an error for a journal entry: its name and message (and its cause's, one level), on one
 * line, without a stack, secrets masked ({@link redactText}, and `secrets` when given), at most 500 characters.
 * Everything is masked before the summary is cut, so a cut never leaves part of a secret that no longer matches.
 *
 * @example
 * summarizeError(new Error("connect failed for postgres://app:hunter2@db/shop")) // "Error: connect failed for postgres://[redacted]@db/shop"
 */
export function summarizeError(error: unknown, secrets?: SecretMask): string {
  let text = describe(error);
  const cause = error instanceof Error ? error.cause : undefined;
  if (cause !== undefined && cause !== error) text += `; cause: ${describe(cause)}`;
  // Searched far past the summary's length: the cut-off rest can never come into it.
  if (text.length > SCANNED_ERROR_TEXT) text = `${text.slice(0, SCANNED_ERROR_TEXT)}…`;
  if (secrets !== undefined) text = secrets(text);
  const summary = redactText(text.replace(/\s+/g, " ").trim());
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
