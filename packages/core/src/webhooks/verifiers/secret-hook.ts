// How the receiver's journal learns the secrets its verifiers hold (webhook tokens, callback keys, HMAC secrets), to
// mask them in every entry it records, without a public API that gives them out: each verifier keeps a function that
// answers them under a registered symbol, not enumerable (no spread, JSON or log of a verifier shows it). Registered,
// so that a verifier made by core's CommonJS build is read by its ESM journal stage and the other way round.

const VERIFIER_SECRETS = Symbol.for("kirimbayar.verifierSecrets");

/** Keeps `secrets` on `verifier` for the journal's redaction; returns `verifier`. */
export function keepSecretsForRedaction<V extends object>(verifier: V, secrets: readonly string[]): V {
  const kept = Object.freeze([...secrets]);
  Object.defineProperty(verifier, VERIFIER_SECRETS, { value: () => kept });
  return verifier;
}

/** Every secret the given verifiers keep for redaction (none for a verifier of your own). */
export function secretsOfVerifiers(verifiers: readonly object[]): string[] {
  const secrets: string[] = [];
  for (const verifier of verifiers) {
    const kept = (verifier as Record<symbol, unknown>)[VERIFIER_SECRETS];
    if (typeof kept === "function") secrets.push(...(kept() as readonly string[]));
  }
  return secrets;
}
