import {
  createWebhookReceiver,
  type WebhookReceiver,
  type WebhookReceiverOptions,
  type WebhookSource,
} from "@kirimbayar/core/webhooks";
import type { KirimbayarModuleOptions } from "./options.js";

/** A receiver and the body limit the controller reads up to before handing bytes to it. */
export interface WebhookRoute {
  receiver: Pick<WebhookReceiver, "handle">;
  maxBodyBytes: number;
}

/** The receivers built from the module options, by source (for handler discovery) and by path segment. */
export interface WebhookRoutes {
  bySource: {
    qris?: WebhookReceiver<"qris">;
    payment?: WebhookReceiver<"payment">;
    orders?: WebhookReceiver<"orders">;
  };
  bySegment: ReadonlyMap<string, WebhookRoute>;
}

const sources = ["qris", "payment", "orders"] as const;
// Core's default `maxBodyBytes`.
const DEFAULT_MAX_BODY_BYTES = 65_536;

// The three sources' configs as one type, so one loop can build them.
type AnySourceConfig = Pick<WebhookReceiver, "handle"> | Omit<WebhookReceiverOptions<WebhookSource>, "source">;

/**
 * Builds the configured receivers. Core throws here for a source without verification, so such an app fails at boot.
 *
 * @example
 * const routes = buildWebhookRoutes({ webhooks: { qris: { verify: [tokenVerifier({ secrets: [token], in: "query" })] } } });
 */
export function buildWebhookRoutes(options: KirimbayarModuleOptions): WebhookRoutes {
  const bySource: Record<string, unknown> = {};
  const bySegment = new Map<string, WebhookRoute>();
  for (const source of sources) {
    const config = options.webhooks?.[source] as AnySourceConfig | undefined;
    if (config === undefined) continue;
    const segment = options.webhooks?.paths?.[source] ?? source;
    if (!/^[A-Za-z0-9._~-]+$/.test(segment) || bySegment.has(segment)) {
      throw new Error(`KirimbayarModule: webhooks.paths.${source} must be one unique path segment, got "${segment}".`);
    }
    const receiver =
      "handle" in config && typeof config.handle === "function"
        ? config
        : createWebhookReceiver({ ...(config as Omit<WebhookReceiverOptions<WebhookSource>, "source">), source });
    const fromConfig = "handle" in config ? undefined : config.maxBodyBytes;
    const fromReceiver = (receiver as { maxBodyBytes?: number }).maxBodyBytes;
    bySource[source] = receiver;
    bySegment.set(segment, { receiver, maxBodyBytes: fromConfig ?? fromReceiver ?? DEFAULT_MAX_BODY_BYTES });
  }
  return { bySource: bySource as WebhookRoutes["bySource"], bySegment };
}
