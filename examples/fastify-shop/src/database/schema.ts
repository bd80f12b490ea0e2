/**
 * The tables of prisma/schema.prisma, as plain SQL run at start (`prisma migrate` needs Prisma's schema engine, a
 * download these machines cannot make). Keep both in step.
 */
export const SHOP_PRISMA_SCHEMA = [
  `CREATE TABLE IF NOT EXISTS shop_orders (
  id text PRIMARY KEY,
  doc jsonb NOT NULL,
  awaiting_payment boolean NOT NULL
)`,
  "CREATE INDEX IF NOT EXISTS shop_orders_awaiting_payment_idx ON shop_orders (awaiting_payment)",
  `CREATE TABLE IF NOT EXISTS shop_payment_references (
  reference text PRIMARY KEY,
  order_id text NOT NULL
)`,
  "CREATE TABLE IF NOT EXISTS shop_order_counter (name text PRIMARY KEY, value integer NOT NULL)",
  "INSERT INTO shop_order_counter (name, value) VALUES ('orders', 0) ON CONFLICT (name) DO NOTHING",
];
