// Entry point of `@kirimbayar/core/quoter`: the rate quoter and its memory store. Its own entry, so that apps that
// do not quote never load it; the Redis store has its own entry beside it (`@kirimbayar/core/quoter/redis`).
export * from "./quoter/index.js";
