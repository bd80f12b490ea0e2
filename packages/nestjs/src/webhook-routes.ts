import {
  buildWebhookReceivers,
  DEFAULT_BODY_READ_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  WEBHOOK_SOURCES,
  WebhookConfigurationError,
  type WebhookReceiver,
  type WebhookReceivers,
  type WebhookSourceConfigs,
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
 * Builds the configured receivers, in inbox mode when `inbox.queue` is set. Core throws here for a source without
 * verification, so such an app fails at boot.
 *
 * @example
 * const routes = buildWebhookRoutes({ webhooks: { qris: { verify: [tokenVerifier({ secrets: [token], in: "query" })] } } });
 */
export function buildWebhookRoutes(options: KirimbayarModuleOptions): WebhookRoutes {
  const bySource = buildWebhookReceivers(withInbox(options.webhooks ?? {}, options.inbox));
  if (options.inbox !== undefined && Object.keys(bySource).length === 0) {
    throw new WebhookConfigurationError(
      "KirimbayarModule: inbox is configured but no webhooks are. Configure the sources whose events it carries " +
        "(webhooks.qris, webhooks.payment, webhooks.orders), or remove inbox.",
    );
  }
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

/**
 * The source configs with `inbox: queue` added to each one given as options, so the receivers built from them
 * queue verified events. A receiver you built yourself is used as it is (give it the same `inbox` yourself); a
 * source whose options name another queue fails the boot, since the module's worker would never see its events.
 */
function withInbox(
  webhooks: NonNullable<KirimbayarModuleOptions["webhooks"]>,
  inbox: KirimbayarModuleOptions["inbox"],
): WebhookSourceConfigs {
  if (inbox === undefined) return webhooks;
  const queue: unknown = inbox?.queue;
  if (typeof (queue as { enqueue?: unknown } | undefined)?.enqueue !== "function") {
    throw new WebhookConfigurationError(
      "KirimbayarModule: inbox.queue must be an inbox queue, such as createPgBossInbox({ boss }) from " +
        "@kirimbayar/inbox/pg-boss or createBullMqInbox({ connection }) from @kirimbayar/inbox/bullmq.",
    );
  }
  const configs: Record<string, unknown> = { ...webhooks };
  for (const source of WEBHOOK_SOURCES) {
    const config: unknown = webhooks[source];
    if (config === null || typeof config !== "object" || typeof (config as { handle?: unknown }).handle === "function")
      continue;
    const own = (config as { inbox?: unknown }).inbox;
    if (own !== undefined && own !== queue) {
      throw new WebhookConfigurationError(
        `KirimbayarModule: webhooks.${source}.inbox is another queue than inbox.queue; leave it out (the module ` +
          "puts every source on inbox.queue) or give it the same queue.",
      );
    }
    configs[source] = { ...config, inbox: queue };
  }
  return configs as WebhookSourceConfigs;
}
