// Orders in PostgreSQL (in-process PGlite here; the same SQL runs on a server through DATABASE_URL).
import { PGlite } from "@electric-sql/pglite";
import { afterEach, describe, expect, it } from "vitest";
import { PostgresOrderRepository } from "../src/postgres-order-repository.js";
import { orderDraft } from "./support/order-draft.js";

let db: PGlite | undefined;

afterEach(async () => {
  await db?.close();
  db = undefined;
});

async function repository(): Promise<{ db: PGlite; orders: PostgresOrderRepository }> {
  db = new PGlite();
  const database = db;
  const orders = new PostgresOrderRepository(database, (work) => database.transaction(work));
  await orders.ensureSchema();
  return { db: database, orders };
}

describe("PostgresOrderRepository", () => {
  it("numbers orders, finds them by id and payment reference, and lists those awaiting payment", async () => {
    const { orders } = await repository();
    const first = await orders.create(orderDraft());
    const second = await orders.create(orderDraft());
    expect([first.id, second.id]).toEqual(["ORD-000001", "ORD-000002"]);
    expect((await orders.get("ORD-000002"))?.total).toBe(100_000);
    expect((await orders.findByPaymentReference("qr-1"))?.id).toBe("ORD-000001");
    expect(await orders.findByPaymentReference("nope")).toBeUndefined();
    expect(await orders.get("ORD-999999")).toBeUndefined();
    await orders.update(first.id, (order) => {
      for (const payment of order.payments) payment.state = "paid";
      order.status = "paid";
    });
    expect((await orders.listAwaitingPayment()).map((order) => order.id)).toEqual(["ORD-000002"]);
  });

  it("stores nothing when a change throws, and applies concurrent updates of one order one after the other", async () => {
    const { orders } = await repository();
    const order = await orders.create(orderDraft());
    await expect(
      orders.update(order.id, (o) => {
        o.status = "expired";
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect((await orders.get(order.id))?.status).toBe("awaiting_payment");
    await Promise.all(
      Array.from({ length: 5 }, () =>
        orders.update(order.id, (o) => {
          o.total += 1;
        }),
      ),
    );
    expect((await orders.get(order.id))?.total).toBe(100_005);
  });

  it("within(tx) writes inside the caller's transaction: rolled back with it, committed with it", async () => {
    const { db, orders } = await repository();
    const order = await orders.create(orderDraft());
    await expect(
      db.transaction(async (tx) => {
        await orders.within(tx).update(order.id, (o) => {
          o.status = "paid";
        });
        throw new Error("the webhook's commit failed");
      }),
    ).rejects.toThrow();
    expect((await orders.get(order.id))?.status).toBe("awaiting_payment");
    await db.transaction(async (tx) => {
      await orders.within(tx).update(order.id, (o) => {
        o.status = "paid";
      });
    });
    expect((await orders.get(order.id))?.status).toBe("paid");
  });
});
