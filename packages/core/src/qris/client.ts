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
  type GeneratedQris,
  generatedQrisSchema,
  type QrisPaymentStatusRecord,
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

  constructor(options: QrisClientOptions) {
    this.#transport = new Transport(options, [
      { in: "header", name: "X-API-Key", option: "apiKey", value: options?.apiKey },
    ]);
  }

  /**
   * Generates a QR code for an amount (`POST /user/api/v1/qr/generate-qris`, JSON). Never retried.
   *
   * @example
   * const { data } = await qris.generateQris({ qris_id: 12, amount: 100_000, output_type: "string", unique_amount: true });
   */
  async generateQris(input: GenerateQrisInput, options?: RequestOptions): Promise<ApiResponse<GeneratedQris>> {
    const body = parseRequestInput(generateQrisInputSchema, input, "generateQris");
    return this.#transport.request(
      {
        operation: "generateQris",
        method: "POST",
        path: QRIS_PATHS.generateQris,
        body: { json: body },
        idempotent: false,
        envelope: "success",
        schema: generatedQrisSchema,
      },
      options,
    );
  }

  /**
   * Reads the state of a generated code (`GET /user/api/v1/qrisly/payment-status/{history_id}`, beyond the spec).
   * Retried.
   *
   * @example
   * const { data } = await qris.getQrisPaymentStatus(historyId); if (data.payment_status === "paid") fulfil();
   */
  async getQrisPaymentStatus(
    historyId: string | number,
    options?: RequestOptions,
  ): Promise<ApiResponse<QrisPaymentStatusRecord>> {
    const id = parseRequestInput(qrisHistoryIdSchema, historyId, "getQrisPaymentStatus");
    return this.#transport.request(
      {
        operation: "getQrisPaymentStatus",
        method: "GET",
        path: QRIS_PATHS.getQrisPaymentStatus,
        pathParams: { history_id: id },
        idempotent: true,
        envelope: "success",
        schema: qrisPaymentStatusSchema,
      },
      options,
    );
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
        envelope: "success",
        schema: uploadedQrisSchema,
      },
      options,
    );
  }
}
