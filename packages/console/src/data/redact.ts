// What the pages show of free text (error summaries, redacted bodies) goes through the redaction once more: the
// configured secret values, secret-named JSON members, and secret-named query parameters of URLs in the text.
import { REDACTED } from "@kirimbayar/core";
import { secretRedactor } from "@kirimbayar/core/journal";

const SECRET_NAMES =
  "key|api[-_]?key|x-api-key|android-key|ios-key|callback[-_]?api[-_]?key|secret|token|password|signature|authorization";
// `token=abc` in a URL or a form body, `Authorization: Bearer abc`, `"token": "abc"` in JSON text.
const QUERY_SECRET = new RegExp(`([?&;\\s]|^)((?:${SECRET_NAMES}))=[^&#\\s"']*`, "gi");
const HEADER_SECRET = /\b(authorization|x-api-key|x-callback-token)\s*:\s*[^\n,;]*/gi;
const JSON_SECRET = new RegExp(`("(?:${SECRET_NAMES})"\\s*:\\s*)("(?:[^"\\\\]|\\\\.)*"|-?\\d[\\d.eE+-]*)`, "gi");

/** Scrubs secrets out of text that is about to be shown. */
export type TextRedactor = (text: string) => string;

/**
 * A redactor for `secrets` (values to remove wherever they appear, and a piece of one cut off at either end of a text
 * the journal shortened) plus the secret names above.
 */
export function textRedactor(secrets: readonly string[]): TextRedactor {
  const values = secretRedactor(secrets, REDACTED);
  return (text) =>
    values(text)
      .replace(QUERY_SECRET, (_, lead: string, name: string) => `${lead}${name}=${REDACTED}`)
      .replace(HEADER_SECRET, (_, name: string) => `${name}: ${REDACTED}`)
      .replace(JSON_SECRET, (_, member: string) => `${member}"${REDACTED}"`);
}

/** `text` cut to `max` characters (an ellipsis marks the cut). */
export function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
