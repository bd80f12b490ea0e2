// payment-storage.ts
import { PostgresDeliveryJournal, PostgresIdempotencyStore } from "@kirimbayar/core/postgres";
import { typeormBinding } from "@kirimbayar/core/typeorm";
import { Inject, Module, type OnModuleDestroy } from "@nestjs/common";
import { DataSource } from "typeorm";

/** The webhooks' idempotency records and delivery journal, in the app's database through its own DataSource. */
export async function openPaymentStorage(dataSource: DataSource) {
  const binding = typeormBinding(dataSource);
  const store = new PostgresIdempotencyStore({ binding }); // table kirimbayar_idempotency
  const journal = new PostgresDeliveryJournal({ binding }); // table kirimbayar_delivery_journal
  await store.ensureSchema(); // or the shipped SQL in a migration
  await journal.ensureSchema();
  return { store, journal };
}

export type PaymentStorage = Awaited<ReturnType<typeof openPaymentStorage>>;
export const PAYMENT_STORAGE = Symbol("PAYMENT_STORAGE");

@Module({
  providers: [{ provide: PAYMENT_STORAGE, inject: [DataSource], useFactory: openPaymentStorage }],
  exports: [PAYMENT_STORAGE],
})
export class PaymentStorageModule implements OnModuleDestroy {
  constructor(@Inject(PAYMENT_STORAGE) private readonly storage: PaymentStorage) {}

  /** Writes the journal's buffered entries before TypeORM closes the connections. */
  async onModuleDestroy(): Promise<void> {
    await this.storage.journal.close();
  }
}
