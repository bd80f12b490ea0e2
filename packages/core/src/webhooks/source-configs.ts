import { WebhookConfigurationError } from "./errors.js";
import { createWebhookReceiver } from "./receiver.js";
import type { WebhookReceiver, WebhookReceiverOptions } from "./receiver-types.js";
import type { WebhookSource } from "./verifiers/types.js";

/**
 * One webhook source as the framework adapters take it: a receiver you built (handlers registered on it), or the
 * options the adapter builds the receiver from (`source` is implied by where you put them).
 *
 * @example
 * const qris: WebhookSourceConfig<"qris"> = { verify: [tokenVerifier({ secrets: [token] })] };
 */
export type WebhookSourceConfig<S extends WebhookSource> =
  | WebhookReceiver<S>
  | Omit<WebhookReceiverOptions<S>, "source">;

/**
 * The webhook sources an adapter serves. Configure only the ones you receive.
 *
 * @example
 * const sources: WebhookSourceConfigs = { qris: qrisReceiver, orders: { verify: [tokenVerifier({ secrets: [t] })] } };
 */
export interface WebhookSourceConfigs {
  qris?: WebhookSourceConfig<"qris">;
  payment?: WebhookSourceConfig<"payment">;
  orders?: WebhookSourceConfig<"orders">;
}

/** The receivers of the configured sources, by source. */
export interface WebhookReceivers {
  qris?: WebhookReceiver<"qris">;
  payment?: WebhookReceiver<"payment">;
  orders?: WebhookReceiver<"orders">;
}

/** Every webhook source, in the order adapters mount them. */
// Marked pure: a bundle that does not use the list (a one-source endpoint) drops it.
export const WEBHOOK_SOURCES: readonly WebhookSource[] = /* @__PURE__ */ Object.freeze(["qris", "payment", "orders"]);

/**
 * Where an adapter mounts each source, relative to the adapter's own mount point. Unset sources use
 * `/<source>`: `/qris`, `/payment`, `/orders`.
 *
 * @example
 * const paths: WebhookPaths = { orders: "/shipping-status" };
 */
export type WebhookPaths = Partial<Record<WebhookSource, string>>;

/**
 * The sub-path an adapter mounts `source` at: `paths[source]`, else `/<source>`. Throws a
 * `WebhookConfigurationError` for a path that is not a string starting with `/` (a router would silently never
 * match it). Express and Hono adapters share this.
 *
 * @example
 * webhookPathOf("qris"); // "/qris"
 * webhookPathOf("orders", { orders: "/shipping-status" }); // "/shipping-status"
 */
export function webhookPathOf(source: WebhookSource, paths?: WebhookPaths): string {
  const path: unknown = paths?.[source] ?? `/${source}`;
  if (typeof path !== "string" || !path.startsWith("/")) {
    throw new WebhookConfigurationError(
      `paths.${source} must be a path starting with "/", got ${JSON.stringify(path)}`,
    );
  }
  return path;
}

// The three sources' configs as one type, so one loop can build them.
type AnySourceConfig = WebhookReceiver | Omit<WebhookReceiverOptions<WebhookSource>, "source">;

const isReceiver = (config: AnySourceConfig): config is WebhookReceiver =>
  "handle" in config && typeof config.handle === "function";

/**
 * The receivers of the configured sources: a receiver is kept as it is, options are built into one. Building
 * throws a `WebhookConfigurationError` for a source without verification, so an app that mounts the result fails
 * at start rather than at its first delivery. The adapters share this; a custom adapter can too.
 *
 * @example
 * const receivers = buildWebhookReceivers({ qris: { verify: [tokenVerifier({ secrets: [token] })] } });
 * receivers.qris?.on("payment.success", async (event) => markPaid(event.data.qris_history_id));
 */
export function buildWebhookReceivers(configs: WebhookSourceConfigs): WebhookReceivers {
  if (configs === null || typeof configs !== "object") {
    throw new WebhookConfigurationError("webhook sources must be an object such as { qris: { verify: [...] } }");
  }
  const receivers: Partial<Record<WebhookSource, WebhookReceiver>> = {};
  for (const source of WEBHOOK_SOURCES) {
    const config = configs[source] as AnySourceConfig | undefined;
    if (config === undefined) continue;
    if (config === null || typeof config !== "object") {
      throw new WebhookConfigurationError(`${source}: expected a receiver or receiver options, got ${config}`);
    }
    receivers[source] = isReceiver(config) ? config : createWebhookReceiver({ ...config, source });
  }
  return receivers as WebhookReceivers;
}
