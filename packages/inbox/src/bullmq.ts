// `@kirimbayar/inbox/bullmq`: the inbox engine on BullMQ (Redis).
export {
  type BullMqConnection,
  type BullMqConnectionOptions,
  type BullMqInboxOptions,
  type BullMqRedisClient,
  createBullMqInbox,
} from "./engines/bullmq.js";
