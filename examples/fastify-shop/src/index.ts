// The Fastify example shop, importable by its tests and by the demo.
export { createApp, type ShopRoutesOptions, shopRoutes } from "./app.js";
export { type RunningShop, type StartShopOptions, startShop } from "./server.js";
