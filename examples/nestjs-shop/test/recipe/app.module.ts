// app.module.ts
import { tokenVerifier } from "@kirimbayar/core/webhooks";
import { KirimbayarModule } from "@kirimbayar/nestjs";
import { Module } from "@nestjs/common";
import { TypeOrmModule } from "@nestjs/typeorm";
import { APP_CONFIG, type AppConfig, ConfigModule } from "./app.config.js";
import { OrdersController, PaymentEvents } from "./checkout.js";
import { Order } from "./order.entity.js";
import { PAYMENT_STORAGE, type PaymentStorage, PaymentStorageModule } from "./payment-storage.js";

@Module({
  imports: [
    ConfigModule,
    TypeOrmModule.forRootAsync({
      inject: [APP_CONFIG],
      // synchronize creates the tables from the entities; a production app runs migrations instead.
      useFactory: (config: AppConfig) => ({
        type: "postgres",
        url: config.databaseUrl,
        entities: [Order],
        synchronize: true,
      }),
    }),
    TypeOrmModule.forFeature([Order]),
    KirimbayarModule.forRootAsync({
      imports: [PaymentStorageModule], // where the factory's PAYMENT_STORAGE comes from
      inject: [APP_CONFIG, PAYMENT_STORAGE],
      provideClients: ["qris"],
      useFactory: (config: AppConfig, storage: PaymentStorage) => ({
        clients: {
          qris: {
            apiKey: config.qris.apiKey,
            baseUrl: config.qris.baseUrl,
            ...(config.fetch && { fetch: config.fetch }),
          },
        },
        webhooks: {
          qris: {
            verify: [tokenVerifier({ secrets: [config.webhookToken], in: "query", name: "token" })],
            idempotency: { store: storage.store, transactional: true },
            journal: storage.journal,
          },
        },
      }),
    }),
  ],
  controllers: [OrdersController],
  providers: [PaymentEvents],
})
export class AppModule {}
