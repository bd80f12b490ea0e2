import { QrisPayloadError } from "./qris-error.js";

/**
 * One EMVCo data object: a two-digit id, a two-digit length and the value. Template objects (merchant account
 * information 26–51, additional data 62, language template 64) also carry their parsed sub-objects.
 */
export interface QrisTag {
  /** Two-digit id, e.g. `"54"` (amount). */
  id: string;
  /** Declared length of `value`, in characters. */
  length: number;
  /** The value, as written. */
  value: string;
  /** Character offset of the id in the whole payload. */
  position: number;
  /** Sub-objects, for template ids only. */
  children?: QrisTag[];
}

const DIGITS = /^\d\d$/;

/**
 * Whether a top-level id holds a template whose value is itself a list of data objects.
 *
 * @example
 * isQrisTemplateId("26"); // true (merchant account information)
 */
export function isQrisTemplateId(id: string): boolean {
  const n = Number(id);
  return (n >= 26 && n <= 51) || n === 62 || n === 64;
}

/**
 * Parses a run of EMVCo data objects. `offset` is where `text` starts inside the whole payload, so every position
 * (in tags and errors) refers to the whole payload. Templates are expanded only when `expandTemplates` is set
 * (top level), because sub-objects are not templates themselves.
 *
 * @throws {QrisPayloadError} on a truncated header, a non-digit id or length, or a value running past the end.
 * @example
 * parseQrisTlv("000201010211", 0, true); // [{ id: "00", value: "01", ... }, { id: "01", value: "11", ... }]
 */
export function parseQrisTlv(text: string, offset: number, expandTemplates: boolean): QrisTag[] {
  const tags: QrisTag[] = [];
  let cursor = 0;
  while (cursor < text.length) {
    const position = offset + cursor;
    if (text.length - cursor < 4) {
      throw new QrisPayloadError(
        "truncated_header",
        position,
        `a data object needs a 2-digit id and a 2-digit length, only ${text.length - cursor} character(s) left`,
      );
    }
    const id = text.slice(cursor, cursor + 2);
    if (!DIGITS.test(id)) throw new QrisPayloadError("invalid_tag_id", position, `tag id "${id}" is not two digits`);
    const lengthText = text.slice(cursor + 2, cursor + 4);
    if (!DIGITS.test(lengthText)) {
      throw new QrisPayloadError(
        "non_digit_length",
        position + 2,
        `length "${lengthText}" of tag ${id} is not two digits`,
      );
    }
    const length = Number(lengthText);
    const valueStart = cursor + 4;
    if (valueStart + length > text.length) {
      throw new QrisPayloadError(
        "value_past_end",
        offset + valueStart,
        `tag ${id} declares ${length} character(s) but only ${text.length - valueStart} remain`,
      );
    }
    const value = text.slice(valueStart, valueStart + length);
    const tag: QrisTag = { id, length, value, position };
    if (expandTemplates && isQrisTemplateId(id)) tag.children = parseQrisTlv(value, offset + valueStart, false);
    tags.push(tag);
    cursor = valueStart + length;
  }
  return tags;
}

/**
 * Writes one data object: id, two-digit length, value.
 *
 * @throws {RangeError} when the id is not two digits or the value is longer than 99 characters.
 * @example
 * formatQrisTag("54", "15000"); // "540515000"
 */
export function formatQrisTag(id: string, value: string): string {
  if (!DIGITS.test(id)) throw new RangeError(`QRIS tag id must be two digits, got "${id}"`);
  if (value.length > 99) throw new RangeError(`QRIS tag ${id} value is ${value.length} characters; at most 99 fit`);
  return `${id}${String(value.length).padStart(2, "0")}${value}`;
}
