import { fixedWebhookResponse } from "../response.js";

// The fixed answers of a delivery that went through the idempotency store, shared by the stages that give them.

export const processed = fixedWebhookResponse(200, "Webhook processed");
/** What `applyEvent` tells an already applied event by. */
export const DUPLICATE_MESSAGE = "Duplicate of an event already processed";
export const duplicateOfCompleted = fixedWebhookResponse(200, DUPLICATE_MESSAGE);
export const duplicateInProgress = fixedWebhookResponse(
  409,
  "Duplicate of an event still being processed; retry later",
);
