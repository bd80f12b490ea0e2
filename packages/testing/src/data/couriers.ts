import { PRO_WAYBILL_COURIER_CODES } from "@kirimbayar/core";
import type { Island } from "./regions.js";

/** One service of a courier, with the numbers its price and ETD are derived from. */
export interface CourierService {
  service: string;
  description: string;
  /** Rupiah per kg at zero distance. */
  basePerKg: number;
  /** Rupiah per kg per km. */
  perKgPerKm: number;
  /** Km the parcel travels per day; next-day services use a large value. */
  kmPerDay: number;
  /** Handling days added to every route. */
  handlingDays: number;
}

/** A courier of the fake, with the islands it serves. */
export interface Courier {
  code: string;
  name: string;
  islands: readonly Island[];
  services: readonly CourierService[];
}

const ALL: readonly Island[] = ["java", "bali", "sumatra"];

function svc(
  service: string,
  description: string,
  basePerKg: number,
  perKgPerKm: number,
  kmPerDay: number,
  handlingDays: number,
): CourierService {
  return { service, description, basePerKg, perKgPerKm, kmPerDay, handlingDays };
}

/** Every courier code of the spec, with plausible services. Coverage gaps are deliberate: they produce "not found". */
export const DOMESTIC_COURIERS: readonly Courier[] = [
  {
    code: "jne",
    name: "Jalur Nugraha Ekakurir (JNE)",
    islands: ALL,
    services: [
      svc("REG", "Layanan Reguler", 9000, 6, 400, 1),
      svc("YES", "Yakin Esok Sampai", 18000, 10, 5000, 0),
      svc("OKE", "Ongkos Kirim Ekonomis", 7000, 4.5, 250, 2),
    ],
  },
  {
    code: "sicepat",
    name: "SiCepat Express",
    islands: ALL,
    services: [svc("REG", "Reguler", 8500, 5.5, 400, 1), svc("BEST", "Besok Sampai Tujuan", 17000, 9, 5000, 0)],
  },
  { code: "ide", name: "ID Express", islands: ALL, services: [svc("STD", "Standard Service", 8000, 5.2, 350, 1)] },
  { code: "sap", name: "SAP Express", islands: ALL, services: [svc("REG", "Regular", 8000, 5, 350, 1)] },
  { code: "jnt", name: "J&T Express", islands: ALL, services: [svc("EZ", "Reguler", 9000, 5.8, 400, 1)] },
  {
    code: "ninja",
    name: "Ninja Xpress",
    islands: ALL,
    services: [svc("STANDARD", "Standard Service", 8500, 5.4, 380, 1)],
  },
  {
    code: "tiki",
    name: "Citra Van Titipan Kilat (TIKI)",
    islands: ALL,
    services: [
      svc("REG", "Regular Service", 9000, 6, 380, 1),
      svc("ONS", "Over Night Service", 17000, 10, 5000, 0),
      svc("ECO", "Economy Service", 7000, 4.2, 250, 2),
    ],
  },
  {
    code: "lion",
    name: "Lion Parcel",
    islands: ALL,
    services: [
      svc("REGPACK", "Regular Service", 7500, 5, 350, 1),
      svc("ONEPACK", "One Day Service", 16000, 9.5, 5000, 0),
    ],
  },
  {
    code: "anteraja",
    name: "AnterAja",
    islands: ALL,
    services: [svc("REG", "Regular", 8500, 5.5, 400, 1), svc("ND", "Next Day", 16500, 9.5, 5000, 0)],
  },
  {
    code: "pos",
    name: "POS Indonesia (POS)",
    islands: ALL,
    services: [
      svc("Pos Reguler", "Pos Reguler", 8000, 5.5, 350, 1),
      svc("Pos Nextday", "Pos Nextday", 16000, 9, 5000, 0),
    ],
  },
  {
    code: "ncs",
    name: "Nusantara Card Semesta (NCS)",
    islands: ["java", "bali"],
    services: [svc("NRS", "Regular Service", 8000, 5, 350, 1)],
  },
  {
    code: "rex",
    name: "Royal Express Indonesia (REX)",
    islands: ALL,
    services: [svc("REX-1", "Express 1 Day", 18000, 10, 5000, 0)],
  },
  {
    code: "rpx",
    name: "RPX Holding (RPX)",
    islands: ALL,
    services: [svc("RGP", "Regular Package", 8500, 5.6, 380, 1)],
  },
  {
    code: "sentral",
    name: "Sentral Cargo",
    islands: ["java", "bali"],
    services: [svc("REG", "Reguler", 7000, 4, 300, 2)],
  },
  {
    code: "star",
    name: "Star Cargo",
    islands: ["java", "sumatra"],
    services: [svc("EXPRESS", "Express", 9500, 6, 450, 1)],
  },
  {
    code: "wahana",
    name: "Wahana Prestasi Logistik",
    islands: ALL,
    services: [svc("NORMAL", "Normal Service", 6500, 4, 250, 2)],
  },
  { code: "dse", name: "21 Express", islands: ["java"], services: [svc("ECO", "Economy", 7000, 4.5, 300, 2)] },
];

/** Couriers that price international parcels (the Pro and current international cost operations). */
export const INTERNATIONAL_COURIERS: readonly Courier[] = [
  {
    code: "pos",
    name: "POS Indonesia (POS)",
    islands: ALL,
    services: [
      svc("Paket Pos Ekonomi", "Paket Pos Ekonomi", 95000, 18, 700, 4),
      svc("EMS", "Express Mail Service", 180000, 30, 2500, 1),
    ],
  },
  {
    code: "jne",
    name: "Jalur Nugraha Ekakurir (JNE)",
    islands: ALL,
    services: [svc("INTL", "International", 210000, 32, 2000, 2)],
  },
  {
    code: "tiki",
    name: "Citra Van Titipan Kilat (TIKI)",
    islands: ALL,
    services: [svc("IEX", "International Express", 230000, 35, 3000, 1)],
  },
];

/** A courier of `list` by code, case-insensitive. */
export function findCourier(code: string, list: readonly Courier[] = DOMESTIC_COURIERS): Courier | undefined {
  return list.find((courier) => courier.code === code.toLowerCase());
}

/** Couriers the Pro waybill operation accepts (the spec's list, as core validates it; JNE and TIKI are not on it). */
export const PRO_WAYBILL_COURIERS: readonly string[] = PRO_WAYBILL_COURIER_CODES;
