// test-app.ts
import { createFakeProvider, type FakeProvider } from "@kirimbayar/testing";
import { nestFetch } from "@kirimbayar/testing/nestjs";
import type { INestApplication } from "@nestjs/common";
import { Test } from "@nestjs/testing";
import { DataSource } from "typeorm";
import { APP_CONFIG, type AppConfig } from "./app.config.js";
import { AppModule } from "./app.module.js";
import { PAYMENT_STORAGE, type PaymentStorage } from "./payment-storage.js";

const WEBHOOK_TOKEN = "test-webhook-token";

export interface TestApp {
  app: INestApplication;
  provider: FakeProvider;
  dataSource: DataSource;
  /** A request to the app, in process: `request("/orders/1")`. */
  request(path: string, init?: RequestInit): Promise<Response>;
  /** Between tests: waits for the fake's deliveries, empties every table, and resets the fake. */
  reset(): Promise<void>;
  close(): Promise<void>;
}

/** The real AppModule on the test database, talking to the fake provider in process (no port either way). */
export async function createTestApp(): Promise<TestApp> {
  const databaseUrl = process.env.TEST_DATABASE_URL;
  if (!databaseUrl) throw new Error("Set TEST_DATABASE_URL to a database for tests: every table is emptied");
  // 1. The fake first: the app needs its URL and fetch when it boots.
  const provider = createFakeProvider({
    webhooks: { qrisUrl: `http://shop.test/webhooks/qris?token=${WEBHOOK_TOKEN}` },
  });
  const config: AppConfig = {
    databaseUrl,
    qris: { apiKey: provider.apiKeys.qris[0]!, baseUrl: provider.baseUrl, qrisId: 1 },
    webhookToken: WEBHOOK_TOKEN,
    fetch: provider.fetch,
  };
  // 2. The app's own module, with its configuration pointing at the fake.
  const moduleRef = await Test.createTestingModule({ imports: [AppModule] })
    .overrideProvider(APP_CONFIG)
    .useValue(config)
    .compile();
  // 3. rawBody, as in main.ts: webhooks are verified over the exact bytes.
  const app = moduleRef.createNestApplication({ rawBody: true, logger: false });
  await app.init();
  // 4. Now that the app exists, the fake delivers its webhooks into it.
  const toApp = nestFetch(app);
  provider.webhooks.setFetch(toApp);

  const dataSource = app.get(DataSource);
  const storage = app.get<PaymentStorage>(PAYMENT_STORAGE);
  const tables = [
    ...dataSource.entityMetadatas.map((entity) => `"${entity.tableName}"`),
    "kirimbayar_idempotency",
    "kirimbayar_delivery_journal",
  ];
  return {
    app,
    provider,
    dataSource,
    request: (path, init) => toApp(`http://shop.test${path}`, init),
    async reset() {
      await provider.webhooks.settled(); // no delivery still writing
      await storage.journal.flush(); // no journal entry still buffered
      await dataSource.query(`TRUNCATE ${tables.join(", ")} RESTART IDENTITY CASCADE`);
      provider.reset(); // keeps its URL and the app as its target; ids stay new
    },
    close: () => app.close(),
  };
}
