/**
 * Thrown by the world-simulation methods (`provider.qris.pay`, `provider.payments.pay`, ...) when the action is not
 * possible in the current state, e.g. paying a cancelled virtual account.
 *
 * @example
 * await expect(provider.payments.pay(id)).rejects.toThrow(FakeProviderError);
 */
export class FakeProviderError extends Error {
  override readonly name = "FakeProviderError";
  /** Machine-readable reason, e.g. `not_found`, `invalid_state`. */
  readonly code: "not_found" | "invalid_state" | "invalid_input";

  constructor(code: FakeProviderError["code"], message: string) {
    super(message);
    this.code = code;
  }
}
