import type { WebhookSource } from "@kirimbayar/core/webhooks";
import { KIRIMBAYAR_HANDLER_BINDINGS } from "./tokens.js";

/** What a handler decorator records: the source, and the event or order status it listens to. */
export interface HandlerBinding {
  source: WebhookSource;
  /** QRIS event name; unset for payment callbacks and order statuses. */
  event?: string;
  /** Order status; unset for "every status" and for the other sources. */
  status?: string;
}

function bindHandler(binding: HandlerBinding): MethodDecorator {
  return (_target, _key, descriptor) => {
    const method = descriptor.value as object;
    const bindings: HandlerBinding[] = Reflect.getMetadata(KIRIMBAYAR_HANDLER_BINDINGS, method) ?? [];
    Reflect.defineMetadata(KIRIMBAYAR_HANDLER_BINDINGS, [...bindings, binding], method);
  };
}

/**
 * Marks a provider method as the handler of a QRIS webhook event. The method gets `(event, context)`.
 *
 * @example
 * @Injectable() class Payments {
 *   @OnQrisEvent("payment.success") async paid(event: QrisPaymentSuccessEvent) { await this.orders.markPaid(event.data.qris_history_id) }
 * }
 */
export const OnQrisEvent = (event: "payment.success" | "payment.expired" | (string & {})): MethodDecorator =>
  bindHandler({ source: "qris", event });

/**
 * Marks a provider method as the handler of payment gateway callbacks. The method gets `(event, context)`.
 *
 * @example
 * @Injectable() class Payments { @OnPaymentCallback() async callback(event: PaymentCallbackEvent) {} }
 */
export const OnPaymentCallback = (): MethodDecorator => bindHandler({ source: "payment" });

/**
 * Marks a provider method as the handler of order status webhooks: one status, or every status when omitted.
 *
 * @example
 * @Injectable() class Shipping { @OnOrderStatus("Dikirim") async shipped(event: OrderStatusEvent) {} }
 */
export const OnOrderStatus = (status?: string): MethodDecorator =>
  bindHandler(status === undefined ? { source: "orders" } : { source: "orders", status });
