import type { Clock } from "../../clock.js";
import { findCourier } from "../../data/couriers.js";
import { resolveSubdistrict } from "../../data/lookup.js";
import type { FixtureContext } from "../../fixtures/context.js";
import type { OrderStatus, OrderStatusPayload } from "../../fixtures/orders.js";
import { DEFAULT_ROUTE } from "../../fixtures/shipping.js";
import type { Shipment } from "../../fixtures/waybill.js";
import { FakeProviderError } from "../errors.js";
import type { IdSource } from "../ids.js";
import type { WebhookDispatcher } from "../webhooks.js";

/** Input of `provider.orders.create`: everything optional. */
export interface CreateOrderInput {
  order_no?: string;
  /** Waybill number. Generated when omitted. */
  cnote?: string;
  /** Courier code. Default `jne`. */
  courier?: string;
  /** Origin and destination subdistrict ids of the data set. Default Gambir (Jakarta) → Braga (Bandung). */
  origin?: number;
  destination?: number;
  weight?: number;
  receiverName?: string;
  /** JNE tracking asks for its last 5 digits. */
  receiverPhone?: string;
}

/** An order the fake ships, with its tracking. */
export interface FakeOrder {
  orderNo: string;
  cnote: string;
  courier: string;
  status: OrderStatus;
  receiverPhone: string;
  shipment: Shipment;
}

// How each order status shows on the waybill (the order service and the tracker speak different languages).
const TRACKING: Record<string, { status: string; description: string }> = {
  Diajukan: { status: "ON PROCESS", description: "SHIPMENT DATA RECEIVED (DIAJUKAN)" },
  Dijemput: { status: "ON PROCESS", description: "PICKED UP BY COURIER (DIJEMPUT)" },
  Dikirim: { status: "ON PROCESS", description: "DEPARTED TO DESTINATION CITY (DIKIRIM)" },
  Selesai: { status: "DELIVERED", description: "DELIVERED (SELESAI)" },
  Dibatalkan: { status: "CANCELLED", description: "SHIPMENT CANCELLED (DIBATALKAN)" },
};

// Shared by every store with no order yet, never written: a fake per test pays for each Map it makes.
const NO_ORDERS: ReadonlyMap<string, FakeOrder> = new Map();

/** Orders with waybills; `setStatus` updates tracking and sends the order webhook to the registered URL. */
export class OrderStore {
  webhookUrl: string | undefined;
  #orders: ReadonlyMap<string, FakeOrder> = NO_ORDERS;
  #ctx: FixtureContext;
  #ids: IdSource;
  #clock: Clock;
  #dispatcher: WebhookDispatcher;
  #method: string;

  constructor(ctx: FixtureContext, ids: IdSource, clock: Clock, dispatcher: WebhookDispatcher, method: "POST" | "PUT") {
    this.#ctx = ctx;
    this.#ids = ids;
    this.#clock = clock;
    this.#dispatcher = dispatcher;
    this.#method = method;
  }

  /** Forgets every order (`provider.reset()`). */
  clear(): void {
    this.#orders = NO_ORDERS;
  }

  /** Creates an order in status `Diajukan` with a trackable waybill. No webhook is sent for creation. */
  create(input: CreateOrderInput = {}): FakeOrder {
    const random = this.#ctx.random;
    const courierCode = (input.courier ?? "jne").toLowerCase();
    const courier = findCourier(courierCode);
    const origin = resolveSubdistrict(input.origin ?? DEFAULT_ROUTE.origin);
    const destination = resolveSubdistrict(input.destination ?? DEFAULT_ROUTE.destination);
    if (!origin || !destination)
      throw new FakeProviderError("invalid_input", "origin and destination must be subdistrict ids of the data set");
    const orderNo = input.order_no ?? `KOM${this.#ids.orderDigits()}`;
    if (this.#orders.has(orderNo)) throw new FakeProviderError("invalid_input", `order ${orderNo} exists`);
    const now = this.#clock.now();
    const cnote = input.cnote ?? `${courierCode.slice(0, 2).toUpperCase()}${this.#ids.waybillDigits()}`;
    const receiverPhone = input.receiverPhone ?? `0812${random.digits(8)}`;
    const order: FakeOrder = {
      orderNo,
      cnote,
      courier: courierCode,
      status: "Diajukan",
      receiverPhone,
      shipment: {
        waybill: cnote,
        courierCode,
        courierName: courier?.name ?? courierCode.toUpperCase(),
        serviceCode: courier?.services[0]?.service ?? "REG",
        createdAt: now,
        weightGrams: input.weight ?? 1000,
        shipperName: "TOKO KIRIMBAYAR",
        shipperAddress: `JL. ${origin.subdistrict.name.toUpperCase()} NO. ${random.int(1, 99)}`,
        originCity: origin.city.name.toUpperCase(),
        receiverName: (input.receiverName ?? "Siti Rahayu").toUpperCase(),
        receiverAddress: `JL. ${destination.subdistrict.name.toUpperCase()} NO. ${random.int(1, 99)}`,
        destinationCity: destination.city.name.toUpperCase(),
        status: "ON PROCESS",
        history: [],
      },
    };
    this.#track(order, "Diajukan", now);
    const orders = this.#orders === NO_ORDERS ? new Map<string, FakeOrder>() : (this.#orders as Map<string, FakeOrder>);
    this.#orders = orders;
    orders.set(orderNo, order);
    return structuredClone(order);
  }

  /** An order by number. */
  get(orderNo: string): FakeOrder | undefined {
    const order = this.#orders.get(orderNo);
    return order && structuredClone(order);
  }

  /** Every order, oldest first. */
  list(): FakeOrder[] {
    return [...this.#orders.values()].map((order) => structuredClone(order));
  }

  /** The order whose waybill is `awb` with `courier`, for the trackers. */
  findByWaybill(awb: string, courier: string): FakeOrder | undefined {
    const order = [...this.#orders.values()].find(
      (o) => o.cnote === awb.trim() && o.courier === courier.trim().toLowerCase(),
    );
    return order && structuredClone(order);
  }

  /** Moves an order to `status` (any string: the set is open), updates tracking and sends the webhook. */
  async setStatus(orderNo: string, status: OrderStatus): Promise<FakeOrder> {
    const order = this.#orders.get(orderNo);
    if (!order) throw new FakeProviderError("not_found", `no order ${orderNo}`);
    order.status = status;
    this.#track(order, status, this.#clock.now());
    if (this.webhookUrl) {
      const body: OrderStatusPayload = { order_no: order.orderNo, cnote: order.cnote, status };
      await this.#dispatcher.dispatch({
        source: "orders",
        event: "order.status",
        url: this.webhookUrl,
        method: this.#method,
        body,
      });
    }
    return structuredClone(order);
  }

  #track(order: FakeOrder, status: string, at: number): void {
    const tracking = TRACKING[status] ?? { status: "ON PROCESS", description: status.toUpperCase() };
    const shipment = order.shipment;
    shipment.status = tracking.status;
    if (tracking.status === "DELIVERED") shipment.deliveredAt = at;
    const city =
      tracking.status === "DELIVERED" || status === "Dikirim" ? shipment.destinationCity : shipment.originCity;
    shipment.history.push({ at, code: String(shipment.history.length + 1), description: tracking.description, city });
  }
}
