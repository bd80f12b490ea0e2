/** Largest QRIS image the service accepts: 5 MB. */
export const MAX_QRIS_IMAGE_BYTES = 5 * 1024 * 1024;

/** Image formats the upload accepts. */
export type QrisImageType = "image/png" | "image/jpeg";

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG_SIGNATURE = [0xff, 0xd8, 0xff];

const startsWith = (bytes: Uint8Array, signature: readonly number[]) =>
  signature.every((byte, index) => bytes[index] === byte);

/**
 * Detects PNG or JPEG from the file's first bytes (the declared content type is not trusted).
 *
 * @example
 * sniffImageType(new Uint8Array([0xff, 0xd8, 0xff, 0xe0])); // "image/jpeg"
 */
export function sniffImageType(head: Uint8Array): QrisImageType | undefined {
  if (startsWith(head, PNG_SIGNATURE)) return "image/png";
  if (startsWith(head, JPEG_SIGNATURE)) return "image/jpeg";
  return undefined;
}

/** A checked image ready for the multipart body, or what is wrong with it. */
export type CheckedQrisImage = { ok: true; blob: Blob; filename: string } | { ok: false; problem: string };

/**
 * Checks a QRIS image (a `Blob`/`File` or bytes): PNG or JPEG by magic bytes, not empty, at most 5 MB. On success
 * returns a `Blob` typed with the detected format and a matching file name.
 *
 * @example
 * const checked = await checkQrisImage(pngBytes); // { ok: true, blob, filename: "qris.png" }
 */
export async function checkQrisImage(image: unknown): Promise<CheckedQrisImage> {
  let blob: Blob;
  if (image instanceof Blob) blob = image;
  else if (image instanceof Uint8Array) blob = new Blob([image as Uint8Array<ArrayBuffer>]);
  else return { ok: false, problem: "must be a Blob, File or Uint8Array with the PNG or JPEG bytes" };
  if (blob.size === 0) return { ok: false, problem: "is empty" };
  if (blob.size > MAX_QRIS_IMAGE_BYTES) return { ok: false, problem: `is larger than 5 MB (${blob.size} bytes)` };
  const type = sniffImageType(new Uint8Array(await blob.slice(0, 8).arrayBuffer()));
  if (type === undefined) return { ok: false, problem: "must be a PNG or JPEG image (checked by its first bytes)" };
  return { ok: true, blob: new Blob([blob], { type }), filename: type === "image/png" ? "qris.png" : "qris.jpg" };
}
