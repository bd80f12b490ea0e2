import type { WebhookEventFor, WebhookHandler, WebhookSource } from "../src/webhooks.js";
type AllNames = "payment.success" | "payment.expired" | "payment.callback" | "order.status" | (string & {});
interface B<S extends WebhookSource = WebhookSource> { readonly source: S; on<E extends AllNames>(event: E, handler: WebhookHandler<WebhookEventFor<S, E>>): B<S>; onAny(h: WebhookHandler<S extends "qris" ? 1 : 2>): B<S> }
declare const b: B<"qris">;
export const xb: B = b;
b.on("payment.success", (e) => { const n: number = e.data.amount; return n; });
