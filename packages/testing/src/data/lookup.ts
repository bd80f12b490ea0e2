import { COUNTRIES, type Country } from "./international.js";
import { CITIES, type City, type District, PROVINCES, type Province, type Subdistrict } from "./regions.js";

/** A subdistrict with every level above it resolved. */
export interface ResolvedSubdistrict {
  subdistrict: Subdistrict;
  district: District;
  city: City;
  province: Province;
}

const provinceById = new Map(PROVINCES.map((province) => [province.id, province]));
const cityById = new Map(CITIES.map((city) => [city.id, city]));
const districtById = new Map(
  CITIES.flatMap((city) => city.districts.map((district) => [district.id, district] as const)),
);
const subdistrictById = new Map(
  CITIES.flatMap((city) => city.districts.flatMap((d) => d.subdistricts.map((s) => [s.id, s] as const))),
);

/** Parses a numeric id from a path, query or form value; anything else is `undefined`. */
export function parseId(value: unknown): number | undefined {
  if (typeof value === "number" && Number.isInteger(value)) return value;
  if (typeof value === "string" && /^\d{1,12}$/.test(value.trim())) return Number(value.trim());
  return undefined;
}

/** Province by id. */
export function getProvince(id: number): Province | undefined {
  return provinceById.get(id);
}

/** City by id. */
export function getCity(id: number): City | undefined {
  return cityById.get(id);
}

/** District (kecamatan) by id. */
export function getDistrict(id: number): District | undefined {
  return districtById.get(id);
}

/** Subdistrict (kelurahan) by id, with its parents. */
export function resolveSubdistrict(id: number): ResolvedSubdistrict | undefined {
  const subdistrict = subdistrictById.get(id);
  if (!subdistrict) return undefined;
  const district = districtById.get(subdistrict.districtId);
  const city = district && cityById.get(district.cityId);
  const province = city && provinceById.get(city.provinceId);
  return district && city && province ? { subdistrict, district, city, province } : undefined;
}

/** Every subdistrict of the data set, resolved, in data-set order. */
export function allSubdistricts(): ResolvedSubdistrict[] {
  return [...subdistrictById.keys()].flatMap((id) => resolveSubdistrict(id) ?? []);
}

/** Cities of a province (all cities when `provinceId` is undefined). */
export function citiesOf(provinceId?: number): City[] {
  return CITIES.filter((city) => provinceId === undefined || city.provinceId === provinceId);
}

/** The city a district belongs to. */
export function cityOfDistrict(district: District): City {
  const city = cityById.get(district.cityId);
  if (!city) throw new Error(`data set inconsistency: district ${district.id} has no city`);
  return city;
}

/** The province a city belongs to. */
export function provinceOfCity(city: City): Province {
  const province = provinceById.get(city.provinceId);
  if (!province) throw new Error(`data set inconsistency: city ${city.id} has no province`);
  return province;
}

/** Country by its id. */
export function getCountry(countryId: string): Country | undefined {
  return COUNTRIES.find((country) => country.countryId === countryId.trim());
}

/** Countries whose name contains `search` (case-insensitive). */
export function searchCountries(search: string): Country[] {
  const needle = search.trim().toLowerCase();
  return COUNTRIES.filter((country) => country.name.toLowerCase().includes(needle));
}

/** The label the current interface gives a domestic destination: `SUBDISTRICT, DISTRICT, CITY, PROVINCE, ZIP`. */
export function destinationLabel(place: ResolvedSubdistrict): string {
  return [place.subdistrict.name, place.district.name, place.city.name, place.province.name, place.subdistrict.zipCode]
    .join(", ")
    .toUpperCase();
}

/** Domestic destinations whose label or postal code contains `search` (case-insensitive, partial). */
export function searchDomestic(search: string): ResolvedSubdistrict[] {
  const needle = search.trim().toLowerCase();
  return allSubdistricts().filter((place) => destinationLabel(place).toLowerCase().includes(needle));
}
