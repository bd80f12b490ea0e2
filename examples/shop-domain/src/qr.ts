import { parseQrisPayload, QrisPayloadError, readQrisAmount } from "@kirimbayar/core";
import QRCode from "qrcode";
import { ShopError } from "./errors.js";

/**
 * Returns the QRIS string after checking it can be paid: its CRC matches (a corrupted code would fail in the
 * customer's banking app) and its amount, when it carries one, is the amount quoted at generation.
 *
 * @throws {ShopError} `provider_error` naming the problem.
 * @example
 * const text = checkedQrisString(response.data.qris_string, response.data.final_amount);
 */
export function checkedQrisString(qrisString: string | undefined, finalAmount: number | undefined): string {
  if (qrisString === undefined || qrisString === "") {
    throw new ShopError("provider_error", "The QR service returned no QR string");
  }
  try {
    const payload = parseQrisPayload(qrisString);
    const amount = readQrisAmount(payload);
    if (amount !== null && finalAmount !== undefined && amount !== finalAmount) {
      throw new ShopError(
        "provider_error",
        `The QR code charges ${amount} but the QR service quoted ${finalAmount}: not showing it to the customer`,
      );
    }
    return qrisString;
  } catch (error) {
    if (error instanceof QrisPayloadError) {
      throw new ShopError("provider_error", `The QR string is corrupt (${error.reason} at ${error.position})`, {
        cause: error,
      });
    }
    throw error;
  }
}

/**
 * Renders a QR string as a PNG `data:` URL for an `<img>` tag.
 *
 * @example
 * const src = await qrImageDataUrl(order.qris_string); // "data:image/png;base64,..."
 */
export function qrImageDataUrl(text: string): Promise<string> {
  return QRCode.toDataURL(text, { errorCorrectionLevel: "M", margin: 2, width: 320 });
}

/**
 * Renders a QR string as text for a terminal (two rows per character), as the demo prints it.
 *
 * @example
 * console.log(await qrTerminalText(order.qris_string));
 */
export function qrTerminalText(text: string): Promise<string> {
  return QRCode.toString(text, { type: "terminal", small: true, errorCorrectionLevel: "L" });
}
