// A page shows what it could read: a part that fails is reported to onError and shown as "could not be read".

/** A value read, or the fact that it could not be (why goes to onError only). */
export type Settled<T> = { readonly ok: true; readonly value: T } | { readonly ok: false };

/** Runs `read`; a throw or rejection is reported under `operation` and becomes `{ ok: false }`. */
export async function settle<T>(
  read: () => T | PromiseLike<T>,
  operation: string,
  report: (error: unknown, operation: string) => void,
): Promise<Settled<T>> {
  try {
    return { ok: true, value: await read() };
  } catch (error) {
    report(error, operation);
    return { ok: false };
  }
}
