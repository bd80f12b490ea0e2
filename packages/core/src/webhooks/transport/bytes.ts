/** Joins chunks into one plain `Uint8Array`; a single chunk is viewed, not copied. */
export function joinChunks(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1) return plainView(chunks[0] as Uint8Array);
  const bytes = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return bytes;
}

/** A plain `Uint8Array` over the same memory, so core never sees a subclass such as Node's `Buffer`. */
export function plainView(bytes: Uint8Array): Uint8Array {
  return bytes.constructor === Uint8Array ? bytes : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}
