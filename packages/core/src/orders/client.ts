import { z } from "zod";
import type { ApiResponse } from "../http/api-response.js";
import type { ClientOptions, RequestOptions } from "../http/options.js";
import { Transport } from "../http/transport.js";
import { parseRequestInput } from "../http/validate-input.js";
import { type RegisterWebhookInput, registerWebhookInputSchema } from "./input-schemas.js";

/** Operation names of the order service (keys of the `paths` option). */
export type OrderOperation = "registerWebhook";

/** Default paths: the order service lives under `{baseUrl}/order/api/v1`. */
export const ORDER_PATHS: Readonly<Record<OrderOperation, string>> = {
  registerWebhook: "/order/api/v1/webhook",
};

/**
 * Options of {@link OrderWebhookClient}. The registration body is not published: it defaults to `{ url }`;
 * `buildRegisterBody` replaces it (e.g. `(url) => ({ webhook_url: url })`).
 */
export interface OrderWebhookClientOptions extends ClientOptions<OrderOperation> {
  /** Builds the JSON body of the registration from the validated URL. Default `(url) => ({ url })`. */
  buildRegisterBody?: (url: string) => unknown;
}

/**
 * Data of `registerWebhook`: the provider's body as returned (its shape is not published).
 *
 * @example
 * registerWebhookResultSchema.parse({ message: "ok" });
 */
export const registerWebhookResultSchema = z.unknown();

/**
 * Client of the order-status webhook registration. Authenticates with header `x-api-key`.
 *
 * @example
 * const orders = new OrderWebhookClient({ apiKey: process.env.ORDER_KEY!, baseUrl: "https://api.example.id" });
 * await orders.registerWebhook({ url: "https://shop.example.id/webhooks/orders?token=s3cret" });
 */
export class OrderWebhookClient {
  readonly #transport: Transport;
  readonly #buildBody: (url: string) => unknown;

  constructor(options: OrderWebhookClientOptions) {
    this.#transport = new Transport(options, [
      { in: "header", name: "x-api-key", option: "apiKey", value: options?.apiKey },
    ]);
    this.#buildBody = options.buildRegisterBody ?? ((url) => ({ url }));
  }

  /**
   * Registers or replaces the webhook URL (`PUT /order/api/v1/webhook`, JSON `{ url }` by default). Never retried.
   * The URL's query (e.g. a secret token) is redacted from anything kept on results and errors.
   *
   * @example
   * await orders.registerWebhook({ url: "https://shop.example.id/webhooks/orders?token=s3cret" });
   */
  async registerWebhook(input: RegisterWebhookInput, options?: RequestOptions): Promise<ApiResponse<unknown>> {
    const { url } = parseRequestInput(registerWebhookInputSchema, input, "registerWebhook");
    const query = new URL(url).search.slice(1);
    return this.#transport.request(
      {
        operation: "registerWebhook",
        method: "PUT",
        path: ORDER_PATHS.registerWebhook,
        body: { json: this.#buildBody(url) },
        idempotent: false,
        envelope: "none",
        schema: registerWebhookResultSchema,
        secrets: query === "" ? [] : [query],
      },
      options,
    );
  }
}
