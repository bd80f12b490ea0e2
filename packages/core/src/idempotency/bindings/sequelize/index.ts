export { type SequelizeLike, type SequelizeTransactionOf, sequelizeBinding } from "./binding.js";
