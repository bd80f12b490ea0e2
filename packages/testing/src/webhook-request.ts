import { createHmac } from "node:crypto";
import type { WebhookHttpRequest } from "@kirimbayar/core/webhooks";

/** How the payment gateway proves a callback: an HMAC of the raw body (default) or the key itself. */
export type CallbackAuthMode = "hmac" | "plain";

/** Options of {@link toWebhookRequest}. */
export interface ToWebhookRequestOptions {
  /** Absolute URL of the receiving route, e.g. `http://localhost:3000/webhooks/qris`. */
  url: string;
  /** A secret appended to the URL as `?token=...` (see `tokenParam`). */
  token?: string;
  /** Query parameter name of `token`. Default `token`. */
  tokenParam?: string;
  /** The payment callback's `callback_api_key`: adds header `X-Callback-Api-Key`. */
  callbackApiKey?: string;
  /** `hmac` (default): HMAC-SHA256 of the raw body keyed with `callbackApiKey`; `plain`: the key itself. */
  callbackAuth?: CallbackAuthMode;
  /** Encoding of the HMAC. Default `hex`. */
  encoding?: "hex" | "base64";
  /** HTTP method. Default `POST` (the order service's sample shows `PUT`). */
  method?: string;
  /** Extra headers (they win over the defaults). */
  headers?: Record<string, string>;
  /** Send these exact bytes instead of `JSON.stringify(body)` (e.g. to test a tampered or reformatted body). */
  rawBody?: string;
  /** Peer address to put on the neutral request, for IP-allowlist tests. */
  remoteAddress?: string;
}

/** A webhook delivery ready to hand to a receiver, in the neutral shape and as a Web `Request`. */
export interface WebhookRequestParts {
  method: string;
  /** Absolute URL, token included. */
  url: string;
  headers: Record<string, string>;
  rawBody: string;
  /** For `receiver.handle(...)`: path and query in `url`, body as bytes. */
  http: WebhookHttpRequest;
  /** For `receiver.fetch(...)` or `app.request(...)`: a fresh `Request` on every call (a body can be read once). */
  toRequest(): Request;
}

/**
 * Signs a payment callback body as the gateway does: HMAC-SHA256 of the exact bytes, keyed with `callback_api_key`.
 *
 * @example
 * signCallbackBody('{"payment_id":"KPAY-1"}', "my-callback-key"); // 64 hex characters
 */
export function signCallbackBody(
  rawBody: string | Uint8Array,
  callbackApiKey: string,
  encoding: "hex" | "base64" = "hex",
): string {
  return createHmac("sha256", callbackApiKey).update(rawBody).digest(encoding);
}

/**
 * Turns a webhook fixture into a ready request for a receiver: JSON body, `Content-Type`, URL token and (for payment
 * callbacks) the `X-Callback-Api-Key` signature.
 *
 * @example
 * const delivery = toWebhookRequest(fixtures.qrisPaymentSuccess({ amount: 100_001 }), {
 *   url: "http://localhost:3000/webhooks/qris",
 *   token: "s3cret",
 * });
 * const response = await receiver.handle(delivery.http); // or: await receiver.fetch(delivery.toRequest())
 */
export function toWebhookRequest(body: unknown, options: ToWebhookRequestOptions): WebhookRequestParts {
  const url = new URL(options.url);
  if (options.token !== undefined) url.searchParams.set(options.tokenParam ?? "token", options.token);
  const rawBody = options.rawBody ?? JSON.stringify(body);
  const method = options.method ?? "POST";
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "user-agent": "kirimbayar-fake",
  };
  if (options.callbackApiKey !== undefined) {
    headers["x-callback-api-key"] =
      options.callbackAuth === "plain"
        ? options.callbackApiKey
        : signCallbackBody(rawBody, options.callbackApiKey, options.encoding ?? "hex");
  }
  for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
  let http: WebhookHttpRequest | undefined;
  return {
    method,
    url: url.toString(),
    headers,
    rawBody,
    // Made on first read: the fake's dispatcher only needs the Request.
    get http() {
      http ??= {
        method,
        url: `${url.pathname}${url.search}`,
        headers: { ...headers },
        rawBody: new TextEncoder().encode(rawBody),
        ...(options.remoteAddress === undefined ? {} : { remoteAddress: options.remoteAddress }),
      };
      return http;
    },
    toRequest: () => new Request(url, { method, headers, body: rawBody }),
  };
}
