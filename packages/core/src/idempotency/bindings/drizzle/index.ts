export { type DrizzleDatabaseLike, type DrizzleTransactionOf, drizzleBinding } from "./binding.js";
