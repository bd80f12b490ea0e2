// The picture of a QR code: what `output_type: "image"` returns and what the simulator page shows. `qrcode` is loaded
// on the first image only, so a test suite that never asks for one does not pay for it.

type QrcodeModule = typeof import("qrcode");

let qrcode: Promise<QrcodeModule> | undefined;

/** Error correction M and the 4-module quiet zone the QR standard asks for: what a phone camera reads reliably. */
const IMAGE_OPTIONS = { errorCorrectionLevel: "M", margin: 4, scale: 8, type: "image/png" } as const;

/**
 * A PNG data URL (`data:image/png;base64,...`) of a scannable QR code holding `text` exactly.
 *
 * @example
 * const dataUrl = await qrisImageDataUrl(code.qrisString); // decodes back to code.qrisString
 */
export async function qrisImageDataUrl(text: string): Promise<string> {
  qrcode ??= import("qrcode");
  return (await qrcode).toDataURL(text, IMAGE_OPTIONS);
}

/** The bytes of a PNG data URL. */
export function dataUrlBytes(dataUrl: string): Uint8Array<ArrayBuffer> {
  const comma = dataUrl.indexOf(",");
  return Uint8Array.from(atob(dataUrl.slice(comma + 1)), (char) => char.charCodeAt(0));
}
