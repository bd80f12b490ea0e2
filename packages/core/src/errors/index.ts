export { KirimbayarError } from "./base.js";
