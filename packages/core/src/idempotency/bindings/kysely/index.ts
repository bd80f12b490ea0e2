export { type KyselyDatabase, type KyselyTransactionOf, kyselyBinding } from "./binding.js";
