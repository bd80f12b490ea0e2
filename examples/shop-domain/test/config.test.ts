import { describe, expect, it } from "vitest";
import { loadShopConfig, ShopConfigError } from "../src/config.js";
import { openShopDatabase } from "../src/database.js";
import { VALID_ENV } from "./support/env.js";

function problemsOf(env: Record<string, string | undefined>): ShopConfigError["problems"] {
  try {
    loadShopConfig(env);
  } catch (error) {
    if (error instanceof ShopConfigError) return error.problems;
    throw error;
  }
  throw new Error("expected a ShopConfigError");
}

describe("loadShopConfig", () => {
  it("reads a complete environment, with defaults for what is optional", () => {
    const config = loadShopConfig(VALID_ENV);
    expect(config).toMatchObject({
      port: 4000,
      host: "127.0.0.1",
      publicBaseUrl: undefined,
      payment: { baseUrl: "https://payment.example.test" },
      qris: { apiKey: "pay-key-secret-value", baseUrl: "https://payment.example.test", qrisId: 7 },
      shipping: { originId: 501, couriers: ["jne", "sicepat", "pos", "tiki"] },
      orders: undefined,
      redisUrl: undefined,
    });
  });

  it("lists every missing variable at once, by name", () => {
    const problems = problemsOf({});
    expect(problems.map((p) => p.variable).sort()).toEqual(
      [
        "KIRIMBAYAR_CALLBACK_API_KEY",
        "KIRIMBAYAR_PAYMENT_API_KEY",
        "KIRIMBAYAR_PAYMENT_BASE_URL",
        "KIRIMBAYAR_QRIS_ID",
        "KIRIMBAYAR_SHIPPING_API_KEY",
        "KIRIMBAYAR_SHIPPING_BASE_URL",
        "KIRIMBAYAR_WEBHOOK_SECRET",
        "SHOP_ORIGIN_ID",
      ].sort(),
    );
    expect(problems.every((p) => p.message === "is required")).toBe(true);
  });

  it("treats empty strings as unset and explains malformed values without repeating secrets", () => {
    const env = {
      ...VALID_ENV,
      PORT: "eighty",
      KIRIMBAYAR_WEBHOOK_SECRET: "short-secret",
      KIRIMBAYAR_PAYMENT_BASE_URL: "ftp://payment.example.test",
      REDIS_URL: "http://localhost:6379",
      KIRIMBAYAR_SHIPPING_API_KEY: "",
    };
    let message = "";
    try {
      loadShopConfig(env);
    } catch (error) {
      message = (error as Error).message;
      expect(error).toBeInstanceOf(ShopConfigError);
    }
    expect(message).toContain("PORT: PORT must be a number");
    expect(message).toContain("KIRIMBAYAR_WEBHOOK_SECRET: KIRIMBAYAR_WEBHOOK_SECRET must be at least 16 characters");
    expect(message).toContain("KIRIMBAYAR_PAYMENT_BASE_URL: KIRIMBAYAR_PAYMENT_BASE_URL must be an http(s) URL");
    expect(message).toContain("REDIS_URL: REDIS_URL must be a redis:// or rediss:// URL");
    expect(message).toContain("KIRIMBAYAR_SHIPPING_API_KEY: is required");
    expect(message).not.toContain("short-secret");
    expect(message).not.toContain("pay-key-secret-value");
  });

  it("refuses a secret with surrounding whitespace", () => {
    const problems = problemsOf({ ...VALID_ENV, KIRIMBAYAR_CALLBACK_API_KEY: " callback-key-0123456789" });
    expect(problems).toEqual([
      {
        variable: "KIRIMBAYAR_CALLBACK_API_KEY",
        message: "KIRIMBAYAR_CALLBACK_API_KEY has leading or trailing whitespace (a copy-paste accident?)",
      },
    ]);
  });

  it("needs the order service's URL and key together", () => {
    expect(
      problemsOf({ ...VALID_ENV, KIRIMBAYAR_ORDERS_BASE_URL: "https://orders.example.test/order/api/v1" }),
    ).toEqual([
      {
        variable: "KIRIMBAYAR_ORDERS_API_KEY",
        message: "set both KIRIMBAYAR_ORDERS_BASE_URL and KIRIMBAYAR_ORDERS_API_KEY, or neither",
      },
    ]);
    const config = loadShopConfig({
      ...VALID_ENV,
      KIRIMBAYAR_ORDERS_BASE_URL: "https://orders.example.test/order/api/v1",
      KIRIMBAYAR_ORDERS_API_KEY: "orders-key",
      PUBLIC_BASE_URL: "https://shop.example.test/",
      REDIS_URL: "redis://127.0.0.1:6379",
      SHOP_COURIERS: "JNE:jnt",
    });
    expect(config.orders).toEqual({ apiKey: "orders-key", baseUrl: "https://orders.example.test/order/api/v1" });
    expect(config.publicBaseUrl).toBe("https://shop.example.test");
    expect(config.redisUrl).toBe("redis://127.0.0.1:6379");
    expect(config.shipping.couriers).toEqual(["jne", "jnt"]);
  });
});

describe("loadShopConfig: shipping quotes", () => {
  it("gives a quote 800 ms and no backup rate by default; takes both from the environment", () => {
    expect(loadShopConfig(VALID_ENV).shipping).toMatchObject({ quoteBudgetMs: 800, backupRate: undefined });
    const config = loadShopConfig({ ...VALID_ENV, SHOP_QUOTE_BUDGET_MS: "500", SHOP_BACKUP_RATE: "35000" });
    expect(config.shipping).toMatchObject({ quoteBudgetMs: 500, backupRate: 35_000 });
  });

  it("refuses a budget of 0 or a backup rate that is not whole rupiah, and a courier listed twice", () => {
    const problems = problemsOf({
      ...VALID_ENV,
      SHOP_QUOTE_BUDGET_MS: "0",
      SHOP_BACKUP_RATE: "12.5",
      SHOP_COURIERS: "jne:pos:JNE",
    });
    expect(problems.map((p) => p.variable).sort()).toEqual([
      "SHOP_BACKUP_RATE",
      "SHOP_COURIERS",
      "SHOP_QUOTE_BUDGET_MS",
    ]);
    expect(problems.find((p) => p.variable === "SHOP_COURIERS")?.message).toBe("SHOP_COURIERS lists a courier twice");
  });
});

describe("loadShopConfig: where orders live", () => {
  it("keeps orders in memory by default, in PostgreSQL with SHOP_DATABASE=postgres or a DATABASE_URL", () => {
    expect(loadShopConfig(VALID_ENV)).toMatchObject({ database: "memory", databaseUrl: undefined });
    expect(loadShopConfig({ ...VALID_ENV, SHOP_DATABASE: "postgres" })).toMatchObject({ database: "postgres" });
    const url = "postgres://shop:s3cret@127.0.0.1:5432/shop";
    expect(loadShopConfig({ ...VALID_ENV, DATABASE_URL: url })).toMatchObject({
      database: "postgres",
      databaseUrl: url,
    });
  });

  it("refuses an unknown SHOP_DATABASE and a DATABASE_URL that is neither PostgreSQL nor MySQL, naming the variable only", () => {
    const problems = problemsOf({ ...VALID_ENV, SHOP_DATABASE: "mysql", DATABASE_URL: "mssql://u:s3cret@db/shop" });
    expect(problems.map((problem) => problem.variable).sort()).toEqual(["DATABASE_URL", "SHOP_DATABASE"]);
    expect(JSON.stringify(problems)).not.toContain("s3cret");
  });

  it("takes a mysql:// DATABASE_URL (the NestJS shop's), which the pg shops refuse when they open it, without its secret", async () => {
    expect(loadShopConfig({ ...VALID_ENV, DATABASE_URL: "mysql://u:s3cret@db/shop" }).databaseUrl).toBe(
      "mysql://u:s3cret@db/shop",
    );
    const opening = openShopDatabase("mysql://u:s3cret@db/shop");
    await expect(opening).rejects.toBeInstanceOf(ShopConfigError);
    await expect(opening).rejects.toThrow(/DATABASE_URL: this shop keeps its orders in PostgreSQL/);
    await expect(opening).rejects.not.toThrow(/s3cret/);
  });
});
