import { RequestValidationError, type ValidationIssue } from "../errors/validation.js";

/** A QR payment the app still considers pending: its `history_id` from `generateQris`. */
export interface PendingQrisPayment {
  readonly source: "qris";
  readonly history_id: string | number;
  /**
   * The `final_amount` `generateQris` returned: the event's amount when the status endpoint does not say it
   * (optional; without either, a paid QR cannot become a `payment.success` event and is reported `failed`).
   */
  readonly amount?: number | undefined;
}

/** A payment-gateway payment the app still considers pending: its `payment_id` from `createPayment`. */
export interface PendingGatewayPayment {
  readonly source: "payment";
  readonly payment_id: string;
}

/** One reference {@link Reconciler.reconcile} asks the provider about. */
export type PendingReference = PendingQrisPayment | PendingGatewayPayment;

/** The id the provider's status endpoint takes, as a string (the polling limits count per id). */
export function idOf(reference: PendingReference): string {
  return reference.source === "qris" ? String(reference.history_id) : reference.payment_id;
}

/**
 * Checks every reference before any network call: a known source and a usable id. Throws one
 * {@link RequestValidationError} listing every bad entry (by index), never their values.
 */
export function assertReferences(references: unknown): asserts references is readonly PendingReference[] {
  if (!Array.isArray(references)) {
    throw new RequestValidationError([{ path: "", message: "references must be an array" }], "reconcile");
  }
  const issues: ValidationIssue[] = [];
  references.forEach((reference: unknown, index) => {
    const problem = problemOf(reference);
    if (problem !== undefined) issues.push({ path: String(index), message: problem });
  });
  if (issues.length > 0) throw new RequestValidationError(issues, "reconcile");
}

function problemOf(reference: unknown): string | undefined {
  if (typeof reference !== "object" || reference === null) return "must be an object";
  const { source } = reference as { source?: unknown };
  if (source === "qris") {
    const id = (reference as { history_id?: unknown }).history_id;
    const usable = (typeof id === "string" && id.trim() !== "") || (typeof id === "number" && Number.isSafeInteger(id));
    if (!usable) return "history_id must be a non-empty string or an integer";
    const amount = (reference as { amount?: unknown }).amount;
    const amountOk =
      amount === undefined || (typeof amount === "number" && Number.isSafeInteger(amount) && amount >= 0);
    return amountOk ? undefined : "amount must be a whole number of rupiah when given";
  }
  if (source === "payment") {
    const id = (reference as { payment_id?: unknown }).payment_id;
    return typeof id === "string" && id.trim() !== "" ? undefined : "payment_id must be a non-empty string";
  }
  return `source must be "qris" or "payment" (order statuses are not reconciled: see the reconciliation guide)`;
}
