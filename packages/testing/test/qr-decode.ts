// Reads QR codes back the way a phone would: PNG bytes to pixels (pngjs), pixels to text (jsqr).
import jsQR from "jsqr";
import { PNG } from "pngjs";

/** The text of the QR code in a PNG, or undefined when none is found. */
export function decodeQrPng(png: Uint8Array): string | undefined {
  const image = PNG.sync.read(Buffer.from(png));
  return jsQR(new Uint8ClampedArray(image.data), image.width, image.height)?.data;
}

/** The text of the QR code in a `data:image/png;base64,...` URL. */
export function decodeQrDataUrl(dataUrl: string): string | undefined {
  const [header, base64] = dataUrl.split(",", 2);
  if (header !== "data:image/png;base64" || base64 === undefined) throw new Error(`not a PNG data URL: ${header}`);
  return decodeQrPng(Buffer.from(base64, "base64"));
}
