import type { WebhookHttpResponse } from "./contract.js";

const JSON_CONTENT_TYPE = "application/json; charset=utf-8";

/**
 * Builds a response of the receiver's contract: JSON `{"success": boolean, "message": string}`.
 * The providers stop retrying on a 2xx, so `success: true` is only ever sent with 200.
 */
export function webhookResponse(
  status: number,
  message: string,
  extraHeaders?: Record<string, string>,
): WebhookHttpResponse {
  const headers: Record<string, string> = { "content-type": JSON_CONTENT_TYPE };
  if (extraHeaders !== undefined) Object.assign(headers, extraHeaders);
  return { status, headers, body: JSON.stringify({ success: status === 200, message }) };
}

/**
 * A response maker for a fixed status and message whose JSON body is serialised once; every call still returns
 * fresh objects, since adapters may add headers.
 */
export function fixedWebhookResponse(status: number, message: string): () => WebhookHttpResponse {
  const { body } = webhookResponse(status, message);
  return () => ({ status, headers: { "content-type": JSON_CONTENT_TYPE }, body });
}
