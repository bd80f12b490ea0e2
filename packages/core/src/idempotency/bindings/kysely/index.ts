export { kyselyBinding } from "./binding.js";
