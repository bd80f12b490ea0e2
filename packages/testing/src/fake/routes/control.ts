import { Hono } from "hono";
import { FakeProviderError } from "../errors.js";
import type { CreateOrderInput } from "../state/orders.js";
import { isObject, type World } from "../world.js";

/** Path prefix of the control API (`controlApi: true`, always on in `kirimbayar-fake serve`). */
export const CONTROL_PREFIX = "/__fake";

/**
 * A small unauthenticated control API so a developer (or a demo script) can move the world of a standalone fake over
 * HTTP: pay or expire QR codes and payments, create orders and change their status, advance the clock, read the
 * deliveries. Bodies and answers are JSON.
 */
export function controlApp(world: World): Hono {
  const app = new Hono();
  const body = async (request: Request): Promise<Record<string, unknown>> => {
    try {
      const value: unknown = await request.json();
      return isObject(value) ? value : {};
    } catch {
      return {};
    }
  };
  const text = (value: unknown) => (typeof value === "string" ? value : "");

  app.post("/qris/pay", async (c) => {
    const input = await body(c.req.raw);
    const provider = text(input.payment_provider);
    return c.json(await world.qris.pay(text(input.history_id), provider ? { paymentProvider: provider } : {}));
  });
  app.post("/qris/expire", async (c) => c.json(await world.qris.expire(text((await body(c.req.raw)).history_id))));
  app.put("/qris/webhook-url", async (c) => {
    const url = text((await body(c.req.raw)).url);
    world.qris.webhookUrl = url || undefined;
    return c.json({ url: world.qris.webhookUrl ?? null });
  });
  app.post("/payments/pay", async (c) => c.json(await world.payments.pay(text((await body(c.req.raw)).payment_id))));
  app.post("/payments/expire", async (c) =>
    c.json(await world.payments.expire(text((await body(c.req.raw)).payment_id))),
  );
  app.post("/orders", async (c) => c.json(world.orders.create((await body(c.req.raw)) as CreateOrderInput)));
  app.post("/orders/status", async (c) => {
    const input = await body(c.req.raw);
    return c.json(await world.orders.setStatus(text(input.order_no), text(input.status)));
  });
  app.post("/clock/advance", async (c) => {
    const ms = Number((await body(c.req.raw)).ms);
    await world.clock.advance(ms);
    return c.json({ now: new Date(world.clock.now()).toISOString() });
  });
  app.get("/deliveries", (c) => c.json(world.dispatcher.attempts));
  app.onError((error, c) => {
    if (error instanceof FakeProviderError)
      return c.json({ error: error.code, message: error.message }, error.code === "not_found" ? 404 : 409);
    if (error instanceof RangeError) return c.json({ error: "invalid_input", message: error.message }, 400);
    throw error;
  });
  return app;
}
