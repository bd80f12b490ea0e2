// CSRF tokens: `<expiry>.<HMAC-SHA-256(secret, identity + expiry)>`, in a hidden field of every form. A token works
// only for the identity `authorize` returned when its page was rendered, and only until it expires. Web Crypto only.

const encoder = new TextEncoder();
// Separates the purpose, the identity and the expiry so that no other string signed with the key collides.
const PURPOSE = "kirimbayar-console-csrf-v1";

function base64url(bytes: ArrayBuffer): string {
  let binary = "";
  for (const byte of new Uint8Array(bytes)) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(text: string): Uint8Array<ArrayBuffer> | undefined {
  if (!/^[A-Za-z0-9_-]{43}$/.test(text)) return undefined;
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(binary, (char) => char.charCodeAt(0));
}

const message = (identity: string, expiresAt: number) => encoder.encode(`${PURPOSE}\n${identity}\n${expiresAt}`);

/** Signs and checks the tokens of one console. */
export interface CsrfTokens {
  /** A token for `identity`, valid for the configured time from now. */
  issue(identity: string): Promise<string>;
  /** Whether `token` was issued for `identity` and has not expired. */
  verify(token: unknown, identity: string): Promise<boolean>;
}

/** Tokens signed with `secret`, or with a random key of this process when there is none. */
export function csrfTokens(secret: Uint8Array | undefined, ttlMs: number, clock: () => number): CsrfTokens {
  const key: Promise<CryptoKey> = (async () => {
    // A copy: the caller may reuse its array, and Web Crypto wants an ArrayBuffer-backed view.
    const raw = secret === undefined ? crypto.getRandomValues(new Uint8Array(32)) : new Uint8Array(secret);
    return crypto.subtle.importKey("raw", raw, { name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]);
  })();
  return {
    async issue(identity) {
      const expiresAt = Math.floor(clock() + ttlMs);
      const signature = await crypto.subtle.sign("HMAC", await key, message(identity, expiresAt));
      return `${expiresAt}.${base64url(signature)}`;
    },
    async verify(token, identity) {
      if (typeof token !== "string" || token.length > 100) return false;
      const match = /^(\d{1,16})\.([A-Za-z0-9_-]+)$/.exec(token);
      if (match === null) return false;
      const expiresAt = Number(match[1]);
      const signature = fromBase64url(match[2] as string);
      if (signature === undefined || expiresAt <= clock()) return false;
      // subtle.verify compares in constant time.
      return crypto.subtle.verify("HMAC", await key, signature, message(identity, expiresAt));
    },
  };
}
