// The currency codes the API's "ISO 4217 currency code" fields take: the ISO 4217 codes CLDR lists as current
// (Intl.supportedValuesOf('currency') on Node 20 and 24 gives the same 162, a few recently withdrawn among them:
// HRK, CUC, SLL, ZWL, ANG), plus VED (Venezuela's digital bolívar, in ISO 4217 since 2021, not in that list). A
// fixed copy, so that what is accepted does not depend on the ICU data a Node build carries. Generous on
// purpose: refusing a code the service takes would stop a whole file.
const CODES = new Set('AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BRL BSD BTN BWP BYN BZD CAD CDF CHF CLP CNY COP CRC CUC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GNF GTQ GYD HKD HNL HRK HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MYR MZN NAD NGN NIO NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SLL SOS SRD SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD UYU UZS VES VND VUV WST XAF XCD XCG XDR XOF XPF XSU YER ZAR ZMW ZWG ZWL VED'.split(' '));

/** Whether `code` (upper case) is an ISO 4217 currency code (see above). */
export function isCurrencyCode(code: string): boolean {
  return CODES.has(code);
}
