import { metaError, metaOk } from "../../fixtures/envelopes.js";
import { isoUtc } from "../../time.js";
import { jsonReply } from "../json-reply.js";
import { type FakeApp, isObject, readJson } from "../world.js";

/** Order service: `PUT /order/api/v1/webhook` registers where order-status webhooks go. */
export function orderRoutes(app: FakeApp): void {
  app.put("/order/api/v1/webhook", async (c) => {
    const json = await readJson(c);
    if (!json.ok) return jsonReply(metaError(json.status, json.message), json.status as 400);
    const url = isObject(json.value) ? json.value.url : undefined;
    let valid = false;
    try {
      valid = typeof url === "string" && ["http:", "https:"].includes(new URL(url).protocol);
    } catch {
      valid = false;
    }
    if (!valid) return jsonReply(metaError(422, "url must be a valid http(s) URL"), 422);
    c.env.world.orders.webhookUrl = url as string;
    return jsonReply(metaOk({ url, updated_at: isoUtc(c.env.world.clock.now()) }, "Webhook updated"));
  });
}
