import { failureBody, metaError, rajaOngkirError } from "../fixtures/envelopes.js";
import { LEGACY_MESSAGES } from "../fixtures/legacy.js";

/** The services the fake serves on one base URL, each with its own keys and envelope. */
export type FakeService = "payment" | "qris" | "shipping" | "pro" | "starter" | "orders";

/** Every service, in banner order. */
export const FAKE_SERVICES: readonly FakeService[] = ["payment", "qris", "shipping", "pro", "starter", "orders"];

/** Keys the fake accepts when none are configured: printed by the CLI banner. */
export const DEFAULT_API_KEYS: Readonly<Record<FakeService, string>> = {
  payment: "test_payment_key",
  qris: "test_qris_key",
  shipping: "test_shipping_key",
  pro: "test_pro_key",
  starter: "test_starter_key",
  orders: "test_orders_key",
};

/** Where each service reads its key, for diagnostics (never the key itself). */
export const KEY_LOCATION: Readonly<Record<FakeService, string>> = {
  payment: "header X-API-Key",
  qris: "header X-API-Key",
  shipping: "header key",
  pro: "key (header, query or form field)",
  starter: "key (header, query or form field)",
  orders: "header x-api-key",
};

/** `apiKeys` option: one key for everything, or keys per service (a list allows rotation tests). */
export type ApiKeysOption = string | Partial<Record<FakeService, string | readonly string[]>>;

/** Normalises the `apiKeys` option to a list of accepted keys per service. */
export function resolveApiKeys(option: ApiKeysOption | undefined): Record<FakeService, readonly string[]> {
  if (option === undefined) {
    if (!defaultKeys) {
      defaultKeys = build(undefined);
      for (const keys of Object.values(defaultKeys)) Object.freeze(keys);
      Object.freeze(defaultKeys);
    }
    return defaultKeys;
  }
  return build(option);
}

// Most fakes take the default keys: one frozen copy serves them all.
let defaultKeys: Record<FakeService, readonly string[]> | undefined;

function build(option: ApiKeysOption | undefined): Record<FakeService, readonly string[]> {
  const entries = FAKE_SERVICES.map((service) => {
    if (typeof option === "string") return [service, [option]] as const;
    const configured = option?.[service];
    if (configured === undefined) return [service, [DEFAULT_API_KEYS[service]]] as const;
    return [service, typeof configured === "string" ? [configured] : [...configured]] as const;
  });
  return Object.fromEntries(entries) as Record<FakeService, readonly string[]>;
}

/** The service a request path belongs to, or undefined for paths the fake does not serve. */
export function serviceOf(pathname: string): FakeService | undefined {
  if (pathname.startsWith("/user/api/v1/user/")) return "payment";
  if (pathname.startsWith("/user/api/v1/qr/") || pathname.startsWith("/user/api/v1/qrisly/")) return "qris";
  if (pathname.startsWith("/order/api/v1/")) return "orders";
  if (pathname.startsWith("/api/v1/")) return "shipping";
  if (pathname.startsWith("/api/")) return "pro";
  if (pathname.startsWith("/starter/")) return "starter";
  return undefined;
}

/** A status and body in the envelope of `service`. */
export interface ErrorReply {
  status: number;
  body: unknown;
}

/**
 * An error in the envelope of the service that owns the path. The legacy interfaces answer auth failures with HTTP
 * 400 and an Indonesian description, as FIELD-NOTES records.
 */
export function errorReply(service: FakeService | undefined, status: number, message: string): ErrorReply {
  switch (service) {
    case "qris":
      return { status, body: failureBody(message) };
    case "pro":
    case "starter":
      return { status, body: rajaOngkirError(status, message) };
    default:
      return { status, body: metaError(status, message) };
  }
}

/** The reply for a missing or wrong key. */
export function authFailure(service: FakeService, presented: boolean): ErrorReply {
  if (service === "pro" || service === "starter") {
    return errorReply(service, 400, presented ? LEGACY_MESSAGES.invalidKey : LEGACY_MESSAGES.missingKey);
  }
  const message = presented
    ? `Unauthorized: the API key in ${KEY_LOCATION[service]} is not valid`
    : `Unauthorized: ${KEY_LOCATION[service]} is missing`;
  return errorReply(service, 401, message);
}
