import type { WebhookHttpResponse } from "../contract.js";
import { webhookResponse } from "../response.js";

// Answers given before the body was read to its end. They close the connection: the rest of the body may still be
// on its way (or never come), and a kept-alive connection would make the server read it as the next request.
const CLOSE = { connection: "close" } as const;

/** 413 for a body over `maxBodyBytes`, declared or counted. */
export function bodyTooLarge(maxBodyBytes: number): WebhookHttpResponse {
  return webhookResponse(413, `Body is larger than ${maxBodyBytes} bytes`, CLOSE);
}

/** 408 for a body that did not arrive whole within the body-read deadline (stalled, or shorter than declared). */
export function bodyReadTimedOut(bodyReadTimeoutMs: number): WebhookHttpResponse {
  return webhookResponse(408, `The request body did not arrive within ${bodyReadTimeoutMs} ms`, CLOSE);
}

/** 400 for a body the client stopped sending (aborted stream) while the connection can still carry an answer. */
export function bodyIncomplete(): WebhookHttpResponse {
  return webhookResponse(400, "The request body ended before it was complete", CLOSE);
}

/** 400 for a body that is not valid data of its declared content coding. */
export function bodyNotDecodable(coding: string): WebhookHttpResponse {
  return webhookResponse(400, `Body is not valid ${coding} data`);
}

/**
 * 413 for a compressed body that decodes to more than `maxBodyBytes`; also the receiver's answer to a body handed
 * over whole that is larger (nothing is left unread, so the connection stays open).
 */
export function decodedBodyTooLarge(maxBodyBytes: number): WebhookHttpResponse {
  return webhookResponse(413, `Body is larger than ${maxBodyBytes} bytes`);
}
