import { Hono } from "hono";
import type { OrderStatus } from "../../fixtures/orders.js";
import { FakeProviderError } from "../errors.js";
import { jsonReply } from "../json-reply.js";
import { dataUrlBytes, qrisImageDataUrl } from "../qris-image.js";
import { type SimulatorView, simulatorErrorPage, simulatorPage, simulatorSections } from "../simulator/page.js";
import { simulatorState } from "../simulator/state.js";
import type { CreateOrderInput } from "../state/orders.js";
import { describeAllowed, nextOrderStatuses, paymentActions, qrisActions } from "../transitions.js";
import { type FakeContext, type FakeEnv, isObject, type World } from "../world.js";
import { SIMULATOR_PATH } from "./paths.js";

export { CONTROL_PREFIX, SIMULATOR_PATH } from "./paths.js";

/** Longest single clock step the control API takes (a year), so a typo cannot overflow dates. */
const MAX_ADVANCE_MS = 366 * 86_400_000;
const MAX_FAILURES = 100;

/** A refusal of the control API: answered as `{ error, message, ...details }` with `status`. */
class ControlError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 409,
    readonly code: string,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
  }
}

type Input = Record<string, unknown>;

/** The body as fields: a form (what the simulator's forms send) or JSON (what scripts send, any content type). */
async function readInput(c: FakeContext): Promise<Input> {
  const type = c.req.header("content-type") ?? "";
  if (type.includes("application/x-www-form-urlencoded") || type.includes("multipart/form-data")) {
    return (await c.req.parseBody()) as Input;
  }
  try {
    const value: unknown = await c.req.json();
    return isObject(value) ? value : {};
  } catch {
    return {};
  }
}

function requiredText(input: Input, field: string): string {
  const value = input[field];
  if (typeof value !== "string" || value.trim() === "") {
    throw new ControlError(400, "invalid_input", `${field} is required (a non-empty string)`, { field });
  }
  return value.trim();
}

function integerField(input: Input, field: string, min: number, max: number): number {
  const raw = input[field];
  const value = typeof raw === "string" && raw.trim() !== "" ? Number(raw) : raw;
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > max) {
    throw new ControlError(400, "invalid_input", `${field} must be an integer from ${min} to ${max}`, { field });
  }
  return value;
}

function refuse(what: string, action: string, status: string, allowed: readonly string[]): never {
  throw new ControlError(
    409,
    "invalid_transition",
    `cannot ${action} ${what}: it is ${status}. Allowed from ${status}: ${describeAllowed(allowed)}`,
    { status, allowed },
  );
}

function qrCode(world: World, input: Input, action: "pay" | "expire"): string {
  const id = requiredText(input, "history_id");
  const code = world.qris.get(id);
  if (!code) throw new ControlError(404, "not_found", `no QR code with history_id ${id}`);
  const allowed = qrisActions(code.status);
  if (!allowed.includes(action)) refuse(`QR code ${id}`, action, code.status, allowed);
  return id;
}

function payment(world: World, input: Input, action: "pay" | "expire" | "cancel"): string {
  const id = requiredText(input, "payment_id");
  const found = world.payments.get(id);
  if (!found) throw new ControlError(404, "not_found", `no payment with payment_id ${id}`);
  const allowed = paymentActions(found.record.status);
  if (!allowed.includes(action)) refuse(`payment ${id}`, action, found.record.status, allowed);
  return id;
}

function orderInput(input: Input): CreateOrderInput {
  const order: CreateOrderInput = {};
  for (const field of ["order_no", "cnote", "courier", "receiverName", "receiverPhone"] as const) {
    if (input[field] === undefined || input[field] === "") continue;
    order[field] = requiredText(input, field);
  }
  for (const field of ["origin", "destination", "weight"] as const) {
    if (input[field] === undefined || input[field] === "") continue;
    order[field] = integerField(input, field, 1, Number.MAX_SAFE_INTEGER);
  }
  return order;
}

/** A form posted by a browser without the page's script: it wants a page back, not JSON. */
function wantsPage(c: FakeContext): boolean {
  return (c.req.header("accept") ?? "").includes("text/html");
}

function returnPath(input: Input): string {
  const target = input.return_to;
  return typeof target === "string" && target.startsWith(SIMULATOR_PATH) && !target.includes("//")
    ? target
    : SIMULATOR_PATH;
}

/**
 * A small unauthenticated control API so a developer (or a demo script) can move the world of a standalone fake over
 * HTTP: pay, expire or cancel payments and QR codes, create orders and move them, advance the clock, make the next
 * webhook deliveries fail, read the state. It also serves the simulator page. Bodies are JSON or forms; answers are
 * JSON (`{ error, message }` with 400, 404 or 409 on refusal), or a redirect for a form posted without the script.
 */
export function controlApp(): Hono<FakeEnv> {
  const app = new Hono<FakeEnv>();

  // A web page elsewhere could post forms to a fake on localhost: writes must come from the fake's own pages
  // (browsers send Origin on cross-site posts) or from a script that sends none.
  app.use("*", async (c, next) => {
    const origin = c.req.header("origin");
    if (c.req.method !== "GET" && c.req.method !== "HEAD" && origin !== undefined && origin !== "null") {
      let sameHost = false;
      try {
        sameHost = new URL(origin).host === new URL(c.req.url).host;
      } catch {
        sameHost = false;
      }
      if (!sameHost) throw new ControlError(403, "forbidden_origin", `requests from ${origin} are not accepted`);
    }
    await next();
  });

  /** Runs `action` on the parsed input and answers JSON, or redirects a script-less form back to the page. */
  const act = (run: (world: World, input: Input) => Promise<unknown> | unknown) => async (c: FakeContext) => {
    const input = await readInput(c);
    const result = await run(c.env.world, input);
    if (wantsPage(c)) return c.redirect(returnPath(input), 303);
    return jsonReply(result as object);
  };

  app.get("/", (c) => c.redirect(SIMULATOR_PATH));
  const page = (c: FakeContext, view: SimulatorView) => {
    const state = simulatorState(c.env.world);
    const headers = {
      "cache-control": "no-store",
      "x-simulator-revision": state.revision,
      "x-content-type-options": "nosniff",
      "content-security-policy":
        "default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; script-src 'unsafe-inline'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    };
    if (c.req.query("fragment") !== undefined) return c.html(simulatorSections(state, view), 200, headers);
    return c.html(simulatorPage(state, view), 200, headers);
  };
  app.get("/simulator", (c) => page(c, { kind: "list" }));
  app.get("/simulator/qris/:historyId", (c) => {
    const historyId = c.req.param("historyId");
    if (!c.env.world.qris.get(historyId)) {
      return c.html(simulatorErrorPage(404, `No QR code with history_id ${historyId}.`, SIMULATOR_PATH), 404);
    }
    return page(c, { kind: "qris", historyId });
  });
  app.get("/state", (c) => jsonReply(simulatorState(c.env.world), 200, { "cache-control": "no-store" }));

  const png = (c: FakeContext, dataUrl: string) =>
    c.body(dataUrlBytes(dataUrl), 200, { "content-type": "image/png", "cache-control": "no-cache" });
  app.get("/qris/:historyId/image.png", async (c) => {
    const historyId = c.req.param("historyId");
    const image = c.env.world.qris.image(historyId);
    if (!image) throw new ControlError(404, "not_found", `no QR code with history_id ${historyId}`);
    return png(c, await image);
  });
  app.get("/payments/qr.png", async (c) => {
    const id = c.req.query("payment_id") ?? "";
    const found = c.env.world.payments.get(id);
    if (!found) throw new ControlError(404, "not_found", `no payment with payment_id ${id}`);
    if (!found.record.qr_string) throw new ControlError(404, "not_found", `payment ${id} is not a QRIS payment`);
    return png(c, await qrisImageDataUrl(found.record.qr_string));
  });

  app.post(
    "/qris/pay",
    act((world, input) => {
      const provider = typeof input.payment_provider === "string" ? input.payment_provider.trim() : "";
      return world.qris.pay(qrCode(world, input, "pay"), provider ? { paymentProvider: provider } : {});
    }),
  );
  app.post(
    "/qris/expire",
    act((world, input) => world.qris.expire(qrCode(world, input, "expire"))),
  );
  app.put(
    "/qris/webhook-url",
    act((world, input) => {
      const url = typeof input.url === "string" ? input.url.trim() : "";
      if (url) {
        try {
          new URL(url);
        } catch {
          throw new ControlError(400, "invalid_input", "url must be an absolute http(s) URL", { field: "url" });
        }
      }
      world.qris.webhookUrl = url || undefined;
      return { url: world.qris.webhookUrl ?? null };
    }),
  );
  app.post(
    "/payments/pay",
    act((world, input) => world.payments.pay(payment(world, input, "pay"))),
  );
  app.post(
    "/payments/expire",
    act((world, input) => world.payments.expire(payment(world, input, "expire"))),
  );
  app.post(
    "/payments/cancel",
    act((world, input) => {
      const reason = typeof input.reason === "string" ? input.reason : "cancelled in the simulator";
      return world.payments.cancel(payment(world, input, "cancel"), reason);
    }),
  );
  app.post(
    "/orders",
    act((world, input) => world.orders.create(orderInput(input))),
  );
  app.post(
    "/orders/status",
    act((world, input) => {
      const orderNo = requiredText(input, "order_no");
      const status = requiredText(input, "status");
      const order = world.orders.get(orderNo);
      if (!order) throw new ControlError(404, "not_found", `no order ${orderNo}`);
      const allowed = nextOrderStatuses(order.status);
      if (!allowed.includes(status)) {
        throw new ControlError(
          409,
          "invalid_transition",
          `cannot move order ${orderNo} from ${order.status} to ${status}. Allowed from ${order.status}: ${describeAllowed(allowed)}`,
          { status: order.status, allowed },
        );
      }
      return world.orders.setStatus(orderNo, status as OrderStatus);
    }),
  );
  app.post(
    "/clock/advance",
    act(async (world, input) => {
      await world.clock.advance(integerField(input, "ms", 1, MAX_ADVANCE_MS));
      return { now: new Date(world.clock.now()).toISOString() };
    }),
  );
  app.post(
    "/webhooks/fail-next",
    act((world, input) => {
      world.dispatcher.failNext(integerField(input, "count", 0, MAX_FAILURES));
      return { pendingFailures: world.dispatcher.pendingFailures };
    }),
  );
  app.get("/deliveries", (c) => jsonReply(c.env.world.dispatcher.attempts));

  app.onError((error, c) => {
    const refusal =
      error instanceof ControlError
        ? error
        : error instanceof FakeProviderError
          ? new ControlError(
              error.code === "not_found" ? 404 : error.code === "invalid_input" ? 400 : 409,
              error.code,
              error.message,
            )
          : error instanceof RangeError
            ? new ControlError(400, "invalid_input", error.message)
            : undefined;
    if (!refusal) throw error;
    if (wantsPage(c)) {
      return c.html(simulatorErrorPage(refusal.status, refusal.message, SIMULATOR_PATH), refusal.status);
    }
    return jsonReply({ error: refusal.code, message: refusal.message, ...refusal.details }, refusal.status);
  });
  return app;
}

/** Where the simulator lives on a server at `baseUrl`. */
export function simulatorUrl(baseUrl: string): string {
  return `${baseUrl}${SIMULATOR_PATH}`;
}
