// The seeded account: two users, two locations, two brands, eight delivery services across two carriers (one a
// consolidation service), packaging options with a default type, custom fields and SKUs. Ids are fixed so docs
// and tests can name them.
import { Store, type ServiceRec, type SkuRec } from './store.js';

/** Credentials and clock the seed depends on. */
export interface SeedOptions {
  username: string;
  password: string;
  now: string;
}

/** Fixed ids of seeded records. */
export const SEED_IDS = {
  merchant: '7d9e2f10-4b1a-4c55-9a0e-3f3c2b8d1a01',
  demoUser: '0b6f6a52-8f3e-4d8e-9c8b-1f2d3c4b5a01',
  packerUser: '0b6f6a52-8f3e-4d8e-9c8b-1f2d3c4b5a02',
  warehouse: '5c2d1e0f-6a7b-4c8d-9e0f-1a2b3c4d5e01',
  store: '5c2d1e0f-6a7b-4c8d-9e0f-1a2b3c4d5e02',
  brandMain: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c01',
  brandOutlet: '9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c02',
} as const;

/** The account name returned in the token response. */
export const ACCOUNT_NAME = 'Sandbox Trading Ltd';
/** The application name of the sandbox API key (shown as created_with and the webhook source). */
export const APP_NAME = 'ship-sandbox';

function service(id: number, s: Omit<ServiceRec, 'id' | 'max_parcels' | 'max_items' | 'max_weight' | 'max_value'> & Partial<ServiceRec>): ServiceRec {
  return {
    id: `3e1f5a7c-2b4d-4e6f-8a0b-c1d2e3f4a5${String(id).padStart(2, '0')}`,
    max_parcels: null,
    max_items: null,
    max_weight: null,
    max_value: null,
    ...s,
  };
}

/** Builds a store holding the seeded account. */
export function seedStore(o: SeedOptions): Store {
  const st = new Store();
  const now = o.now;

  st.putLocation({
    id: SEED_IDS.warehouse,
    code: 'WH1',
    name: 'Derby Warehouse',
    type: 'OTHER',
    telephone: '01332 000111',
    email: 'warehouse@example.com',
    address_name: ACCOUNT_NAME,
    address_line_1: 'Unit 4, Friar Gate Studios',
    address_line_2: 'Ford Street',
    address_line_3: null,
    address_town_city: 'Derby',
    address_county: 'Derbyshire',
    address_country: 'GB',
    address_post_zip_code: 'DE1 1EE',
    default: true,
    created_at: now,
    updated_at: now,
  });
  st.putLocation({
    id: SEED_IDS.store,
    code: 'SHOP1',
    name: 'High Street Store',
    type: 'STORE',
    telephone: '0161 000222',
    email: 'shop@example.com',
    address_name: 'Sandbox Trading Shop',
    address_line_1: '12 High Street',
    address_line_2: '',
    address_line_3: null,
    address_town_city: 'Manchester',
    address_county: null,
    address_country: 'GB',
    address_post_zip_code: 'M1 1AA',
    default: false,
    created_at: now,
    updated_at: now,
  });

  st.putUser({
    id: SEED_IDS.demoUser,
    title: 'Ms',
    first_name: 'Dana',
    last_name: 'Demo',
    email: o.username,
    password: o.password,
    profile_image_url: 'https://sandbox.invalid/avatars/dana.png',
    location_id: SEED_IDS.warehouse,
    access_level: 'MERCHANT_ADMIN',
    user_type: 'MERCHANT',
    printer_online: true,
    printer_format: 'ZPL',
  });
  st.putUser({
    id: SEED_IDS.packerUser,
    title: 'Mr',
    first_name: 'Pat',
    last_name: 'Packer',
    email: 'packer@example.com',
    password: 'packer-password',
    profile_image_url: '',
    location_id: SEED_IDS.store,
    access_level: 'MERCHANT_USER',
    user_type: 'MERCHANT',
    printer_online: false,
    printer_format: 'PDF',
  });

  st.putBrand({
    id: SEED_IDS.brandMain,
    name: 'Sandbox Trading',
    key: 'SANDBOX',
    return_address_line_1: 'Unit 4, Friar Gate Studios',
    return_address_line_2: 'Ford Street',
    return_address_line_3: null,
    return_address_town_city: 'Derby',
    return_address_county: 'Derbyshire',
    return_address_postcode: 'DE1 1EE',
    return_address_country: 'GB',
    return_phone: '01332 000111',
    return_email: 'returns@example.com',
    profile_image_url: 'https://sandbox.invalid/brands/sandbox.png',
    customer_despatch_notes: 'Thank you for your order.',
    default: true,
    tracking_portal_base_url: 'https://track.sandbox.invalid/sandbox',
  });
  st.putBrand({
    id: SEED_IDS.brandOutlet,
    name: 'Sandbox Outlet',
    key: 'OUTLET',
    return_address_line_1: '12 High Street',
    return_address_line_2: '',
    return_address_line_3: null,
    return_address_town_city: 'Manchester',
    return_address_county: 'Greater Manchester',
    return_address_postcode: 'M1 1AA',
    return_address_country: 'GB',
    return_phone: '0161 000222',
    return_email: 'outlet@example.com',
    profile_image_url: '',
    customer_despatch_notes: 'Outlet items are final sale.',
    default: false,
    tracking_portal_base_url: 'https://track.sandbox.invalid/outlet',
  });

  const rm = { carrier: 'Royal Mail', carrier_account: 'royal-mail-sandbox', tracking_url: 'https://track.sandbox.invalid/royal-mail/' };
  const dpd = { carrier: 'DPD', carrier_account: 'dpd-sandbox', tracking_url: 'https://track.sandbox.invalid/dpd/' };
  for (const s of [
    service(1, { ...rm, key: 'RM_TRACKED_48', name: 'Tracked 48', description: 'Royal Mail Tracked 48: delivery in 2-3 working days.', price: 320, additional_parcel_price: 320, surcharge: 0, fuel_percent: 0, transit_days: 2, tracking_prefix: 'RM48', consolidation: false,
      conditions: [['Weight', '<=', '2000'], ['Length', '<=', '61'], ['Width', '<=', '46'], ['Depth', '<=', '46'], ['Country', '=', 'GB']] }),
    service(2, { ...rm, key: 'RM_TRACKED_24', name: 'Tracked 24', description: 'Royal Mail Tracked 24: next working day aim.', price: 410, additional_parcel_price: 410, surcharge: 0, fuel_percent: 0, transit_days: 1, tracking_prefix: 'RM24', consolidation: false,
      conditions: [['Weight', '<=', '2000'], ['Length', '<=', '61'], ['Width', '<=', '46'], ['Depth', '<=', '46'], ['Country', '=', 'GB']] }),
    service(3, { ...rm, key: 'RM_SPECIAL_1PM', name: 'Special Delivery Guaranteed by 1pm', description: 'Royal Mail guaranteed next working day by 1pm.', price: 850, additional_parcel_price: 850, surcharge: 0, fuel_percent: 0, transit_days: 1, tracking_prefix: 'RMSD', consolidation: false,
      conditions: [['Weight', '<=', '20000'], ['Length', '<=', '150'], ['Country', '=', 'GB']] }),
    service(4, { ...rm, key: 'RM_INTL_TRACKED', name: 'International Tracked', description: 'Royal Mail International Tracked.', price: 1200, additional_parcel_price: 900, surcharge: 150, fuel_percent: 0, transit_days: 5, tracking_prefix: 'RMIT', consolidation: false,
      conditions: [['Weight', '<=', '2000'], ['Length', '<=', '60'], ['Country', '!=', 'GB']] }),
    service(5, { ...dpd, key: 'DPD_NEXT_DAY', name: 'Next Day', description: 'DPD next working day, 1-hour window.', price: 695, additional_parcel_price: 350, surcharge: 0, fuel_percent: 5, transit_days: 1, tracking_prefix: 'DPDN', consolidation: false,
      conditions: [['Weight', '<=', '30000'], ['Length', '<=', '120'], ['Volume', '<=', '300000'], ['Country', '=', 'GB']] }),
    service(6, { ...dpd, key: 'DPD_SATURDAY', name: 'Saturday', description: 'DPD Saturday delivery.', price: 1150, additional_parcel_price: 500, surcharge: 200, fuel_percent: 5, transit_days: 1, tracking_prefix: 'DPDS', consolidation: false,
      conditions: [['Weight', '<=', '30000'], ['Length', '<=', '120'], ['Country', '=', 'GB']] }),
    service(7, { ...dpd, key: 'DPD_CLASSIC_EU', name: 'Classic Europe', description: 'DPD Classic road service to Europe.', price: 1500, additional_parcel_price: 700, surcharge: 250, fuel_percent: 8, transit_days: 4, tracking_prefix: 'DPDE', consolidation: false,
      conditions: [['Weight', '<=', '31500'], ['Length', '<=', '175'], ['Country', '!=', 'GB']] }),
    service(8, { ...dpd, key: 'DPD_CONSOLIDATED_EU', name: 'Consolidated Europe', description: 'DPD consolidated freight to an EU clearance hub (containers only).', price: 250, additional_parcel_price: 150, surcharge: 0, fuel_percent: 5, transit_days: 6, tracking_prefix: 'DPDC', consolidation: true,
      conditions: [['Weight', '<=', '31500']], max_parcels: 20, max_items: 100, max_weight: 100000, max_value: 500000 }),
  ]) {
    st.putService(s);
  }

  st.packaging = {
    net_weight: false,
    allow_override: true,
    packaging_types: [
      { name: 'Small Box', key: 'SMALL_BOX', default: true, internal_width: 240, internal_height: 190, internal_depth: 90, external_width: 250, external_height: 200, external_depth: 100, max_weight: 2000, default_weight: 500, packaging_weight: 120 },
      { name: 'Medium Box', key: 'MEDIUM_BOX', default: false, internal_width: 390, internal_height: 290, internal_depth: 190, external_width: 400, external_height: 300, external_depth: 200, max_weight: 10000, default_weight: 2000, packaging_weight: 300 },
      { name: 'Large Box', key: 'LARGE_BOX', default: false, internal_width: 590, internal_height: 390, internal_depth: 390, external_width: 600, external_height: 400, external_depth: 400, max_weight: 25000, default_weight: 5000, packaging_weight: 650 },
      { name: 'Mailing Bag', key: 'MAILING_BAG', default: false, internal_width: 320, internal_height: 240, internal_depth: 20, external_width: 330, external_height: 250, external_depth: 25, max_weight: 1000, default_weight: 200, packaging_weight: 15 },
    ],
  };

  const cf = (n: number) => `c7f1e2d3-a4b5-4c6d-8e7f-90a1b2c3d4${String(n).padStart(2, '0')}`;
  st.putCustomField({ id: cf(1), name: 'Gift message', key: 'gift_message', entity: 'SHIPMENT', data_type: 'TEXT', source: 'DIRECT', mapped_to: null, default_value: null, data_validation_rules: { is_required: false, max_length: 100 } });
  st.putCustomField({ id: cf(2), name: 'Priority', key: 'priority', entity: 'SHIPMENT', data_type: 'LIST', source: 'DIRECT', mapped_to: null, default_value: 'standard', data_validation_rules: { options: '"standard","express","overnight"' } });
  st.putCustomField({ id: cf(3), name: 'Channel', key: 'channel', entity: 'SHIPMENT', data_type: 'TEXT', source: 'FIXED', mapped_to: null, default_value: 'sandbox', data_validation_rules: null });
  st.putCustomField({ id: cf(4), name: 'Fragile', key: 'fragile', entity: 'PARCEL', data_type: 'BOOLEAN', source: 'DIRECT', mapped_to: null, default_value: 'false', data_validation_rules: null });
  st.putCustomField({ id: cf(5), name: 'Declared value', key: 'declared_value', entity: 'PARCEL', data_type: 'NUMERIC', source: 'DIRECT', mapped_to: null, default_value: null, data_validation_rules: { numeric_type: 'DECIMAL', min_value: 0, max_value: 10000 } });
  st.putCustomField({ id: cf(6), name: 'Hazard class', key: 'hazard_class', entity: 'SKU', data_type: 'TEXT', source: 'DIRECT', mapped_to: null, default_value: null, data_validation_rules: { max_length: 20 } });
  st.putCustomField({ id: cf(7), name: 'Sales channel', key: 'sales_channel', entity: 'ORDER', data_type: 'TEXT', source: 'DIRECT', mapped_to: null, default_value: null, data_validation_rules: null });

  const sku = (n: number, s: Partial<SkuRec> & { sku: string; product_name: string }): SkuRec => ({
    id: `e4d3c2b1-a0f9-4e8d-b7c6-a5b4c3d2e1${String(n).padStart(2, '0')}`,
    image_url: null,
    outer_barcode: null,
    inner_barcode: null,
    product_code: null,
    description_short: s.product_name,
    description_full: s.product_name,
    department: null,
    category: null,
    location_id: SEED_IDS.warehouse,
    warehouse_location: null,
    tariff_code: null,
    tariff_description: null,
    country_of_origin: 'GB',
    manufacturer_name: null,
    part_number: null,
    value_ex_vat: null,
    vat_rate: 20,
    value_inc_vat: null,
    gross_weight: null,
    net_weight: null,
    width: null,
    length: null,
    depth: null,
    active: true,
    is_stocked_item: true,
    in_stock: true,
    custom_fields: {},
    item_handling: 'PACKABLE',
    created_at: now,
    updated_at: now,
    ...s,
  });
  for (const k of [
    sku(1, { sku: 'MUG-001', product_name: 'Ceramic Mug', description_short: 'Ceramic mug', description_full: 'Stoneware ceramic mug, 350ml', department: 'Kitchen', category: 'Drinkware', tariff_code: '6912002310', tariff_description: 'Ceramic tableware', country_of_origin: 'GB', value_ex_vat: 8.33, value_inc_vat: 10, gross_weight: 420, net_weight: 350, width: 90, length: 120, depth: 100, warehouse_location: 'A1-01' }),
    sku(2, { sku: 'TEE-BLK-M', product_name: 'T-shirt Black M', description_short: 'Cotton T-shirt', description_full: 'Organic cotton T-shirt, black, size M', department: 'Apparel', category: 'Tops', tariff_code: '6109100010', tariff_description: 'T-shirts of cotton, knitted', country_of_origin: 'PT', value_ex_vat: 12.5, value_inc_vat: 15, gross_weight: 200, net_weight: 180, width: 250, length: 300, depth: 20, warehouse_location: 'B2-04' }),
    sku(3, { sku: 'BOOK-042', product_name: 'Field Guide', description_short: 'Printed book', description_full: 'Paperback field guide to British birds', department: 'Books', category: 'Nature', tariff_code: '4901990000', tariff_description: 'Printed books', country_of_origin: 'GB', value_ex_vat: 14.99, vat_rate: 0, value_inc_vat: 14.99, gross_weight: 650, net_weight: 620, width: 150, length: 230, depth: 30, warehouse_location: 'C1-10' }),
    sku(4, { sku: 'CANDLE-LG', product_name: 'Large Candle', description_short: 'Soy wax candle', description_full: 'Large soy wax candle in glass jar', department: 'Home', category: 'Fragrance', tariff_code: '3406000000', tariff_description: 'Candles', country_of_origin: 'FR', value_ex_vat: 20.83, value_inc_vat: 25, gross_weight: 900, net_weight: 800, width: 100, length: 100, depth: 120, item_handling: 'NON_PACKABLE', warehouse_location: 'D3-02' }),
    sku(5, { sku: 'SOCKS-3PK', product_name: 'Socks 3-pack', description_short: 'Wool socks', description_full: 'Merino wool socks, pack of three', department: 'Apparel', category: 'Accessories', tariff_code: '6115950000', tariff_description: 'Socks of cotton', country_of_origin: 'IT', value_ex_vat: 10, value_inc_vat: 12, gross_weight: 150, net_weight: 140, width: 100, length: 200, depth: 30, in_stock: false, warehouse_location: 'B2-09' }),
  ]) {
    st.addSku(k);
  }
  return st;
}
