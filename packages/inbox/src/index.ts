// Entry point of `@kirimbayar/inbox`: the worker, the retry policy and the engine-neutral types. The engines have
// entries of their own (`@kirimbayar/inbox/pg-boss`, `@kirimbayar/inbox/bullmq`), so an app loads only the one
// whose queue library it installed.
export {
  DEFAULT_RETRY_POLICY,
  type InboxRetryPolicy,
  nextRetryDelay,
  resolveRetryPolicy,
} from "./retry-policy.js";
export type {
  ConsumeOptions,
  DeadLetter,
  InboxAttempt,
  InboxConsumer,
  InboxDelivery,
  InboxEnqueueResult,
  InboxMessage,
  InboxQueue,
  InboxStats,
  InboxVerdict,
} from "./types.js";
export {
  type InboxReceiver,
  type InboxWorker,
  type InboxWorkerOptions,
  startInboxWorker,
} from "./worker.js";
