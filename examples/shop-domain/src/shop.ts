import type { DomesticDestination, PaymentGatewayClient, QrisClient, ShippingClient } from "@kirimbayar/core";
import { ShopError, toShopError } from "./errors.js";
import { logEvent, rupiah } from "./event-log.js";
import type { ChosenShipping, Order, OrderItem, QrisPayment, VaPayment } from "./order.js";
import type { OrderRepository } from "./order-repository.js";
import { checkedQrisString, qrImageDataUrl } from "./qr.js";
import type { ShopQuoter } from "./quoting.js";
import {
  createOrderRequestSchema,
  destinationSearchRequestSchema,
  parseRequest,
  payByVaRequestSchema,
  quoteRequestSchema,
} from "./requests.js";
import { quoteView, type ShippingQuoteView } from "./shipping-quote.js";

/** The kirimbayar clients the shop calls. */
export interface ShopClients {
  shipping: ShippingClient;
  qris: QrisClient;
  payment: PaymentGatewayClient;
}

/** What a {@link Shop} needs: its clients, storage, and a few settings from the configuration. */
export interface ShopOptions {
  clients: ShopClients;
  /** Prices the shop's couriers for quotes and orders (see `createShopQuoting`). */
  quoter: ShopQuoter;
  orders: OrderRepository;
  /** Destination id the parcels leave from. */
  originId: number;
  /** The QR configuration codes are generated from. */
  qrisId: number;
  /** Key the payment gateway signs its callbacks with. */
  callbackApiKey: string;
  /** Where the payment gateway reaches this shop; read at call time because the port may be known only later. */
  publicBaseUrl: () => string;
  now?: () => Date;
}

/** A destination as the shop lists it. */
export interface DestinationView {
  id: number | string;
  label: string;
  zip_code: string | undefined;
}

/** What `POST /orders` answers: the order and how to pay it. */
export interface CreatedOrder {
  order: Order;
  qris: {
    qris_string: string;
    /** Amount the customer pays: the order total plus the unique code. */
    final_amount: number;
    expires_at: string | undefined;
    /** PNG of the QR code, as a `data:` URL ready for an `<img src>`. */
    image_data_url: string;
  };
}

/**
 * The example shop: destination search, shipping quotes, orders paid by QRIS or virtual account, and the webhook
 * handlers that move orders along. Framework-neutral: each example maps its routes onto these methods, and
 * {@link ShopError} onto HTTP statuses.
 *
 * @example
 * const shop = new Shop({ clients, quoter, orders: new InMemoryOrderRepository(), originId: 501, ... });
 * const { order, qris } = await shop.createOrder(requestBody);
 */
export class Shop {
  readonly #options: ShopOptions;
  readonly #now: () => Date;

  constructor(options: ShopOptions) {
    this.#options = options;
    this.#now = options.now ?? (() => new Date());
  }

  /** `GET /shipping/destinations?search=`: domestic destinations matching the text. */
  async searchDestinations(query: unknown): Promise<DestinationView[]> {
    const { search, limit } = parseRequest(destinationSearchRequestSchema, query);
    const response = await this.#call(() =>
      this.#options.clients.shipping.searchDomesticDestinations({ search, limit }),
    );
    return response.data.map((destination: DomesticDestination) => ({
      id: destination.id,
      label: destination.label ?? [destination.subdistrict_name, destination.city_name].filter(Boolean).join(", "),
      zip_code: destination.zip_code === undefined ? undefined : String(destination.zip_code),
    }));
  }

  /**
   * `POST /shipping/quote`: every service of the asked couriers (the shop's couriers by default), cheapest and
   * fastest marked, each saying where its price came from; couriers without a price within the quote's budget are
   * listed in `missing` with their reason.
   */
  async quote(body: unknown): Promise<ShippingQuoteView> {
    const request = parseRequest(quoteRequestSchema, body);
    return this.#quote(request.destination_id, request.weight, request.couriers);
  }

  /**
   * `POST /orders`: prices the chosen courier service again (never trusting a price from the browser), generates a
   * QRIS code for the total, checks its CRC and amount, and stores the order awaiting payment.
   */
  async createOrder(body: unknown): Promise<CreatedOrder> {
    const request = parseRequest(createOrderRequestSchema, body);
    const items: OrderItem[] = request.items;
    const subtotal = items.reduce((sum, item) => sum + item.price * item.quantity, 0);
    const weight = items.reduce((sum, item) => sum + item.weight * item.quantity, 0);
    const { shipping, backup } = await this.#chooseShipping(
      request.destination_id,
      weight,
      request.courier,
      request.service,
    );
    const total = subtotal + shipping.cost;

    const generated = await this.#call(() =>
      this.#options.clients.qris.generateQris({ qris_id: this.#options.qrisId, amount: total, output_type: "string" }),
    );
    const qr = generated.data;
    const qrisString = checkedQrisString(qr.qris_string, qr.final_amount);
    const payment: QrisPayment = {
      method: "qris",
      state: "pending",
      history_id: String(qr.history_id),
      qris_string: qrisString,
      original_amount: qr.original_amount,
      final_amount: qr.final_amount,
      expires_at: qr.expiry_time_date.toISOString(),
    };
    const now = this.#now();
    const draft: Omit<Order, "id"> = {
      status: "awaiting_payment",
      customer: request.customer,
      items,
      subtotal,
      shipping,
      total,
      weight,
      payments: [payment],
      cnote: undefined,
      created_at: now.toISOString(),
      events: [],
    };
    logEvent(draft, now, "shop", "order.created", `total ${rupiah(total)} incl. shipping ${rupiah(shipping.cost)}`);
    if (backup) {
      logEvent(
        draft,
        now,
        "shop",
        "shipping.backup_rate",
        `${shipping.courier_name} had no price in time: shipping charged at the shop's backup rate`,
      );
    }
    logEvent(
      draft,
      now,
      "shop",
      "qris.generated",
      `QR ${payment.history_id} for ${rupiah(payment.final_amount)} (order total ${rupiah(total)} + unique code)`,
    );
    const order = await this.#options.orders.create(draft);
    return {
      order,
      qris: {
        qris_string: qrisString,
        final_amount: payment.final_amount,
        expires_at: payment.expires_at,
        image_data_url: await qrImageDataUrl(qrisString),
      },
    };
  }

  /** `POST /orders/:id/pay-by-va`: a virtual-account payment for the order total, as an alternative to the QR. */
  async payByVa(orderId: string, body: unknown): Promise<{ order: Order; payment: VaPayment }> {
    const { bank_code } = parseRequest(payByVaRequestSchema, body);
    const order = await this.getOrder(orderId);
    if (order.status !== "awaiting_payment") {
      throw new ShopError("conflict", `Order ${order.id} is ${order.status}, not awaiting payment`);
    }
    const openVa = order.payments.find((p) => p.method === "va" && p.state === "pending");
    if (openVa?.method === "va") {
      throw new ShopError("conflict", `Order ${order.id} already has an open virtual account (${openVa.payment_id})`);
    }
    const created = await this.#call(() =>
      this.#options.clients.payment.createPayment({
        order_id: order.id,
        payment_type: "bank_transfer",
        channel_code: bank_code,
        amount: order.total,
        customer: order.customer,
        items: [
          ...order.items.map(({ name, quantity, price }) => ({ name, quantity, price })),
          {
            name: `Ongkir ${order.shipping.courier_name} ${order.shipping.service}`,
            quantity: 1,
            price: order.shipping.cost,
          },
        ],
        callback_url: `${this.#options.publicBaseUrl()}/webhooks/payment`,
        callback_api_key: this.#options.callbackApiKey,
      }),
    );
    const payment: VaPayment = {
      method: "va",
      state: "pending",
      payment_id: String(created.data.payment_id),
      bank_code,
      va_number: created.data.va_number ?? undefined,
      amount: created.data.amount ?? order.total,
      expires_at: created.data.expired_at ?? undefined,
    };
    const updated = await this.#options.orders.update(order.id, (stored) => {
      stored.payments.push(payment);
      logEvent(
        stored,
        this.#now(),
        "shop",
        "va.created",
        `VA ${payment.va_number ?? "?"} at ${bank_code} for ${rupiah(payment.amount)}`,
      );
    });
    return { order: updated ?? order, payment };
  }

  /** `GET /orders/:id`: the order with its status and event log. */
  async getOrder(orderId: string): Promise<Order> {
    const order = await this.#options.orders.get(orderId);
    if (order === undefined) throw new ShopError("not_found", `Order ${orderId} does not exist`);
    return order;
  }

  async #quote(
    destinationId: number,
    weight: number,
    couriers: readonly string[] | undefined,
  ): Promise<ShippingQuoteView> {
    const quote = await this.#call(() =>
      this.#options.quoter.quote({
        origin: this.#options.originId,
        destination: destinationId,
        weight,
        ...(couriers === undefined ? {} : { couriers }),
      }),
    );
    return quoteView(quote);
  }

  // The order's price comes from the quoter too, never from the browser: the price the customer was just shown
  // (cached), or asked again. A courier still without a price is not sold; one at the backup rate is, and says so.
  async #chooseShipping(
    destinationId: number,
    weight: number,
    courier: string,
    service: string,
  ): Promise<{ shipping: ChosenShipping; backup: boolean }> {
    const { options, missing } = await this.#quote(destinationId, weight, [courier]).catch((error: unknown) => {
      // The quoter names the field of its own input: here the courier was the order's `courier`.
      if (error instanceof ShopError)
        for (const issue of error.issues) issue.path = issue.path.replace(/^couriers\.0/, "courier");
      throw error;
    });
    const absent = missing[0];
    if (absent?.reason === "not_served") throw new ShopError("not_found", "No courier serves this route");
    if (absent !== undefined) {
      throw new ShopError(
        "provider_error",
        `Courier ${courier} has no price right now (${absent.reason}): try again in a moment`,
      );
    }
    const chosen = options.find((option) => option.service.toLowerCase() === service.toLowerCase());
    if (chosen === undefined) {
      throw new ShopError("invalid_request", `Courier ${courier} offers no service ${service} to this destination`, {
        issues: [
          { path: "service", message: `choose one of: ${options.map((o) => o.service).join(", ") || "(none)"}` },
        ],
      });
    }
    const shipping: ChosenShipping = {
      courier_code: chosen.courier_code,
      courier_name: chosen.courier_name,
      service: chosen.service,
      cost: chosen.cost,
      etd: chosen.etd,
      destination_id: destinationId,
    };
    return { shipping, backup: chosen.source === "backup" };
  }

  async #call<T>(operation: () => Promise<T>): Promise<T> {
    try {
      return await operation();
    } catch (error) {
      throw toShopError(error);
    }
  }
}
