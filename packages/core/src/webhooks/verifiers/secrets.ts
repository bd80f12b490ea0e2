import { utf8Bytes } from "../../crypto/encoding.js";
import { WebhookConfigurationError } from "../errors.js";

/** A secret or a list of secrets; a list lets you rotate (every listed secret is accepted). */
export type SecretList = string | readonly string[];

/** How a configured secret string turns into key bytes. */
export type SecretEncoding = "utf8" | "hex" | "base64";

/**
 * Validates the secrets of a verifier at construction, naming the mistake (empty list, empty secret, whitespace
 * such as a trailing newline from an env file) without ever printing the secret, and returns their bytes.
 * `decode` turns a secret of `encoding` into bytes (`undefined` when invalid); it is passed in rather than chosen
 * here so that a verifier of UTF-8 secrets (the token verifier) does not bundle the hex and base64 decoders.
 */
export function secretBytes(
  verifier: string,
  secrets: SecretList,
  encoding: SecretEncoding = "utf8",
  decode: (secret: string) => Uint8Array | undefined = utf8Bytes,
): Uint8Array[] {
  const list = typeof secrets === "string" ? [secrets] : secrets;
  if (!Array.isArray(list) || list.length === 0) {
    throw new WebhookConfigurationError(`${verifier}: secrets must be a non-empty string or list of strings`);
  }
  return list.map((secret: unknown, index) => {
    const which = list.length === 1 ? "the secret" : `secret #${index + 1}`;
    if (typeof secret !== "string" || secret.length === 0) {
      throw new WebhookConfigurationError(`${verifier}: ${which} is empty or not a string (is the env variable set?)`);
    }
    if (/\s/.test(secret)) {
      throw new WebhookConfigurationError(
        `${verifier}: ${which} contains whitespace (often a trailing newline or space from an env file); trim it`,
      );
    }
    const bytes = decode(secret);
    if (bytes === undefined || bytes.length === 0) {
      throw new WebhookConfigurationError(`${verifier}: ${which} is not valid ${encoding}`);
    }
    return bytes;
  });
}
