import { withQrisCrc } from "@kirimbayar/core";
import { describe, expect, it } from "vitest";
import { ShopError } from "../src/errors.js";
import { checkedQrisString, qrImageDataUrl, qrTerminalText } from "../src/qr.js";

const tlv = (id: string, value: string) => `${id}${String(value.length).padStart(2, "0")}${value}`;

function qris(amount?: number): string {
  return withQrisCrc(
    [
      tlv("00", "01"),
      tlv("01", "12"),
      tlv("26", tlv("00", "ID.CO.QRIS.WWW") + tlv("01", "936009150000000001")),
      tlv("52", "5411"),
      tlv("53", "360"),
      amount === undefined ? "" : tlv("54", String(amount)),
      tlv("58", "ID"),
      tlv("59", "TOKO KOPI SARI"),
      tlv("60", "BANDUNG"),
    ].join(""),
  );
}

describe("checkedQrisString", () => {
  it("accepts a code whose CRC and amount match the quote", () => {
    const text = qris(188_001);
    expect(checkedQrisString(text, 188_001)).toBe(text);
    expect(checkedQrisString(qris(), 188_001)).toBe(qris());
  });

  it("refuses a corrupted code, a code for another amount, and a missing one", () => {
    const text = qris(188_001);
    const corrupted = `${text.slice(0, 30)}X${text.slice(31)}`;
    expect(() => checkedQrisString(corrupted, 188_001)).toThrow(/corrupt \(crc_mismatch/);
    expect(() => checkedQrisString(text, 188_000)).toThrow("charges 188001 but the QR service quoted 188000");
    expect(() => checkedQrisString(undefined, 1)).toThrow(ShopError);
  });
});

describe("QR rendering", () => {
  it("renders a PNG data URL and terminal text", async () => {
    expect(await qrImageDataUrl(qris(10_000))).toMatch(/^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
    const terminal = await qrTerminalText(qris(10_000));
    expect(terminal.split("\n").length).toBeGreaterThan(10);
  });
});
