export * from "./couriers.js";
export * from "./etd.js";
export * from "./qris-crc.js";
export * from "./qris-error.js";
export * from "./qris-payload.js";
export * from "./qris-tlv.js";
