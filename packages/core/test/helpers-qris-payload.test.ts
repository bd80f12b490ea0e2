import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { KirimbayarError } from "../src/errors/index.js";
import {
  computeQrisCrc,
  crc16CcittFalse,
  findQrisTag,
  formatCrc16,
  formatQrisTag,
  parseQrisPayload,
  QrisPayloadError,
  readQrisAmount,
  verifyQrisCrc,
  withQrisCrc,
} from "../src/helpers/index.js";

// The merchant-presented example of the EMVCo QR specification, CRC A13A (UTF-8 in the language template).
const EMVCO_EXAMPLE =
  "00020101021229300012D156000000000510A93FO3230Q31280012D15600000001030812345678520441115802CN5914BEST TRANSPORT" +
  "6007BEIJING64200002ZH0104最佳运输0202北京540523.7253031565502016233030412340603***0708A60086670902ME91320016A01" +
  "12233449988770708123456786304A13A";

// Reference CRC written differently (polynomial long division over a bit list) to cross-check the fast one.
function referenceCrc(text: string): number {
  const bits = [...new TextEncoder().encode(text)].flatMap((b) => [7, 6, 5, 4, 3, 2, 1, 0].map((i) => (b >> i) & 1));
  let register = 0xffff;
  for (const bit of bits) {
    const top = (register >> 15) & 1;
    register = (register << 1) & 0xffff;
    if ((top ^ bit) === 1) register ^= 0x1021;
  }
  return register;
}

const thrown = (fn: () => unknown): QrisPayloadError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof QrisPayloadError) return e;
    throw e;
  }
  throw new Error("expected a QrisPayloadError");
};

const dynamicQr = (amount: string) =>
  withQrisCrc(
    formatQrisTag("00", "01") +
      formatQrisTag("01", "12") +
      formatQrisTag("26", formatQrisTag("00", "ID.CO.QRIS.WWW") + formatQrisTag("01", "936009153")) +
      formatQrisTag("52", "5411") +
      formatQrisTag("53", "360") +
      formatQrisTag("54", amount) +
      formatQrisTag("58", "ID") +
      formatQrisTag("59", "TOKO MAJU") +
      formatQrisTag("60", "JAKARTA") +
      formatQrisTag("62", formatQrisTag("01", "INV-42")),
  );

describe("CRC-16/CCITT-FALSE", () => {
  it("has the check value 0x29B1 for 123456789", () => {
    expect(crc16CcittFalse("123456789")).toBe(0x29b1);
    expect(crc16CcittFalse(new TextEncoder().encode("123456789"))).toBe(0x29b1);
    expect(crc16CcittFalse("")).toBe(0xffff);
  });

  it("agrees with a bitwise reference (property)", () => {
    fc.assert(fc.property(fc.string({ unit: "grapheme" }), (text) => crc16CcittFalse(text) === referenceCrc(text)));
  });

  it("formats as 4 upper-case hex digits, left-padded (property)", () => {
    expect(formatCrc16(0x1)).toBe("0001");
    expect(formatCrc16(0xa1)).toBe("00A1");
    expect(formatCrc16(0xfff)).toBe("0FFF");
    fc.assert(
      fc.property(fc.nat(0xffff), (crc) => {
        const text = formatCrc16(crc);
        expect(text).toMatch(/^[0-9A-F]{4}$/);
        expect(Number.parseInt(text, 16)).toBe(crc);
      }),
    );
  });

  it("builds and verifies a payload whose CRC is below 0x1000", () => {
    const base = formatQrisTag("00", "01") + formatQrisTag("01", "11") + formatQrisTag("58", "ID");
    let found: string | undefined;
    for (let i = 0; i < 5000 && found === undefined; i++) {
      const candidate = `${base}${formatQrisTag("59", `SHOP ${i}`)}6304`;
      if (crc16CcittFalse(candidate) < 0x1000) found = candidate.slice(0, -4);
    }
    expect(found).toBeDefined();
    const payload = withQrisCrc(found!);
    expect(payload.slice(-4)).toMatch(/^0[0-9A-F]{3}$/);
    expect(verifyQrisCrc(payload)).toBe(true);
    expect(parseQrisPayload(payload).crc).toBe(payload.slice(-4));
  });
});

describe("parseQrisPayload", () => {
  it("parses the EMVCo example with its templates", () => {
    expect(verifyQrisCrc(EMVCO_EXAMPLE)).toBe(true);
    const qr = parseQrisPayload(EMVCO_EXAMPLE);
    expect(qr.crc).toBe("A13A");
    expect(qr.tags.map((t) => t.id)).toEqual([
      "00",
      "01",
      "29",
      "31",
      "52",
      "58",
      "59",
      "60",
      "64",
      "54",
      "53",
      "55",
      "62",
      "91",
      "63",
    ]);
    expect(findQrisTag(qr.tags, "59")?.value).toBe("BEST TRANSPORT");
    expect(findQrisTag(qr.tags, "64", "01")?.value).toBe("最佳运输");
    expect(findQrisTag(qr.tags, "62", "03")).toMatchObject({ value: "1234", length: 4 });
    expect(findQrisTag(qr.tags, "29", "00")?.value).toBe("D15600000000");
    expect(findQrisTag(qr.tags, "52", "00")).toBeUndefined();
    const template = findQrisTag(qr.tags, "62")!;
    const child = findQrisTag(qr.tags, "62", "03")!;
    expect(EMVCO_EXAMPLE.slice(child.position, child.position + 8)).toBe("03041234");
    expect(child.position).toBeGreaterThan(template.position);
  });

  it("reads a dynamic QRIS", () => {
    const qr = parseQrisPayload(dynamicQr("150000"));
    expect(findQrisTag(qr.tags, "26", "00")?.value).toBe("ID.CO.QRIS.WWW");
    expect(findQrisTag(qr.tags, "62", "01")?.value).toBe("INV-42");
    expect(readQrisAmount(qr)).toBe(150000);
  });

  it("round-trips build → parse (property)", () => {
    const ascii = fc.string({
      unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
      maxLength: 40,
    });
    const subTags = fc.array(fc.tuple(fc.integer({ min: 0, max: 99 }), ascii), { maxLength: 2 });
    const tag = fc.oneof(
      fc
        .tuple(
          fc.integer({ min: 0, max: 99 }).filter((n) => n !== 63 && !(n >= 26 && n <= 51) && n !== 62 && n !== 64),
          ascii,
        )
        .map(([id, value]) => ({
          id: String(id).padStart(2, "0"),
          value,
          sub: undefined as [number, string][] | undefined,
        })),
      fc.tuple(fc.constantFrom(26, 38, 51, 62, 64), subTags).map(([id, sub]) => ({
        id: String(id),
        value: sub.map(([s, v]) => formatQrisTag(String(s).padStart(2, "0"), v)).join(""),
        sub,
      })),
    );
    fc.assert(
      fc.property(fc.array(tag, { maxLength: 8 }), (tags) => {
        fc.pre(tags.every((t) => t.value.length <= 99));
        const payload = withQrisCrc(tags.map((t) => formatQrisTag(t.id, t.value)).join(""));
        const parsed = parseQrisPayload(payload);
        expect(parsed.tags.slice(0, -1).map((t) => [t.id, t.value])).toEqual(tags.map((t) => [t.id, t.value]));
        parsed.tags.slice(0, -1).forEach((t, i) => {
          const sub = tags[i]?.sub;
          if (sub) expect(t.children?.map((c) => c.value)).toEqual(sub.map(([, v]) => v));
          expect(payload.slice(t.position, t.position + 2)).toBe(t.id);
        });
      }),
    );
  });

  it("fails the CRC when any single character changes (property)", () => {
    const payload = dynamicQr("25000");
    fc.assert(
      fc.property(fc.nat(payload.length - 1), fc.integer({ min: 0x20, max: 0x7e }), (index, code) => {
        const replacement = String.fromCharCode(code);
        fc.pre(replacement.toUpperCase() !== payload[index]!.toUpperCase());
        const changed = payload.slice(0, index) + replacement + payload.slice(index + 1);
        expect(verifyQrisCrc(changed)).toBe(false);
        expect(() => parseQrisPayload(changed)).toThrow(QrisPayloadError);
      }),
    );
  });

  it("reports a CRC mismatch with expected and actual", () => {
    const good = dynamicQr("10000");
    const bad = `${good.slice(0, -4)}0000`;
    const error = thrown(() => parseQrisPayload(bad));
    expect(error).toBeInstanceOf(KirimbayarError);
    expect(error).toMatchObject({
      reason: "crc_mismatch",
      position: bad.length - 4,
      expectedCrc: good.slice(-4),
      actualCrc: "0000",
      code: "qris_payload_invalid",
    });
    expect(error.message).toContain(good.slice(-4));
    expect(parseQrisPayload(bad, { verifyCrc: false }).crc).toBe("0000");
  });

  it("accepts a lower-case CRC when reading", () => {
    const good = dynamicQr("10000");
    const lower = good.slice(0, -4) + good.slice(-4).toLowerCase();
    expect(verifyQrisCrc(lower)).toBe(true);
  });

  it.each([
    ["000201010", "truncated_header", 6],
    ["00020101A1", "non_digit_length", 8],
    ["000201AB0211", "invalid_tag_id", 6],
    ["00020102991", "value_past_end", 10],
    ["000201" + "26060009AB" + "6304FFFF", "value_past_end", 14],
    ["000201" + "2608XX01ABCD" + "6304FFFF", "invalid_tag_id", 10],
    ["000201" + "26080001ABCD" + "6304FFFF", "truncated_header", 15],
    ["0002015802ID", "missing_crc", 4],
    ["000201" + "6305ABCDE", "missing_crc", 7],
    ["", "missing_crc", 0],
    ["00020163040000" + "6304FFFF", "duplicate_crc", 6],
  ])("refuses %j: %s at %i", (payload, reason, position) => {
    expect(thrown(() => parseQrisPayload(payload))).toMatchObject({ reason, position });
    expect(verifyQrisCrc(payload)).toBe(false);
  });
});

describe("withQrisCrc", () => {
  it("appends 6304 and the CRC", () => {
    const head = "000201010211";
    const payload = withQrisCrc(head);
    expect(payload).toBe(`${head}6304${computeQrisCrc(`${head}6304`)}`);
    expect(payload).toMatch(/6304[0-9A-F]{4}$/);
  });

  it("refuses malformed input and a payload that already has a CRC", () => {
    expect(thrown(() => withQrisCrc("000201A"))).toMatchObject({ reason: "truncated_header", position: 6 });
    expect(thrown(() => withQrisCrc(dynamicQr("1000")))).toMatchObject({ reason: "duplicate_crc" });
  });

  it("refuses ids and values that cannot be encoded", () => {
    expect(() => formatQrisTag("5", "x")).toThrow(RangeError);
    expect(() => formatQrisTag("59", "x".repeat(100))).toThrow(RangeError);
  });
});

describe("readQrisAmount", () => {
  it.each([
    ["15000", 15000],
    ["15000.00", 15000],
    ["1", 1],
  ])("reads %j as %i rupiah", (raw, amount) => {
    expect(readQrisAmount(dynamicQr(raw))).toBe(amount);
  });

  it("gives null for a static QR with no amount", () => {
    expect(readQrisAmount(withQrisCrc(`000201010211${formatQrisTag("58", "ID")}`))).toBeNull();
  });

  it("refuses a fraction and a non-number, pointing at the value", () => {
    const fractional = thrown(() => readQrisAmount(EMVCO_EXAMPLE));
    expect(fractional).toMatchObject({ reason: "amount_not_whole", position: EMVCO_EXAMPLE.indexOf("540523.72") + 4 });
    const payload = dynamicQr("1e5");
    expect(thrown(() => readQrisAmount(payload))).toMatchObject({
      reason: "invalid_amount",
      position: payload.indexOf("54031e5") + 4,
    });
  });

  it("checks the CRC of a string first", () => {
    const payload = dynamicQr("5000");
    expect(thrown(() => readQrisAmount(`${payload.slice(0, -4)}FFFF`)).reason).toBe("crc_mismatch");
  });
});
