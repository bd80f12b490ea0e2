import { toHex, utf8Bytes } from "../crypto/encoding.js";
import { defaultCryptoProvider } from "../crypto/index.js";

/** Which shipping interface a client talks to: the current `/api/v1`, or a legacy Pro or Starter account. */
export type ShippingInterface = "current" | "pro" | "starter";

/**
 * What a shipping client tells the rate quoter about its account. Never the key: only a digest of the base URL and
 * the keys, so that cached prices of two accounts never mix and a shared cache (Redis) never holds a key.
 */
export interface ShippingAccount {
  readonly interface: ShippingInterface;
  /** 32 hex digits of SHA-256 over the interface, the base URL and the keys. Computed once, on first use. */
  fingerprint(): Promise<string>;
}

// A registered symbol, not a module-local one: a client built by the ESM copy of core is still recognised by a
// quoter loaded through the CJS copy. Non-enumerable, so it shows up in no log, JSON or inspect output.
const ACCOUNT = Symbol.for("kirimbayar.shipping.account");

/**
 * Marks a shipping client with its account (called by the clients' constructors, after their options were checked).
 *
 * @example
 * tagShippingAccount(this, "current", [options.baseUrl, options.apiKey]);
 */
export function tagShippingAccount(client: object, kind: ShippingInterface, parts: readonly unknown[]): void {
  const material = JSON.stringify([kind, ...parts.map((part) => (typeof part === "string" ? part.trim() : null))]);
  let digest: Promise<string> | undefined;
  const account: ShippingAccount = {
    interface: kind,
    fingerprint: () => {
      digest ??= defaultCryptoProvider.sha256(utf8Bytes(material)).then((bytes) => toHex(bytes).slice(0, 32));
      return digest;
    },
  };
  Object.defineProperty(client, ACCOUNT, { value: account, enumerable: false, writable: false });
}

/**
 * The account a shipping client was tagged with, or `undefined` for an object kirimbayar did not build.
 *
 * @example
 * shippingAccountOf(new ShippingClient({ apiKey, baseUrl }))?.interface; // "current"
 */
export function shippingAccountOf(client: unknown): ShippingAccount | undefined {
  if (typeof client !== "object" || client === null) return undefined;
  return (client as { [ACCOUNT]?: ShippingAccount })[ACCOUNT];
}
