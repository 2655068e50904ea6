// Where a shipment goes, as the API's customs rules see it (kept apart from the schemas: the CSV reader needs it
// without loading zod).

/** Northern Ireland's postcodes (BT…): in the UK, but not mainland UK. */
const NORTHERN_IRELAND_POSTCODE = /^\s*BT\d/i;

/**
 * A delivery outside mainland UK: abroad, or to Northern Ireland (a GB address with a BT postcode). A country that
 * is not a two-letter code says nothing either way (it has an error of its own).
 */
export function outsideMainlandUk(to: unknown): boolean {
  if (!to || typeof to !== 'object') return false;
  const { country, postcode } = to as { country?: unknown; postcode?: unknown };
  if (typeof country !== 'string' || !/^\s*[A-Za-z]{2}\s*$/.test(country)) return false;
  return country.trim().toUpperCase() !== 'GB' || (typeof postcode === 'string' && NORTHERN_IRELAND_POSTCODE.test(postcode));
}
