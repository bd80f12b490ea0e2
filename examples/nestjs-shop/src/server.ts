import "reflect-metadata";
import type { AddressInfo } from "node:net";
import { type Shop, type ShopConfig, type ShopWebhookHandlers, webhookUrls } from "@kirimbayar/example-shop-domain";
import { OrderWebhookClient } from "@kirimbayar/nestjs";
import type { INestApplication } from "@nestjs/common";
import { NestFactory } from "@nestjs/core";
import type { NestExpressApplication } from "@nestjs/platform-express";
import { PublicUrl } from "./public-url.js";
import { ShopModule, type ShopModuleOptions } from "./shop.module.js";
import { SHOP, SHOP_WEBHOOK_HANDLERS } from "./tokens.js";

/** A running shop. */
export interface RunningShop {
  /** Base URL the shop listens on, e.g. `http://127.0.0.1:3000`. */
  url: string;
  app: INestApplication;
  shop: Shop;
  handlers: ShopWebhookHandlers;
  close(): Promise<void>;
}

/** Options of {@link startShop}. */
export interface StartShopOptions extends ShopModuleOptions {
  /** Nest's logger setting; `false` silences it (tests, the demo). */
  logger?: false;
}

/**
 * Starts the NestJS shop on `config.host:config.port` (port 0 picks a free one) and registers its order webhook
 * when the order service is configured. `rawBody: true` keeps the exact bytes the webhook signatures are computed
 * over.
 *
 * @example
 * const shop = await startShop(loadShopConfig(process.env));
 * console.log(`shop on ${shop.url}`);
 */
export async function startShop(config: ShopConfig, options: StartShopOptions = {}): Promise<RunningShop> {
  const { logger, ...moduleOptions } = options;
  const app = await NestFactory.create<NestExpressApplication>(ShopModule.forRoot(config, moduleOptions), {
    rawBody: true,
    ...(logger === false ? { logger: false } : {}),
  });
  app.enableShutdownHooks();
  await app.listen(config.port, config.host);
  const { port } = app.getHttpServer().address() as AddressInfo;
  const url = `http://${config.host}:${port}`;
  const publicUrl = app.get(PublicUrl);
  publicUrl.listeningOn(url);
  if (config.orders !== undefined) {
    try {
      await app
        .get(OrderWebhookClient)
        .registerWebhook({ url: webhookUrls(publicUrl.value, config.webhookSecret).orders });
    } catch (error) {
      await app.close();
      throw error;
    }
  }
  return {
    url,
    app,
    shop: app.get<Shop>(SHOP),
    handlers: app.get<ShopWebhookHandlers>(SHOP_WEBHOOK_HANDLERS),
    close: () => app.close(),
  };
}
