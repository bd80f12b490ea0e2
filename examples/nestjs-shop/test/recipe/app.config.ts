// app.config.ts
import { Global, Module } from "@nestjs/common";

/** What the app reads from its environment. Tests replace it with values pointing at the fake provider. */
export interface AppConfig {
  databaseUrl: string;
  qris: { apiKey: string; baseUrl: string; qrisId: number };
  /** The secret token in the QRIS webhook URL registered in the provider's dashboard. */
  webhookToken: string;
  /** The API clients' transport: the global fetch in production, the fake's `provider.fetch` in tests. */
  fetch?: (input: string | URL | Request, init?: RequestInit) => Promise<Response>;
}

export const APP_CONFIG = Symbol("APP_CONFIG");

export function loadConfig(env: Record<string, string | undefined>): AppConfig {
  return {
    databaseUrl: env.DATABASE_URL ?? "",
    qris: { apiKey: env.QRIS_API_KEY ?? "", baseUrl: env.QRIS_BASE_URL ?? "", qrisId: Number(env.QRIS_ID ?? 1) },
    webhookToken: env.QRIS_WEBHOOK_TOKEN ?? "",
  };
}

@Global()
@Module({
  providers: [{ provide: APP_CONFIG, useFactory: () => loadConfig(process.env) }],
  exports: [APP_CONFIG],
})
export class ConfigModule {}
