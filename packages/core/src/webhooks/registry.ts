import type { WebhookContext } from "./context.js";

/**
 * A webhook handler. Returning (or resolving) means the event is processed: the key is marked completed and the
 * provider gets 200. Throwing releases the key and answers 500, so the provider retries.
 *
 * `Tx` is the type of `ctx.transaction` (see {@link WebhookContext}).
 *
 * @example
 * const handler: WebhookHandler<OrderStatusWebhook> = async (event, ctx) => { await orders.update(event) };
 */
export type WebhookHandler<TEvent, Tx = unknown> = (event: TEvent, ctx: WebhookContext<Tx>) => unknown;

type AnyHandler = WebhookHandler<never>;

/** Handlers by event name, by order status and for every event. */
export class HandlerRegistry {
  readonly #byEvent = new Map<string, AnyHandler[]>();
  readonly #byStatus = new Map<string, AnyHandler[]>();
  readonly #any: AnyHandler[] = [];
  #count = 0;

  get count(): number {
    return this.#count;
  }

  addForEvent(name: string, handler: AnyHandler): void {
    push(this.#byEvent, name, handler);
    this.#count++;
  }

  /** Order statuses are matched case-insensitively, ignoring surrounding spaces. */
  addForStatus(status: string, handler: AnyHandler): void {
    push(this.#byStatus, normaliseStatus(status), handler);
    this.#count++;
  }

  addForAny(handler: AnyHandler): void {
    this.#any.push(handler);
    this.#count++;
  }

  /** Handlers for one event, in this order: by event name, by status, for any event. */
  select(eventName: string, status?: string): readonly AnyHandler[] {
    const byEvent = this.#byEvent.get(eventName);
    const byStatus =
      status === undefined || this.#byStatus.size === 0 ? undefined : this.#byStatus.get(normaliseStatus(status));
    if (byStatus === undefined && this.#any.length === 0) return byEvent ?? [];
    return [...(byEvent ?? []), ...(byStatus ?? []), ...this.#any];
  }
}

function push(map: Map<string, AnyHandler[]>, key: string, handler: AnyHandler): void {
  const list = map.get(key);
  if (list === undefined) map.set(key, [handler]);
  else list.push(handler);
}

function normaliseStatus(status: string): string {
  return status.trim().toLowerCase();
}
