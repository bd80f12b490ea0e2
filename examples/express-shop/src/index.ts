// The Express example shop, importable by its tests and by the demo.
export { createApp } from "./app.js";
export { type RunningShop, type StartShopOptions, startShop } from "./server.js";
