import { z } from "zod";
import type { ApiResponse } from "../http/api-response.js";
import type { ClientOptions, RequestOptions } from "../http/options.js";
import { Transport } from "../http/transport.js";
import { parseRequestInput } from "../http/validate-input.js";
import {
  type CancelPaymentInput,
  type CreatePaymentInput,
  cancelPaymentInputSchema,
  createPaymentInputSchema,
  paymentIdSchema,
} from "./input-schemas.js";
import {
  type CreatedPayment,
  completeCreatedPayment,
  completePaymentState,
  type PaymentState,
} from "./required-results.js";
import {
  type CancelPaymentResult,
  cancelPaymentResultSchema,
  type PaymentMethod,
  paymentMethodSchema,
  paymentRecordSchema,
} from "./response-schemas.js";

// Built once, not per call: building a schema costs more than parsing a response with it.
const paymentMethodsSchema = z.array(paymentMethodSchema);

/** Operation names of the payment gateway (keys of the `paths` option). */
export type PaymentOperation = "listMethods" | "createPayment" | "getPaymentStatus" | "cancelPayment";

/** Default paths, from the spec (create) and FIELD-NOTES (the others). */
export const PAYMENT_PATHS: Readonly<Record<PaymentOperation, string>> = {
  listMethods: "/user/api/v1/user/methods",
  createPayment: "/user/api/v1/user/payment/create",
  getPaymentStatus: "/user/api/v1/user/payment/status/{payment_id}",
  cancelPayment: "/user/api/v1/user/payment/cancel",
};

/** Options of {@link PaymentGatewayClient}. */
export type PaymentGatewayClientOptions = ClientOptions<PaymentOperation>;

/**
 * Client of the payment gateway (virtual accounts, QRIS through the gateway). Authenticates with header
 * `X-API-Key`. Reads (`listMethods`, `getPaymentStatus`) are retried; `createPayment` and `cancelPayment` are sent
 * exactly once.
 *
 * @example
 * const payments = new PaymentGatewayClient({ apiKey: process.env.PAY_KEY!, baseUrl: "https://sandbox.example.id" });
 * const { data } = await payments.createPayment({
 *   order_id: "INV-1", payment_type: "bank_transfer", channel_code: "BCA", amount: 150_000,
 *   customer: { name: "Budi", email: "budi@example.id", phone: "0812" },
 *   items: [{ name: "Kopi", quantity: 6, price: 25_000 }],
 * });
 */
export class PaymentGatewayClient {
  readonly #transport: Transport;

  constructor(options: PaymentGatewayClientOptions) {
    this.#transport = new Transport(options, [
      { in: "header", name: "X-API-Key", option: "apiKey", value: options?.apiKey },
    ]);
  }

  /**
   * Lists payment methods and bank codes (`GET /user/api/v1/user/methods`). Retried.
   *
   * @example
   * const banks = (await payments.listMethods()).data.filter((m) => m.payment_type === "va");
   */
  async listMethods(options?: RequestOptions): Promise<ApiResponse<PaymentMethod[]>> {
    return this.#transport.request(
      {
        operation: "listMethods",
        method: "GET",
        path: PAYMENT_PATHS.listMethods,
        idempotent: true,
        envelope: "meta",
        schema: paymentMethodsSchema,
      },
      options,
    );
  }

  /**
   * Creates a payment (`POST /user/api/v1/user/payment/create`, JSON). Validated first; never retried (a retry
   * could charge twice): on a network error or timeout, check `getPaymentStatus` or your callback before resending.
   *
   * @example
   * const { data } = await payments.createPayment(input); console.log(data.va_number, data.expired_at_date);
   */
  async createPayment(input: CreatePaymentInput, options?: RequestOptions): Promise<ApiResponse<CreatedPayment>> {
    const body = parseRequestInput(createPaymentInputSchema, input, "createPayment");
    const response = await this.#transport.request(
      {
        operation: "createPayment",
        method: "POST",
        path: PAYMENT_PATHS.createPayment,
        body: { json: body },
        idempotent: false,
        envelope: "meta",
        schema: paymentRecordSchema,
        secrets: body.callback_api_key === undefined ? [] : [body.callback_api_key],
      },
      options,
    );
    return completeCreatedPayment(response, body);
  }

  /**
   * Reads a payment's status (`GET /user/api/v1/user/payment/status/{payment_id}`, id URL-encoded). Retried.
   * The gateway allows about one poll per 3 s per payment.
   *
   * @example
   * const { data } = await payments.getPaymentStatus("KPAY-1234/KM/2026"); if (data.status === "PAID") ship();
   */
  async getPaymentStatus(paymentId: string, options?: RequestOptions): Promise<ApiResponse<PaymentState>> {
    const id = parseRequestInput(paymentIdSchema, paymentId, "getPaymentStatus");
    const response = await this.#transport.request(
      {
        operation: "getPaymentStatus",
        method: "GET",
        path: PAYMENT_PATHS.getPaymentStatus,
        pathParams: { payment_id: id },
        idempotent: true,
        envelope: "meta",
        schema: paymentRecordSchema,
      },
      options,
    );
    return completePaymentState(response, id);
  }

  /**
   * Cancels a `PENDING` virtual-account payment (`POST /user/api/v1/user/payment/cancel`, JSON
   * `{ payment_id, reason }`). Never retried.
   *
   * @example
   * await payments.cancelPayment({ payment_id: "KPAY-1", reason: "out of stock" });
   */
  async cancelPayment(input: CancelPaymentInput, options?: RequestOptions): Promise<ApiResponse<CancelPaymentResult>> {
    const body = parseRequestInput(cancelPaymentInputSchema, input, "cancelPayment");
    return this.#transport.request(
      {
        operation: "cancelPayment",
        method: "POST",
        path: PAYMENT_PATHS.cancelPayment,
        body: { json: body },
        idempotent: false,
        envelope: "meta",
        schema: cancelPaymentResultSchema,
      },
      options,
    );
  }
}
