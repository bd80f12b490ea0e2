import { failureBody, successBody } from "../../fixtures/envelopes.js";
import type { QrisGenerateRequest } from "../../fixtures/qris.js";
import { jsonReply } from "../json-reply.js";
import { type FakeApp, type FakeContext, isObject, readForm, readJson } from "../world.js";

const MIN_AMOUNT = 1_000;
const MAX_AMOUNT = 100_000_000;
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

/** Checks a generate request (spec table plus FIELD-NOTES: amount 1,000–100,000,000, output `string`/`image`). */
export function validateGenerateQris(body: unknown): string[] {
  if (!isObject(body)) return ["body must be a JSON object"];
  const errors: string[] = [];
  if (!Number.isInteger(body.qris_id)) errors.push("qris_id must be an integer");
  if (!Number.isInteger(body.amount)) errors.push("amount must be an integer");
  else if ((body.amount as number) < MIN_AMOUNT || (body.amount as number) > MAX_AMOUNT) {
    errors.push(`amount must be between ${MIN_AMOUNT} and ${MAX_AMOUNT}`);
  }
  if (body.output_type !== "string" && body.output_type !== "image") errors.push("output_type must be string or image");
  if (body.unique_amount !== undefined && typeof body.unique_amount !== "boolean") {
    errors.push("unique_amount must be a boolean");
  }
  return errors;
}

function imageKind(bytes: Uint8Array): "png" | "jpeg" | undefined {
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return "png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  return undefined;
}

/** QR service: generate (spec path and the `qrisly` path), payment status, upload. */
export function qrisRoutes(app: FakeApp): void {
  const generate = async (c: FakeContext) => {
    const json = await readJson(c);
    if (!json.ok) return jsonReply(failureBody(json.message), json.status as 400);
    const errors = validateGenerateQris(json.value);
    if (errors.length > 0) return jsonReply({ ...failureBody(errors.join("; ")), errors }, 422);
    const request = json.value as QrisGenerateRequest;
    const config = c.env.world.qris.config(request.qris_id);
    if (!config) return jsonReply(failureBody(`QRIS with id ${request.qris_id} not found`), 404);
    return jsonReply(successBody(await c.env.world.qris.generate(request, config), "QRIS generated successfully"));
  };
  app.post("/user/api/v1/qr/generate-qris", generate);
  app.post("/user/api/v1/qrisly/generate-qris", generate);

  app.get("/user/api/v1/qrisly/payment-status/:historyId", (c) => {
    const status = c.env.world.qris.status(c.req.param("historyId"));
    if (!status) return jsonReply(failureBody("QRIS history not found"), 404);
    return jsonReply(successBody(status));
  });

  app.post("/user/api/v1/qrisly/upload-qris", async (c) => {
    if (!(c.req.header("content-type") ?? "").includes("multipart/form-data")) {
      return jsonReply(failureBody("Content-Type must be multipart/form-data"), 415);
    }
    const form = await readForm(c);
    const name = form.name;
    const image = form.qris_image;
    const errors: string[] = [];
    if (typeof name !== "string" || name.trim() === "") errors.push("name is required");
    if (!(image instanceof Blob)) errors.push("qris_image file is required");
    if (errors.length > 0) return jsonReply({ ...failureBody(errors.join("; ")), errors }, 422);
    const file = image as Blob;
    if (file.size > MAX_IMAGE_BYTES) return jsonReply(failureBody("qris_image must be at most 5 MB"), 413);
    if (!imageKind(new Uint8Array(await file.slice(0, 8).arrayBuffer()))) {
      return jsonReply(failureBody("qris_image must be a PNG or JPG image"), 422);
    }
    const config = c.env.world.qris.addConfig(String(name).trim());
    return jsonReply(successBody(c.env.world.qris.uploaded(config), "QRIS uploaded successfully"));
  });
}
