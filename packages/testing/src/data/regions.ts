// A compact, real slice of Indonesia's administrative hierarchy (province → city → district/kecamatan →
// subdistrict/kelurahan) with postal codes, for the fake provider's lookups and cost calculation. Province and city
// ids follow the numbering of the legacy (Pro/Starter) interface; district ids are `cityId * 100 + n` and
// subdistrict ids `districtId * 100 + n`, so every id is stable and its parent is readable from it.

/** The islands the courier coverage rules know about. */
export type Island = "java" | "bali" | "sumatra";

/** A province (propinsi). */
export interface Province {
  id: number;
  name: string;
}

/** A subdistrict (kelurahan/desa): the finest level, the one domestic destination ids point at. */
export interface Subdistrict {
  id: number;
  districtId: number;
  name: string;
  zipCode: string;
}

/** A district (kecamatan). The Pro interface calls this level "subdistrict". */
export interface District {
  id: number;
  cityId: number;
  name: string;
  zipCode: string;
  subdistricts: readonly Subdistrict[];
}

/** A city (kota) or regency (kabupaten), with the coordinates used to price routes. */
export interface City {
  id: number;
  provinceId: number;
  type: "Kota" | "Kabupaten";
  name: string;
  postalCode: string;
  lat: number;
  lon: number;
  island: Island;
  districts: readonly District[];
}

/** Every province, with the ids of the legacy interface. */
export const PROVINCES: readonly Province[] = [
  { id: 1, name: "Bali" },
  { id: 2, name: "Bangka Belitung" },
  { id: 3, name: "Banten" },
  { id: 4, name: "Bengkulu" },
  { id: 5, name: "DI Yogyakarta" },
  { id: 6, name: "DKI Jakarta" },
  { id: 7, name: "Gorontalo" },
  { id: 8, name: "Jambi" },
  { id: 9, name: "Jawa Barat" },
  { id: 10, name: "Jawa Tengah" },
  { id: 11, name: "Jawa Timur" },
  { id: 12, name: "Kalimantan Barat" },
  { id: 13, name: "Kalimantan Selatan" },
  { id: 14, name: "Kalimantan Tengah" },
  { id: 15, name: "Kalimantan Timur" },
  { id: 16, name: "Kalimantan Utara" },
  { id: 17, name: "Kepulauan Riau" },
  { id: 18, name: "Lampung" },
  { id: 19, name: "Maluku" },
  { id: 20, name: "Maluku Utara" },
  { id: 21, name: "Nanggroe Aceh Darussalam (NAD)" },
  { id: 22, name: "Nusa Tenggara Barat (NTB)" },
  { id: 23, name: "Nusa Tenggara Timur (NTT)" },
  { id: 24, name: "Papua" },
  { id: 25, name: "Papua Barat" },
  { id: 26, name: "Riau" },
  { id: 27, name: "Sulawesi Barat" },
  { id: 28, name: "Sulawesi Selatan" },
  { id: 29, name: "Sulawesi Tengah" },
  { id: 30, name: "Sulawesi Tenggara" },
  { id: 31, name: "Sulawesi Utara" },
  { id: 32, name: "Sumatera Barat" },
  { id: 33, name: "Sumatera Selatan" },
  { id: 34, name: "Sumatera Utara" },
];

// [district name, district postal code, [subdistrict name, postal code][]]
type DistrictRow = [string, string, [string, string][]];

function city(
  id: number,
  provinceId: number,
  type: City["type"],
  name: string,
  postalCode: string,
  [lat, lon]: [number, number],
  island: Island,
  districtRows: DistrictRow[],
): City {
  const districts = districtRows.map(([districtName, zipCode, rows], i): District => {
    const districtId = id * 100 + i + 1;
    const subdistricts = rows.map(([subName, subZip], j) => ({
      id: districtId * 100 + j + 1,
      districtId,
      name: subName,
      zipCode: subZip,
    }));
    return { id: districtId, cityId: id, name: districtName, zipCode, subdistricts };
  });
  return { id, provinceId, type, name, postalCode, lat, lon, island, districts };
}

/** Major cities of Java, Bali and Sumatra with a few real districts and subdistricts each. */
export const CITIES: readonly City[] = [
  city(152, 6, "Kota", "Jakarta Pusat", "10540", [-6.1862, 106.8341], "java", [
    [
      "Gambir",
      "10110",
      [
        ["Gambir", "10110"],
        ["Cideng", "10150"],
        ["Petojo Utara", "10130"],
      ],
    ],
    [
      "Menteng",
      "10310",
      [
        ["Menteng", "10310"],
        ["Cikini", "10330"],
        ["Gondangdia", "10350"],
      ],
    ],
  ]),
  city(153, 6, "Kota", "Jakarta Selatan", "12230", [-6.2615, 106.8106], "java", [
    [
      "Kebayoran Baru",
      "12110",
      [
        ["Senayan", "12190"],
        ["Melawai", "12160"],
        ["Gunung", "12120"],
      ],
    ],
    [
      "Setiabudi",
      "12910",
      [
        ["Karet Kuningan", "12940"],
        ["Kuningan Timur", "12950"],
      ],
    ],
    [
      "Tebet",
      "12810",
      [
        ["Tebet Barat", "12810"],
        ["Manggarai", "12850"],
      ],
    ],
  ]),
  city(151, 6, "Kota", "Jakarta Barat", "11220", [-6.1674, 106.7637], "java", [
    [
      "Grogol Petamburan",
      "11450",
      [
        ["Tanjung Duren Selatan", "11470"],
        ["Grogol", "11450"],
      ],
    ],
    [
      "Kebon Jeruk",
      "11530",
      [
        ["Kebon Jeruk", "11530"],
        ["Kedoya Utara", "11520"],
      ],
    ],
  ]),
  city(154, 6, "Kota", "Jakarta Timur", "13330", [-6.225, 106.9004], "java", [
    [
      "Jatinegara",
      "13310",
      [
        ["Bali Mester", "13310"],
        ["Cipinang Besar Utara", "13410"],
      ],
    ],
    [
      "Cakung",
      "13910",
      [
        ["Pulo Gebang", "13950"],
        ["Cakung Barat", "13910"],
      ],
    ],
  ]),
  city(155, 6, "Kota", "Jakarta Utara", "14140", [-6.1384, 106.866], "java", [
    [
      "Kelapa Gading",
      "14240",
      [
        ["Kelapa Gading Barat", "14240"],
        ["Kelapa Gading Timur", "14240"],
      ],
    ],
    [
      "Penjaringan",
      "14440",
      [
        ["Pluit", "14450"],
        ["Penjaringan", "14440"],
      ],
    ],
  ]),
  city(23, 9, "Kota", "Bandung", "40111", [-6.9175, 107.6191], "java", [
    [
      "Coblong",
      "40132",
      [
        ["Dago", "40135"],
        ["Lebak Siliwangi", "40132"],
      ],
    ],
    [
      "Sumur Bandung",
      "40111",
      [
        ["Braga", "40111"],
        ["Merdeka", "40113"],
      ],
    ],
  ]),
  city(79, 9, "Kota", "Bogor", "16119", [-6.5971, 106.806], "java", [
    [
      "Bogor Tengah",
      "16121",
      [
        ["Paledang", "16122"],
        ["Sempur", "16129"],
      ],
    ],
    [
      "Bogor Barat",
      "16111",
      [
        ["Menteng", "16111"],
        ["Cilendek Barat", "16112"],
      ],
    ],
  ]),
  city(55, 9, "Kota", "Bekasi", "17121", [-6.2383, 106.9756], "java", [
    [
      "Bekasi Selatan",
      "17141",
      [
        ["Kayuringin Jaya", "17144"],
        ["Marga Jaya", "17141"],
      ],
    ],
    [
      "Bekasi Barat",
      "17134",
      [
        ["Kranji", "17135"],
        ["Bintara", "17134"],
      ],
    ],
  ]),
  city(456, 3, "Kota", "Tangerang", "15111", [-6.1781, 106.63], "java", [
    [
      "Tangerang",
      "15111",
      [
        ["Sukaasih", "15111"],
        ["Babakan", "15118"],
      ],
    ],
    [
      "Karawaci",
      "15115",
      [
        ["Karawaci", "15115"],
        ["Cimone", "15114"],
      ],
    ],
  ]),
  city(457, 3, "Kota", "Tangerang Selatan", "15332", [-6.2886, 106.7179], "java", [
    [
      "Serpong",
      "15310",
      [
        ["Cilenggang", "15310"],
        ["Lengkong Gudang", "15321"],
      ],
    ],
    [
      "Pondok Aren",
      "15224",
      [
        ["Pondok Aren", "15224"],
        ["Jurang Mangu Barat", "15222"],
      ],
    ],
  ]),
  city(399, 10, "Kota", "Semarang", "50135", [-6.9932, 110.4203], "java", [
    [
      "Semarang Tengah",
      "50132",
      [
        ["Sekayu", "50132"],
        ["Pekunden", "50134"],
      ],
    ],
    [
      "Tembalang",
      "50275",
      [
        ["Tembalang", "50275"],
        ["Bulusan", "50277"],
      ],
    ],
  ]),
  city(501, 5, "Kota", "Yogyakarta", "55111", [-7.7956, 110.3695], "java", [
    [
      "Gondokusuman",
      "55223",
      [
        ["Terban", "55223"],
        ["Baciro", "55225"],
      ],
    ],
    [
      "Gedong Tengen",
      "55271",
      [
        ["Sosromenduran", "55271"],
        ["Pringgokusuman", "55272"],
      ],
    ],
  ]),
  city(444, 11, "Kota", "Surabaya", "60119", [-7.2575, 112.7521], "java", [
    [
      "Genteng",
      "60275",
      [
        ["Genteng", "60275"],
        ["Embong Kaliasin", "60271"],
      ],
    ],
    [
      "Gubeng",
      "60281",
      [
        ["Airlangga", "60286"],
        ["Gubeng", "60281"],
      ],
    ],
  ]),
  city(256, 11, "Kota", "Malang", "65112", [-7.9666, 112.6326], "java", [
    [
      "Klojen",
      "65111",
      [
        ["Kauman", "65119"],
        ["Oro-oro Dowo", "65119"],
      ],
    ],
    [
      "Lowokwaru",
      "65141",
      [
        ["Ketawanggede", "65145"],
        ["Dinoyo", "65144"],
      ],
    ],
  ]),
  city(114, 1, "Kota", "Denpasar", "80227", [-8.6705, 115.2126], "bali", [
    [
      "Denpasar Selatan",
      "80221",
      [
        ["Sanur", "80228"],
        ["Sesetan", "80223"],
      ],
    ],
    [
      "Denpasar Barat",
      "80111",
      [
        ["Dauh Puri", "80114"],
        ["Pemecutan", "80119"],
      ],
    ],
  ]),
  city(17, 1, "Kabupaten", "Badung", "80351", [-8.5819, 115.1771], "bali", [
    [
      "Kuta",
      "80361",
      [
        ["Kuta", "80361"],
        ["Legian", "80361"],
        ["Seminyak", "80361"],
      ],
    ],
    [
      "Kuta Selatan",
      "80361",
      [
        ["Jimbaran", "80364"],
        ["Benoa", "80363"],
      ],
    ],
  ]),
  city(278, 34, "Kota", "Medan", "20228", [3.5952, 98.6722], "sumatra", [
    [
      "Medan Baru",
      "20154",
      [
        ["Darat", "20153"],
        ["Padang Bulan", "20155"],
      ],
    ],
    [
      "Medan Petisah",
      "20112",
      [
        ["Petisah Tengah", "20112"],
        ["Sekip", "20113"],
      ],
    ],
  ]),
  city(327, 33, "Kota", "Palembang", "30111", [-2.9761, 104.7754], "sumatra", [
    [
      "Ilir Barat I",
      "30137",
      [
        ["Bukit Lama", "30139"],
        ["Demang Lebar Daun", "30137"],
      ],
    ],
    [
      "Bukit Kecil",
      "30113",
      [
        ["19 Ilir", "30113"],
        ["Talang Semut", "30135"],
      ],
    ],
  ]),
  city(318, 32, "Kota", "Padang", "25112", [-0.9471, 100.4172], "sumatra", [
    [
      "Padang Barat",
      "25115",
      [
        ["Belakang Tangsi", "25118"],
        ["Olo", "25117"],
      ],
    ],
    [
      "Padang Utara",
      "25132",
      [
        ["Air Tawar Barat", "25132"],
        ["Ulak Karang Selatan", "25133"],
      ],
    ],
  ]),
  city(350, 26, "Kota", "Pekanbaru", "28112", [0.5071, 101.4478], "sumatra", [
    [
      "Sukajadi",
      "28121",
      [
        ["Kampung Melayu", "28122"],
        ["Jadirejo", "28121"],
      ],
    ],
    [
      "Tampan",
      "28293",
      [
        ["Simpang Baru", "28293"],
        ["Sidomulyo Barat", "28294"],
      ],
    ],
  ]),
  city(21, 18, "Kota", "Bandar Lampung", "35139", [-5.3971, 105.2668], "sumatra", [
    [
      "Tanjung Karang Pusat",
      "35116",
      [
        ["Durian Payung", "35116"],
        ["Palapa", "35119"],
      ],
    ],
    [
      "Rajabasa",
      "35144",
      [
        ["Rajabasa", "35144"],
        ["Gedong Meneng", "35145"],
      ],
    ],
  ]),
];
