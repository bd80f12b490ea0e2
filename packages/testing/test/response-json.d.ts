// Tests read many JSON bodies of known shape; Node's types make `Response.json()` resolve to `unknown`.
declare global {
  interface Response {
    // biome-ignore lint/suspicious/noExplicitAny: test-only convenience for asserting on response bodies.
    json(): Promise<any>;
  }
}

export {};
