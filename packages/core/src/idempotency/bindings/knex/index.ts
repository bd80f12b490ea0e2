export { type KnexLike, type KnexTransactionOf, knexBinding } from "./binding.js";
