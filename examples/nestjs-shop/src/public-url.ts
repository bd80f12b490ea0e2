/**
 * Where the payment services reach this shop: `PUBLIC_BASE_URL`, or the address the server listens on, which is
 * known only after `listen` (port 0 picks a free port). Filled in by `startShop`.
 */
export class PublicUrl {
  #value: string | undefined;

  constructor(configured: string | undefined) {
    this.#value = configured;
  }

  /** Sets the listening address, unless `PUBLIC_BASE_URL` was configured. */
  listeningOn(url: string): void {
    this.#value ??= url;
  }

  get value(): string {
    if (this.#value === undefined) throw new Error("The shop's public URL is not known before it listens");
    return this.#value;
  }
}
