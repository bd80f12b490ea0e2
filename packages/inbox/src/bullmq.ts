// `@kirimbayar/inbox/bullmq`: the inbox engine on BullMQ (Redis).
export { type BullMqInboxOptions, createBullMqInbox } from "./engines/bullmq.js";
