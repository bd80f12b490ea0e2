import { WebhookConfigurationError, type WebhookSource } from "@kirimbayar/core/webhooks";
import { Inject, Injectable, type OnModuleInit } from "@nestjs/common";
import { DiscoveryService, MetadataScanner } from "@nestjs/core";
import type { HandlerBinding } from "./decorators.js";
import { KIRIMBAYAR_HANDLER_BINDINGS, KIRIMBAYAR_WEBHOOK_ROUTES } from "./tokens.js";
import type { WebhookRoutes } from "./webhook-routes.js";

const decoratorOf: Record<WebhookSource, string> = {
  qris: "@OnQrisEvent()",
  payment: "@OnPaymentCallback()",
  orders: "@OnOrderStatus()",
};

type AnyHandler = (event: unknown, context: unknown) => unknown;

/**
 * At module init, finds the provider methods marked with the handler decorators and registers them on the
 * receivers; then fails the boot if a configured source has no handler, or a handler has no configured source.
 */
@Injectable()
export class WebhookHandlerExplorer implements OnModuleInit {
  constructor(
    @Inject(DiscoveryService) private readonly discovery: DiscoveryService,
    @Inject(MetadataScanner) private readonly scanner: MetadataScanner,
    @Inject(KIRIMBAYAR_WEBHOOK_ROUTES) private readonly routes: WebhookRoutes,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders()) {
      const instance: unknown = wrapper.instance;
      if (!wrapper.isDependencyTreeStatic() || typeof instance !== "object" || instance === null) continue;
      const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const method = prototype[name] as AnyHandler;
        const bindings: HandlerBinding[] = Reflect.getMetadata(KIRIMBAYAR_HANDLER_BINDINGS, method) ?? [];
        for (const binding of bindings) {
          this.register(binding, method.bind(instance), `${wrapper.name}.${name}`);
        }
      }
    }
    for (const [source, receiver] of Object.entries(this.routes.bySource)) {
      if (receiver.handlerCount === 0) {
        throw new WebhookConfigurationError(
          `KirimbayarModule: webhooks.${source} is configured but no provider method is marked with ` +
            `${decoratorOf[source as WebhookSource]}. Add one to a provider of your app, or remove webhooks.${source}.`,
        );
      }
    }
  }

  private register(binding: HandlerBinding, handler: AnyHandler, where: string): void {
    const receiver = this.routes.bySource[binding.source];
    if (receiver === undefined) {
      throw new WebhookConfigurationError(
        `KirimbayarModule: ${where} is marked with ${decoratorOf[binding.source]} but webhooks.${binding.source} ` +
          "is not configured in KirimbayarModule.forRoot().",
      );
    }
    const { qris, payment, orders } = this.routes.bySource;
    if (binding.source === "qris") qris?.on(binding.event as "payment.success", handler);
    else if (binding.source === "payment") payment?.on("payment.callback", handler);
    else if (binding.status !== undefined) orders?.onOrderStatus(binding.status, handler);
    else orders?.on("order.status", handler);
  }
}
