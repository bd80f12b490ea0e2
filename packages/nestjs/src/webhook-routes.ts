import {
  buildWebhookReceivers,
  DEFAULT_BODY_READ_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  WEBHOOK_SOURCES,
  WebhookConfigurationError,
  type WebhookReceiver,
  type WebhookReceivers,
} from "@kirimbayar/core/webhooks";
import type { KirimbayarModuleOptions } from "./options.js";

/** A receiver and the body limits (size, read deadline) the module enforces before handing bytes to it. */
export interface WebhookRoute {
  receiver: Pick<WebhookReceiver, "handle">;
  maxBodyBytes: number;
  bodyReadTimeoutMs: number;
}

/** The receivers built from the module options, by source (for handler discovery) and by path segment. */
export interface WebhookRoutes {
  bySource: WebhookReceivers;
  bySegment: ReadonlyMap<string, WebhookRoute>;
}

/**
 * Builds the configured receivers. Core throws here for a source without verification, so such an app fails at boot.
 *
 * @example
 * const routes = buildWebhookRoutes({ webhooks: { qris: { verify: [tokenVerifier({ secrets: [token], in: "query" })] } } });
 */
export function buildWebhookRoutes(options: KirimbayarModuleOptions): WebhookRoutes {
  const bySource = buildWebhookReceivers(options.webhooks ?? {});
  const bySegment = new Map<string, WebhookRoute>();
  for (const source of WEBHOOK_SOURCES) {
    const receiver: WebhookReceiver | undefined = bySource[source];
    if (receiver === undefined) continue;
    const segment = options.webhooks?.paths?.[source] ?? source;
    if (!/^[A-Za-z0-9._~-]+$/.test(segment) || bySegment.has(segment)) {
      throw new WebhookConfigurationError(
        `KirimbayarModule: webhooks.paths.${source} must be one unique path segment, got "${segment}".`,
      );
    }
    // A receiver passed in may be a structural stand-in without the limits: core's defaults apply then.
    bySegment.set(segment, {
      receiver,
      maxBodyBytes: receiver.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES,
      bodyReadTimeoutMs: receiver.bodyReadTimeoutMs ?? DEFAULT_BODY_READ_TIMEOUT_MS,
    });
  }
  return { bySource, bySegment };
}
