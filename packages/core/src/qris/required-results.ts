import { readQrisAmount } from "../helpers/qris-payload.js";
import type { ApiResponse } from "../http/api-response.js";
import { RequiredFields } from "../http/required-fields.js";
import type { GenerateQrisInput } from "./input-schemas.js";
import type { GeneratedQrisRecord, QrisPaymentStatus, QrisPaymentStatusRecord } from "./response-schemas.js";

/** How long a generated code lives when the service does not say (FIELD-NOTES: 15 minutes by default). */
export const DEFAULT_QRIS_EXPIRY_MS = 15 * 60_000;

/**
 * Data of `generateQris` with what a shop relies on always there: `history_id`, `original_amount`,
 * `final_amount` (compare payments with it), `payment_status`, `expiry_time_date`, and `qris_string` for
 * `output_type: "string"`.
 */
// Intersections, not Omit: the records are loose objects, whose index signature would make Omit drop every key.
export type GeneratedQris = GeneratedQrisRecord & RequiredGeneratedFields;

interface RequiredGeneratedFields {
  qris_string: string;
  original_amount: number;
  final_amount: number;
  payment_status: QrisPaymentStatus;
  /** `expiry_time` parsed; when the service leaves it out, generation time + 15 minutes (its documented default). */
  expiry_time_date: Date;
}

/** Data of `generateQris` for another `output_type` (`image`): the QR string may be absent. */
export type GeneratedQrisImage = GeneratedQrisRecord & Omit<RequiredGeneratedFields, "qris_string">;

/**
 * Completes a `generateQris` answer. Derived when absent: `original_amount` (the requested amount),
 * `final_amount` (the requested amount when `unique_amount: false`, else the amount inside the QR string, tag 54),
 * `payment_status` (`unpaid`: a new code is unpaid), `expiry_time_date` (now + 15 minutes). `qris_string` (for
 * `output_type: "string"`) and `final_amount` without a rule throw a `ResponseShapeError`.
 */
export function completeGeneratedQris(
  response: ApiResponse<GeneratedQrisRecord>,
  input: GenerateQrisInput,
  now: number,
): ApiResponse<GeneratedQris | GeneratedQrisImage> {
  const data = response.data;
  const fields = new RequiredFields();
  const qrisString = data.qris_string ?? undefined;
  if (input.output_type === "string") fields.take("qris_string", qrisString);
  const completed = {
    ...data,
    qris_string: qrisString,
    original_amount: fields.take("original_amount", data.original_amount, () => input.amount),
    final_amount: fields.take("final_amount", data.final_amount, () =>
      input.unique_amount === false ? input.amount : amountInQr(qrisString),
    ),
    payment_status: fields.take<QrisPaymentStatus>("payment_status", data.payment_status, () => "unpaid"),
    expiry_time_date: data.expiry_time_date ?? new Date(now + DEFAULT_QRIS_EXPIRY_MS),
  };
  fields.check(response, "generateQris");
  return { ...response, data: completed };
}

function amountInQr(qrisString: string | undefined): number | undefined {
  if (qrisString === undefined) return undefined;
  try {
    return readQrisAmount(qrisString) ?? undefined;
  } catch {
    return undefined;
  }
}

/** Data of `getQrisPaymentStatus` with `history_id` and `payment_status` always there. */
export type QrisPaymentState = QrisPaymentStatusRecord & {
  history_id: string | number;
  payment_status: QrisPaymentStatus;
};

/**
 * Completes a `getQrisPaymentStatus` answer: `history_id` is the one asked about when absent; a missing
 * `payment_status` (or `status`) throws a `ResponseShapeError`: no rule can tell whether the code was paid.
 */
export function completeQrisPaymentStatus(
  response: ApiResponse<QrisPaymentStatusRecord>,
  historyId: string | number,
): ApiResponse<QrisPaymentState> {
  const fields = new RequiredFields();
  const data = {
    ...response.data,
    history_id: fields.take("history_id", response.data.history_id, () => historyId),
    payment_status: fields.take("payment_status", response.data.payment_status),
  };
  fields.check(response, "getQrisPaymentStatus");
  return { ...response, data };
}
