// Where a shipment goes, as the API's customs rules see it (kept apart from the schemas: the CSV reader needs it
// without loading zod).

/**
 * Postcodes of a GB address that is not mainland UK for customs: Northern Ireland (BT…), and Jersey (JE…) and
 * Guernsey (GY…), which are outside the UK's customs territory though their addresses are often written as GB.
 */
const NOT_MAINLAND_POSTCODE = /^\s*(BT|JE|GY)\d/i;

/**
 * A delivery outside mainland UK: abroad, or to Northern Ireland or the Channel Islands (a GB address with a BT,
 * JE or GY postcode). A country that is not a two-letter code says nothing either way (it has an error of its own).
 */
export function outsideMainlandUk(to: unknown): boolean {
  if (!to || typeof to !== 'object') return false;
  const { country, postcode } = to as { country?: unknown; postcode?: unknown };
  if (typeof country !== 'string' || !/^\s*[A-Za-z]{2}\s*$/.test(country)) return false;
  return country.trim().toUpperCase() !== 'GB' || (typeof postcode === 'string' && NOT_MAINLAND_POSTCODE.test(postcode));
}
