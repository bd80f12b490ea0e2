export type { GatewayPaymentRecord, QrisStatusRecord } from "./provider-events.js";
export {
  createReconciler,
  type GatewayStatusSource,
  type QrisStatusSource,
  type ReconcilableReceiver,
  type ReconcileResult,
  type ReconcileRunOptions,
  type Reconciler,
  type ReconcilerOptions,
  type ReconcilerSchedule,
  type RunningReconciler,
} from "./reconciler.js";
export type { PendingGatewayPayment, PendingQrisPayment, PendingReference } from "./references.js";
