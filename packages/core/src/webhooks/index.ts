export type { WebhookHeadersInput, WebhookHttpRequest, WebhookHttpResponse } from "./contract.js";
