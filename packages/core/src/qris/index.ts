export type { QrisClientOptions, QrisOperation } from "./client.js";
export { QRIS_PATHS, QRISLY_GENERATE_PATH, QrisClient } from "./client.js";
export type { CheckedQrisImage, QrisImageType } from "./image.js";
export { checkQrisImage, MAX_QRIS_IMAGE_BYTES, sniffImageType } from "./image.js";
export type { GenerateQrisInput, UploadQrisInput } from "./input-schemas.js";
export {
  generateQrisInputSchema,
  MAX_QRIS_AMOUNT,
  MIN_QRIS_AMOUNT,
  qrisHistoryIdSchema,
  uploadQrisInputSchema,
} from "./input-schemas.js";
export type { GeneratedQris, GeneratedQrisImage, QrisPaymentState } from "./required-results.js";
export { DEFAULT_QRIS_EXPIRY_MS } from "./required-results.js";
export type {
  GeneratedQrisRecord,
  QrisPaymentStatus,
  QrisPaymentStatusRecord,
  UploadedQris,
} from "./response-schemas.js";
export {
  generatedQrisSchema,
  QRIS_PAYMENT_STATUSES,
  qrisPaymentStatusSchema,
  uploadedQrisSchema,
} from "./response-schemas.js";
