// Reads QR codes back the way a phone would: PNG bytes to pixels (pngjs), pixels to text (jsqr). A copy of
// packages/testing/test/qr-decode.ts (an example does not import another package's tests), adapted to NodeNext:
// jsqr is CommonJS, so its default import is its module.exports, whose `default` is the decoder.
import jsqr from "jsqr";
import { PNG } from "pngjs";

const jsQR = jsqr.default;

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
