import type { z } from "zod";
import { RequestValidationError, type ValidationIssue } from "../errors/validation.js";
import type { ApiResponse } from "../http/api-response.js";
import type { ClientOptions, RequestOptions } from "../http/options.js";
import { Transport } from "../http/transport.js";
import { parseRequestInput } from "../http/validate-input.js";
import { checkQrisImage } from "./image.js";
import {
  type GenerateQrisInput,
  generateQrisInputSchema,
  qrisHistoryIdSchema,
  type UploadQrisInput,
  uploadQrisInputSchema,
} from "./input-schemas.js";
import {
  completeGeneratedQris,
  completeQrisPaymentStatus,
  type GeneratedQris,
  type GeneratedQrisImage,
  type QrisPaymentState,
} from "./required-results.js";
import {
  generatedQrisSchema,
  qrisPaymentStatusSchema,
  type UploadedQris,
  uploadedQrisSchema,
} from "./response-schemas.js";

/** Operation names of the QRIS service (keys of the `paths` option). */
export type QrisOperation = "generateQris" | "getQrisPaymentStatus" | "uploadQris";

/**
 * Default paths. `generateQris` follows the spec (`/user/api/v1/qr/generate-qris`); the live service answers at
 * `/user/api/v1/qrisly/generate-qris`: pass `paths: { generateQris: QRISLY_GENERATE_PATH }` to use it.
 */
export const QRIS_PATHS: Readonly<Record<QrisOperation, string>> = {
  generateQris: "/user/api/v1/qr/generate-qris",
  getQrisPaymentStatus: "/user/api/v1/qrisly/payment-status/{history_id}",
  uploadQris: "/user/api/v1/qrisly/upload-qris",
};

/** Generate path the live service uses (FIELD-NOTES), for the `paths` option. */
export const QRISLY_GENERATE_PATH = "/user/api/v1/qrisly/generate-qris";

/** Options of {@link QrisClient}. */
export type QrisClientOptions = ClientOptions<QrisOperation>;

const issuesOf = (error: z.ZodError): ValidationIssue[] =>
  error.issues.map((issue) => ({ path: issue.path.map(String).join("."), message: issue.message }));

/**
 * Client of the QR payment service. Authenticates with header `X-API-Key`. `generateQris` and `uploadQris` are
 * sent exactly once; `getQrisPaymentStatus` is retried.
 *
 * @example
 * const qris = new QrisClient({ apiKey: process.env.QRIS_KEY!, baseUrl: "https://sandbox.example.id" });
 * const { data } = await qris.generateQris({ qris_id: 12, amount: 100_000, output_type: "string" });
 * showQr(data.qris_string); saveQuote(data.history_id, data.final_amount);
 */
export class QrisClient {
  readonly #transport: Transport;
  readonly #clock: () => number;

  constructor(options: QrisClientOptions) {
    this.#clock = options?.clock ?? Date.now;
    this.#transport = new Transport(options, [
      { in: "header", name: "X-API-Key", option: "apiKey", value: options?.apiKey },
    ]);
  }

  /**
   * Generates a QR code for an amount (`POST /user/api/v1/qr/generate-qris`, JSON). Never retried. The result
   * always carries `history_id`, `original_amount`, `final_amount` (compare payments with it), `payment_status`,
   * `expiry_time_date`, and `qris_string` for `output_type: "string"`; see `completeGeneratedQris` for the rules
   * that fill a field the service left out, and `ResponseShapeError` for when none can.
   *
   * @example
   * const { data } = await qris.generateQris({ qris_id: 12, amount: 100_000, output_type: "string", unique_amount: true });
   */
  async generateQris(
    input: GenerateQrisInput & { output_type: "string" },
    options?: RequestOptions,
  ): Promise<ApiResponse<GeneratedQris>>;
  async generateQris(input: GenerateQrisInput, options?: RequestOptions): Promise<ApiResponse<GeneratedQrisImage>>;
  async generateQris(
    input: GenerateQrisInput,
    options?: RequestOptions,
  ): Promise<ApiResponse<GeneratedQris | GeneratedQrisImage>> {
    const body = parseRequestInput(generateQrisInputSchema, input, "generateQris");
    const response = await this.#transport.request(
      {
        operation: "generateQris",
        method: "POST",
        path: QRIS_PATHS.generateQris,
        body: { json: body },
        idempotent: false,
        envelope: "qris",
        schema: generatedQrisSchema,
      },
      options,
    );
    return completeGeneratedQris(response, body, this.#clock());
  }

  /**
   * Reads the state of a generated code (`GET /user/api/v1/qrisly/payment-status/{history_id}`, beyond the spec).
   * Retried. `payment_status` is always there (a `ResponseShapeError` otherwise); `history_id` defaults to the one
   * asked about.
   *
   * @example
   * const { data } = await qris.getQrisPaymentStatus(historyId); if (data.payment_status === "paid") fulfil();
   */
  async getQrisPaymentStatus(
    historyId: string | number,
    options?: RequestOptions,
  ): Promise<ApiResponse<QrisPaymentState>> {
    const id = parseRequestInput(qrisHistoryIdSchema, historyId, "getQrisPaymentStatus");
    const response = await this.#transport.request(
      {
        operation: "getQrisPaymentStatus",
        method: "GET",
        path: QRIS_PATHS.getQrisPaymentStatus,
        pathParams: { history_id: id },
        idempotent: true,
        envelope: "qris",
        schema: qrisPaymentStatusSchema,
      },
      options,
    );
    return completeQrisPaymentStatus(response, id);
  }

  /**
   * Uploads a merchant QRIS image (`POST /user/api/v1/qrisly/upload-qris`, multipart `name` + `qris_image`; PNG or
   * JPEG up to 5 MB, checked by its bytes before sending). Returns the new `qris_id`. Never retried.
   *
   * @example
   * const { data } = await qris.uploadQris({ name: "Toko Budi", qris_image: await file.arrayBuffer().then((b) => new Uint8Array(b)) });
   */
  async uploadQris(input: UploadQrisInput, options?: RequestOptions): Promise<ApiResponse<UploadedQris>> {
    const parsed = uploadQrisInputSchema.safeParse(input);
    const issues = parsed.success ? [] : issuesOf(parsed.error);
    const image = await checkQrisImage((input as { qris_image?: unknown } | undefined)?.qris_image);
    if (!image.ok) issues.push({ path: "qris_image", message: image.problem });
    if (!parsed.success || !image.ok) throw new RequestValidationError(issues, "uploadQris");
    return this.#transport.request(
      {
        operation: "uploadQris",
        method: "POST",
        path: QRIS_PATHS.uploadQris,
        body: { multipart: { name: parsed.data.name, qris_image: { value: image.blob, filename: image.filename } } },
        idempotent: false,
        envelope: "qris",
        schema: uploadedQrisSchema,
      },
      options,
    );
  }
}
