import { type MetaEnvelope, metaError, metaOk } from "../../fixtures/envelopes.js";
import { PAYMENT_METHODS, type PaymentCreateRequest } from "../../fixtures/payment.js";
import { isoUtc } from "../../time.js";
import { FakeProviderError } from "../errors.js";
import { jsonReply } from "../json-reply.js";
import { type FakeApp, isObject, readJson } from "../world.js";

/** One failing field of a create request. */
export interface FieldError {
  field: string;
  message: string;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const MIN_AMOUNT = 10_000;
const MIN_EXPIRY_SECONDS = 3600;

function isInt(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value);
}

function isNonEmptyString(value: unknown): value is string {
  return typeof value === "string" && value.trim() !== "";
}

function isUrl(value: unknown): boolean {
  if (typeof value !== "string") return false;
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** Checks a create request the way the gateway does (spec "Resources" table and FIELD-NOTES), listing every error. */
export function validateCreatePayment(body: unknown): FieldError[] {
  if (!isObject(body)) return [{ field: "body", message: "body must be a JSON object" }];
  const errors: FieldError[] = [];
  const fail = (field: string, message: string) => errors.push({ field, message });
  if (!isNonEmptyString(body.order_id) && !isInt(body.order_id)) fail("order_id", "order_id is required");
  if (body.payment_type !== "bank_transfer" && body.payment_type !== "qris") {
    fail("payment_type", "payment_type must be bank_transfer or qris");
  }
  if (body.payment_type === "bank_transfer") {
    const banks = PAYMENT_METHODS.filter((m) => m.payment_type === "va").map((m) => m.bank_code);
    if (!banks.includes(String(body.channel_code ?? "").toUpperCase())) {
      fail("channel_code", `channel_code must be one of ${banks.join(", ")}`);
    }
  }
  if (!isInt(body.amount)) fail("amount", "amount must be an integer");
  else if (body.amount < MIN_AMOUNT) fail("amount", `amount must be at least ${MIN_AMOUNT}`);
  const customer = body.customer;
  if (!isObject(customer)) fail("customer", "customer is required");
  else {
    if (!isNonEmptyString(customer.name)) fail("customer.name", "customer.name is required");
    if (typeof customer.email !== "string" || !EMAIL.test(customer.email)) {
      fail("customer.email", "customer.email must be a valid e-mail address");
    }
    if (!isNonEmptyString(customer.phone)) fail("customer.phone", "customer.phone is required");
  }
  if (!Array.isArray(body.items) || body.items.length === 0) fail("items", "items must be a non-empty array");
  else {
    body.items.forEach((item: unknown, i: number) => {
      if (!isObject(item)) {
        fail(`items.${i}`, "item must be an object");
        return;
      }
      if (!isNonEmptyString(item.name)) fail(`items.${i}.name`, "name is required");
      if (!isInt(item.quantity) || item.quantity < 1)
        fail(`items.${i}.quantity`, "quantity must be a positive integer");
      if (!isInt(item.price) || item.price < 0) fail(`items.${i}.price`, "price must be an integer");
    });
  }
  if (body.expiry_duration !== undefined) {
    if (!isInt(body.expiry_duration)) fail("expiry_duration", "expiry_duration must be an integer");
    else if (body.expiry_duration < MIN_EXPIRY_SECONDS) {
      fail("expiry_duration", `expiry_duration must be at least ${MIN_EXPIRY_SECONDS} seconds`);
    }
  }
  if (body.callback_url !== undefined && !isUrl(body.callback_url))
    fail("callback_url", "callback_url must be a valid URL");
  if (body.callback_url !== undefined && !isNonEmptyString(body.callback_api_key)) {
    fail("callback_api_key", "callback_api_key is required when callback_url is given");
  }
  return errors;
}

function validationFailed(errors: FieldError[]): MetaEnvelope<null> & { errors: FieldError[] } {
  return { ...metaError(422, errors[0]?.message ?? "Validation failed"), errors };
}

/** Payment gateway: methods, create, status (ids may contain `/`), cancel. */
export function paymentRoutes(app: FakeApp): void {
  app.get("/user/api/v1/user/methods", () => jsonReply(metaOk([...PAYMENT_METHODS])));

  app.post("/user/api/v1/user/payment/create", async (c) => {
    const json = await readJson(c);
    if (!json.ok) return jsonReply(metaError(json.status, json.message), json.status as 400);
    const errors = validateCreatePayment(json.value);
    if (errors.length > 0) return jsonReply(validationFailed(errors), 422);
    const request = json.value as PaymentCreateRequest;
    const normalised: PaymentCreateRequest = {
      ...request,
      order_id: String(request.order_id),
      ...(request.channel_code === undefined ? {} : { channel_code: request.channel_code.toUpperCase() }),
    };
    return jsonReply(metaOk(c.env.world.payments.create(normalised), "Payment created"));
  });

  // `{id{.+}}` also matches unencoded ids such as KPAY-1001/KM/2026; Hono decodes %2F in the param.
  app.get("/user/api/v1/user/payment/status/:id{.+}", (c) => {
    const payment = c.env.world.payments.get(c.req.param("id"));
    if (!payment) return jsonReply(metaError(404, "Payment not found"), 404);
    return jsonReply(metaOk(payment.record));
  });

  app.post("/user/api/v1/user/payment/cancel", async (c) => {
    const json = await readJson(c);
    if (!json.ok) return jsonReply(metaError(json.status, json.message), json.status as 400);
    const body = isObject(json.value) ? json.value : {};
    if (!isNonEmptyString(body.payment_id))
      return jsonReply(validationFailed([{ field: "payment_id", message: "payment_id is required" }]), 422);
    if (body.reason !== undefined && typeof body.reason !== "string") {
      return jsonReply(validationFailed([{ field: "reason", message: "reason must be a string" }]), 422);
    }
    const payment = c.env.world.payments.get(body.payment_id);
    if (!payment) return jsonReply(metaError(404, "Payment not found"), 404);
    try {
      const record = c.env.world.payments.cancel(body.payment_id, body.reason ?? "");
      return jsonReply(
        metaOk(
          {
            payment_id: record.payment_id,
            status: "CANCELED",
            reason: body.reason ?? "",
            canceled_at: isoUtc(c.env.world.clock.now()),
          },
          "Payment canceled",
        ),
      );
    } catch (error) {
      if (error instanceof FakeProviderError) {
        return jsonReply(
          metaError(400, `Only PENDING payments can be canceled; this one is ${payment.record.status}`),
          400,
        );
      }
      throw error;
    }
  });
}
