// Entry point of `@kirimbayar/testing`: fixtures, webhook request helpers, the fake provider and a stand-in console.
export { type Clock, DEFAULT_CLOCK_START, ManualClock, RealClock, type TimerId } from "./clock.js";
export {
  createStandInConsole,
  postStandInForm,
  STAND_IN_CONSOLE,
  type StandInConsole,
  type StandInConsoleRequest,
  standInFormPost,
} from "./console-stand-in.js";
export { COUNTRIES, type Country } from "./data/international.js";
export {
  CITIES,
  type City,
  type District,
  type Island,
  PROVINCES,
  type Province,
  type Subdistrict,
} from "./data/regions.js";
export type { RecordedRequest } from "./fake/app.js";
export { FakeProviderError } from "./fake/errors.js";
export type { FaultSpec } from "./fake/faults.js";
export type { FakeIdMode } from "./fake/ids.js";
export { createFakeProvider, type FakeProvider, type FakeProviderOptions } from "./fake/provider.js";
export type { RateLimitOptions } from "./fake/rate-limit.js";
export type { ListenOptions, RunningServer } from "./fake/server.js";
export { type ApiKeysOption, DEFAULT_API_KEYS, FAKE_SERVICES, type FakeService } from "./fake/services.js";
export type { CreateOrderInput, FakeOrder } from "./fake/state/orders.js";
export type { FakePayment } from "./fake/state/payments.js";
export type { FakeQrCode, FakeQrisConfig } from "./fake/state/qris.js";
export { DEFAULT_RETRY_DELAYS_MS, type DeliveryAttempt, type WebhookSource } from "./fake/webhooks.js";
export type { FixtureOptions } from "./fixtures/context.js";
export * from "./fixtures/envelopes.js";
export { createFixtures, type Fixtures, fixtures } from "./fixtures/index.js";
export type * from "./fixtures/legacy.js";
export type * from "./fixtures/orders.js";
export type * from "./fixtures/payment.js";
export { PAYMENT_METHODS } from "./fixtures/payment.js";
export type * from "./fixtures/qris.js";
export { QRIS_DEFAULT_EXPIRY_MS, toFlatQrisWebhook } from "./fixtures/qris.js";
export type * from "./fixtures/shipping.js";
export { SHIPPING_MESSAGES } from "./fixtures/shipping.js";
export type * from "./fixtures/waybill.js";
export { buildQrisString, type QrisPayloadInput } from "./qris-string.js";
export { SeededRandom } from "./random.js";
export {
  type CallbackAuthMode,
  signCallbackBody,
  type ToWebhookRequestOptions,
  toWebhookRequest,
  type WebhookRequestParts,
} from "./webhook-request.js";
