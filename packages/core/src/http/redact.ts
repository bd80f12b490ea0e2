/** Placeholder written where a secret was. */
export const REDACTED = "[REDACTED]";

// Field names whose values are secrets whatever they contain (e.g. Pro echoes `key` back in `rajaongkir.query`).
const SECRET_FIELD_NAMES = "key|api[-_]?key|x-api-key|android-key|ios-key|callback[-_]api[-_]key|secret|token|password";
const SECRET_FIELD = new RegExp(`^(?:${SECRET_FIELD_NAMES})$`, "i");
// The same names as a member of a JSON object (`"token": `), looked for in a body's text.
const SECRET_MEMBER = new RegExp(`"(?:${SECRET_FIELD_NAMES})"\\s*:`, "i");

/** Removes known secret values (and the forms they take in URLs and JSON) from text and parsed JSON. */
export interface Redactor {
  /** `text` with every secret replaced by {@link REDACTED}. */
  text(text: string): string;
  /** A deep copy of parsed JSON with secret values and secret-named fields replaced by {@link REDACTED}. */
  value(value: unknown): unknown;
}

/** A {@link Redactor} that can skip the deep walk of a response body when its text shows nothing to redact. */
export interface BodyRedactor extends Redactor {
  /**
   * `parsed` (which must be `JSON.parse(text)`) redacted like {@link Redactor.value}; `parsed` itself when no secret
   * value and no secret-named field occurs in `text`, the common case, which is then not walked or copied.
   */
  body(text: string, parsed: unknown): unknown;
}

const variants = (secret: string): string[] => {
  const forms = new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
  forms.add(encodeURIComponent(secret).replace(/%20/g, "+"));
  return [...forms];
};

const JSON_ESCAPE = /\\(?:u([0-9a-fA-F]{4})|(.))/gs;
const SHORT_ESCAPES: Readonly<Record<string, string>> = { b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };

// Decodes every escape of a valid JSON text in place. Each string of the document (member names included) then
// appears in the result exactly as JSON.parse returns it, so a substring test on the result sees what a walk of
// the parsed value would.
const decodeJsonEscapes = (text: string): string =>
  text.replace(JSON_ESCAPE, (_, hex: string | undefined, char: string) =>
    hex === undefined ? (SHORT_ESCAPES[char] ?? char) : String.fromCharCode(Number.parseInt(hex, 16)),
  );

/**
 * Builds a {@link BodyRedactor} for the given secrets (empty strings are ignored). Build it once per set of secrets:
 * the transport keeps one per client and builds another only for a call with extra secrets.
 *
 * @example
 * createBodyRedactor(["s3cret"]).body('{"a":1}', { a: 1 }); // the same object: nothing to redact
 */
export function createBodyRedactor(secrets: readonly string[]): BodyRedactor {
  const forms = secrets
    .filter((s) => s !== "")
    .flatMap(variants)
    .sort((a, b) => b.length - a.length);
  const text = (input: string): string => {
    let out = input;
    for (const form of forms) if (out.includes(form)) out = out.split(form).join(REDACTED);
    return out;
  };
  const value = (input: unknown): unknown => {
    if (typeof input === "string") return text(input);
    if (Array.isArray(input)) return input.map(value);
    if (input !== null && typeof input === "object") {
      return Object.fromEntries(
        Object.entries(input).map(([k, v]) => [
          k,
          SECRET_FIELD.test(k) && v !== null && v !== "" ? REDACTED : value(v),
        ]),
      );
    }
    return input;
  };
  const body = (raw: string, parsed: unknown): unknown => {
    const decoded = raw.includes("\\") ? decodeJsonEscapes(raw) : raw;
    const clean = !SECRET_MEMBER.test(decoded) && !forms.some((form) => decoded.includes(form));
    return clean ? parsed : value(parsed);
  };
  return { text, value, body };
}

/**
 * Builds a {@link Redactor} for the given secrets (empty strings are ignored).
 *
 * @example
 * createRedactor(["s3cret"]).text("key=s3cret"); // "key=[REDACTED]"
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  return createBodyRedactor(secrets);
}

/**
 * Returns a cause that is safe to keep on an error: the original when it mentions no secret, otherwise a plain
 * `Error` with the redacted message.
 *
 * @example
 * sanitizeCause(new TypeError("fetch failed"), createRedactor(["k"])); // the same TypeError
 */
export function sanitizeCause(cause: unknown, redactor: Redactor): unknown {
  if (!(cause instanceof Error)) return cause === undefined ? undefined : redactor.value(cause);
  const texts = [cause.message, cause.stack ?? ""];
  const nested = (cause as { cause?: unknown }).cause;
  if (nested instanceof Error) texts.push(nested.message, nested.stack ?? "");
  if (texts.every((t) => redactor.text(t) === t)) return cause;
  const safe = new Error(redactor.text(cause.message));
  safe.name = cause.name;
  return safe;
}
