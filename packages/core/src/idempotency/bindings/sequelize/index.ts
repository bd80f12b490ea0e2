export { sequelizeBinding } from "./binding.js";
