export { knexBinding } from "./binding.js";
