// `@kirimbayar/inbox/bullmq`: the inbox engine on BullMQ (Redis).

export type { BullMqReplicaAcknowledgement } from "./engines/bullmq/replica-acknowledgement.js";
export {
  type BullMqConnection,
  type BullMqConnectionOptions,
  type BullMqInboxOptions,
  type BullMqRedisClient,
  createBullMqInbox,
} from "./engines/bullmq.js";
