// A handful of international destinations. Country ids are this fake's own (stable, string-typed as on the wire).

/** An international destination country, with the distance class used to price it. */
export interface Country {
  countryId: string;
  name: string;
  /** Rough great-circle distance from Jakarta, in km: the only input of the fake's international prices. */
  distanceKm: number;
}

/** Countries the fake's international lookups and costs know. */
export const COUNTRIES: readonly Country[] = [
  { countryId: "108", name: "Malaysia", distanceKm: 1200 },
  { countryId: "199", name: "Singapore", distanceKm: 900 },
  { countryId: "85", name: "Hong Kong", distanceKm: 3300 },
  { countryId: "98", name: "Japan", distanceKm: 5800 },
  { countryId: "12", name: "Australia", distanceKm: 5500 },
  { countryId: "191", name: "Saudi Arabia", distanceKm: 7900 },
  { countryId: "150", name: "Netherlands", distanceKm: 11300 },
  { countryId: "229", name: "United States", distanceKm: 14600 },
];
