import type { z } from "zod";
import { ConfigurationError } from "../errors/validation.js";
import type { RequestOptions } from "../http/options.js";
import type { ShippingInterface } from "../shipping/account.js";
import { domesticCostInputSchema } from "../shipping/current-schemas.js";
import type { ShippingProClient } from "../shipping/pro-client.js";
import { proCostInputSchema, proInternationalCostInputSchema } from "../shipping/pro-schemas.js";
import type { ShippingClient } from "../shipping/shipping-client.js";
import type { ShippingStarterClient } from "../shipping/starter-client.js";
import { starterCostInputSchema } from "../shipping/starter-schemas.js";
import type { RateOption } from "./types.js";

/** A client whose costs a quoter can price: the current interface, or a legacy Pro or Starter account. */
export type QuotableClient = ShippingClient | ShippingProClient | ShippingStarterClient;

/** The cost operations of a client type. */
export type CostOperationOf<C> = C extends ShippingClient
  ? "calculateDomesticCost" | "calculateDistrictDomesticCost" | "calculateInternationalCost"
  : C extends ShippingProClient
    ? "calculateCost" | "calculateInternationalCost"
    : C extends ShippingStarterClient
      ? "calculateCost"
      : never;

/** The operation a quoter uses when none is named: domestic cost (district-level is opt-in). */
export type DefaultOperationOf<C> = C extends ShippingClient ? "calculateDomesticCost" : "calculateCost";

/** The operation a quoter of `C` was built for: `O` when one was named, else the default one. */
export type ChosenOperation<C, O> = [CostOperationOf<C>] extends [O] ? DefaultOperationOf<C> : O;

/**
 * What a quote takes for operation `O` of client `C`: the operation's own input without `courier` (the quoter
 * prices its configured couriers), e.g. `{ origin, destination, weight, price? }` for the current interface.
 */
export type CostInputOf<C, O> = O extends keyof C
  ? C[O] extends (input: infer I, ...rest: never[]) => unknown
    ? Omit<I, "courier">
    : never
  : never;

const OPERATIONS: Readonly<Record<ShippingInterface, readonly string[]>> = {
  current: ["calculateDomesticCost", "calculateDistrictDomesticCost", "calculateInternationalCost"],
  pro: ["calculateCost", "calculateInternationalCost"],
  starter: ["calculateCost"],
};

const DIMENSIONS = ["length", "width", "height", "diameter"] as const;

/** How the quoter calls one cost operation and reads its answer. */
export interface CostOperation {
  readonly name: string;
  /** Validates a whole input of the operation (with one courier), as the client would before sending it. */
  readonly schema: z.ZodType;
  /** Whether several couriers may share one call with these extra fields (Pro prices dimensions for one only). */
  batchable(extras: Readonly<Record<string, unknown>>): boolean;
  /** Calls the client for these couriers and returns every option of the answer (`courier` still unset). */
  call(input: Readonly<Record<string, unknown>>, couriers: readonly string[], timeoutMs: number): Promise<RateOption[]>;
}

type CostMethod = (input: unknown, options?: RequestOptions) => Promise<{ data: unknown }>;

/**
 * The cost operation `name` of a client of interface `kind`, or a ConfigurationError naming the ones it has.
 *
 * @example
 * const operation = costOperation(shipping, "current", "calculateDistrictDomesticCost");
 */
export function costOperation(client: object, kind: ShippingInterface, name: string | undefined): CostOperation {
  const chosen = name ?? (kind === "current" ? "calculateDomesticCost" : "calculateCost");
  const known = OPERATIONS[kind];
  if (!known.includes(chosen)) {
    throw new ConfigurationError(
      "operation",
      `operation must be a cost operation of this ${kind} shipping client: ${known.join(", ")}`,
    );
  }
  const method = (client as Record<string, unknown>)[chosen];
  if (typeof method !== "function") {
    throw new ConfigurationError("client", `client has no ${chosen} method: pass a kirimbayar shipping client`);
  }
  const send = (method as CostMethod).bind(client);
  const dimensionsPriceOneCourier = kind === "pro" && chosen === "calculateCost";
  return {
    name: chosen,
    schema: schemaOf(kind, chosen),
    batchable: (extras) => !dimensionsPriceOneCourier || DIMENSIONS.every((d) => extras[d] === undefined),
    async call(input, couriers, timeoutMs) {
      // No retry inside a call: the quoter splits a failed batch, serves stale or backup prices, and a courier that
      // keeps failing cools down, so a retry would spend quota and time the checkout does not have.
      const response = await send(Object.assign({}, input, { courier: couriers.join(":") }), {
        timeoutMs,
        maxRetries: 0,
      });
      return readOptions(response.data);
    },
  };
}

function schemaOf(kind: ShippingInterface, operation: string): z.ZodType {
  if (kind === "current") return domesticCostInputSchema;
  if (kind === "starter") return starterCostInputSchema;
  return operation === "calculateCost" ? proCostInputSchema : proInternationalCostInputSchema;
}

type Loose = Record<string, unknown>;

const text = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

function option(code: string, name: unknown, service: unknown, fields: Loose, cost: unknown): RateOption {
  const result: RateOption = {
    courier: "",
    code,
    name: text(name),
    service: String(service ?? ""),
    description: text(fields.description),
    cost: Number(cost),
    etd: text(fields.etd) ?? "",
  };
  if (typeof fields.currency === "string") result.currency = fields.currency;
  if (typeof fields.note === "string" && fields.note !== "") result.note = fields.note;
  return result;
}

/**
 * Flattens a cost answer into options: the current interface's flat list, or the legacy
 * `results[] = { code, name, costs[] = { service, cost[] = { value, etd, note } } }` (Pro international: `cost` a
 * number beside `currency`). The clients' schemas already checked these shapes.
 */
export function readOptions(data: unknown): RateOption[] {
  if (Array.isArray(data)) {
    return (data as Loose[]).map((o) => option(String(o.code), o.name, o.service, o, o.cost));
  }
  const results = ((data as Loose | null)?.results ?? []) as Loose[];
  const options: RateOption[] = [];
  for (const courier of results) {
    for (const service of (courier.costs ?? []) as Loose[]) {
      if (Array.isArray(service.cost)) {
        for (const price of service.cost as Loose[]) {
          options.push(
            option(String(courier.code), courier.name, service.service, { ...service, ...price }, price.value),
          );
        }
      } else {
        options.push(option(String(courier.code), courier.name, service.service, service, service.cost));
      }
    }
  }
  return options;
}
