/** Placeholder written where a secret was. */
export const REDACTED = "[REDACTED]";

// Field names whose values are secrets whatever they contain (e.g. Pro echoes `key` back in `rajaongkir.query`).
const SECRET_FIELD = /^(key|api[-_]?key|x-api-key|android-key|ios-key|callback[-_]api[-_]key|secret|token|password)$/i;

/** Removes known secret values (and the forms they take in URLs and JSON) from text and parsed JSON. */
export interface Redactor {
  /** `text` with every secret replaced by {@link REDACTED}. */
  text(text: string): string;
  /** A deep copy of parsed JSON with secret values and secret-named fields replaced by {@link REDACTED}. */
  value(value: unknown): unknown;
}

const variants = (secret: string): string[] => {
  const forms = new Set([secret, encodeURIComponent(secret), JSON.stringify(secret).slice(1, -1)]);
  forms.add(encodeURIComponent(secret).replace(/%20/g, "+"));
  return [...forms];
};

/**
 * Builds a {@link Redactor} for the given secrets (empty strings are ignored).
 *
 * @example
 * createRedactor(["s3cret"]).text("key=s3cret"); // "key=[REDACTED]"
 */
export function createRedactor(secrets: readonly string[]): Redactor {
  const forms = secrets
    .filter((s) => s !== "")
    .flatMap(variants)
    .sort((a, b) => b.length - a.length);
  const text = (input: string): string => forms.reduce((out, form) => out.split(form).join(REDACTED), input);
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
  return { text, value };
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
