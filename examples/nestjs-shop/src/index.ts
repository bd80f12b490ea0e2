// The NestJS example shop, importable by its tests and by the demo.

export { type RunningShop, type StartShopOptions, startShop } from "./server.js";
export { ShopModule, type ShopModuleOptions } from "./shop.module.js";
