// ISO 3166-1 alpha-2 country codes and names, for validating country fields and building Country objects.

const LIST =
  'AD:Andorra|AE:United Arab Emirates|AF:Afghanistan|AG:Antigua and Barbuda|AI:Anguilla|AL:Albania|AM:Armenia|AO:Angola|AQ:Antarctica|' +
  'AR:Argentina|AS:American Samoa|AT:Austria|AU:Australia|AW:Aruba|AX:Åland Islands|AZ:Azerbaijan|BA:Bosnia and Herzegovina|BB:Barbados|' +
  'BD:Bangladesh|BE:Belgium|BF:Burkina Faso|BG:Bulgaria|BH:Bahrain|BI:Burundi|BJ:Benin|BL:Saint Barthélemy|BM:Bermuda|BN:Brunei Darussalam|' +
  'BO:Bolivia|BQ:Bonaire, Sint Eustatius and Saba|BR:Brazil|BS:Bahamas|BT:Bhutan|BV:Bouvet Island|BW:Botswana|BY:Belarus|BZ:Belize|CA:Canada|' +
  'CC:Cocos (Keeling) Islands|CD:Congo, Democratic Republic of the|CF:Central African Republic|CG:Congo|CH:Switzerland|CI:Côte d’Ivoire|' +
  'CK:Cook Islands|CL:Chile|CM:Cameroon|CN:China|CO:Colombia|CR:Costa Rica|CU:Cuba|CV:Cabo Verde|CW:Curaçao|CX:Christmas Island|CY:Cyprus|' +
  'CZ:Czechia|DE:Germany|DJ:Djibouti|DK:Denmark|DM:Dominica|DO:Dominican Republic|DZ:Algeria|EC:Ecuador|EE:Estonia|EG:Egypt|EH:Western Sahara|' +
  'ER:Eritrea|ES:Spain|ET:Ethiopia|FI:Finland|FJ:Fiji|FK:Falkland Islands|FM:Micronesia|FO:Faroe Islands|FR:France|GA:Gabon|GB:United Kingdom|' +
  'GD:Grenada|GE:Georgia|GF:French Guiana|GG:Guernsey|GH:Ghana|GI:Gibraltar|GL:Greenland|GM:Gambia|GN:Guinea|GP:Guadeloupe|GQ:Equatorial Guinea|' +
  'GR:Greece|GS:South Georgia and the South Sandwich Islands|GT:Guatemala|GU:Guam|GW:Guinea-Bissau|GY:Guyana|HK:Hong Kong|' +
  'HM:Heard Island and McDonald Islands|HN:Honduras|HR:Croatia|HT:Haiti|HU:Hungary|ID:Indonesia|IE:Ireland|IL:Israel|IM:Isle of Man|IN:India|' +
  'IO:British Indian Ocean Territory|IQ:Iraq|IR:Iran|IS:Iceland|IT:Italy|JE:Jersey|JM:Jamaica|JO:Jordan|JP:Japan|KE:Kenya|KG:Kyrgyzstan|' +
  'KH:Cambodia|KI:Kiribati|KM:Comoros|KN:Saint Kitts and Nevis|KP:Korea, Democratic People’s Republic of|KR:Korea, Republic of|KW:Kuwait|' +
  'KY:Cayman Islands|KZ:Kazakhstan|LA:Lao People’s Democratic Republic|LB:Lebanon|LC:Saint Lucia|LI:Liechtenstein|LK:Sri Lanka|LR:Liberia|' +
  'LS:Lesotho|LT:Lithuania|LU:Luxembourg|LV:Latvia|LY:Libya|MA:Morocco|MC:Monaco|MD:Moldova|ME:Montenegro|MF:Saint Martin (French part)|' +
  'MG:Madagascar|MH:Marshall Islands|MK:North Macedonia|ML:Mali|MM:Myanmar|MN:Mongolia|MO:Macao|MP:Northern Mariana Islands|MQ:Martinique|' +
  'MR:Mauritania|MS:Montserrat|MT:Malta|MU:Mauritius|MV:Maldives|MW:Malawi|MX:Mexico|MY:Malaysia|MZ:Mozambique|NA:Namibia|NC:New Caledonia|' +
  'NE:Niger|NF:Norfolk Island|NG:Nigeria|NI:Nicaragua|NL:Netherlands|NO:Norway|NP:Nepal|NR:Nauru|NU:Niue|NZ:New Zealand|OM:Oman|PA:Panama|' +
  'PE:Peru|PF:French Polynesia|PG:Papua New Guinea|PH:Philippines|PK:Pakistan|PL:Poland|PM:Saint Pierre and Miquelon|PN:Pitcairn|' +
  'PR:Puerto Rico|PS:Palestine, State of|PT:Portugal|PW:Palau|PY:Paraguay|QA:Qatar|RE:Réunion|RO:Romania|RS:Serbia|RU:Russian Federation|' +
  'RW:Rwanda|SA:Saudi Arabia|SB:Solomon Islands|SC:Seychelles|SD:Sudan|SE:Sweden|SG:Singapore|SH:Saint Helena, Ascension and Tristan da Cunha|' +
  'SI:Slovenia|SJ:Svalbard and Jan Mayen|SK:Slovakia|SL:Sierra Leone|SM:San Marino|SN:Senegal|SO:Somalia|SR:Suriname|SS:South Sudan|' +
  'ST:Sao Tome and Principe|SV:El Salvador|SX:Sint Maarten (Dutch part)|SY:Syrian Arab Republic|SZ:Eswatini|TC:Turks and Caicos Islands|' +
  'TD:Chad|TF:French Southern Territories|TG:Togo|TH:Thailand|TJ:Tajikistan|TK:Tokelau|TL:Timor-Leste|TM:Turkmenistan|TN:Tunisia|TO:Tonga|' +
  'TR:Türkiye|TT:Trinidad and Tobago|TV:Tuvalu|TW:Taiwan|TZ:Tanzania|UA:Ukraine|UG:Uganda|UM:United States Minor Outlying Islands|' +
  'US:United States|UY:Uruguay|UZ:Uzbekistan|VA:Holy See|VC:Saint Vincent and the Grenadines|VE:Venezuela|VG:Virgin Islands (British)|' +
  'VI:Virgin Islands (U.S.)|VN:Viet Nam|VU:Vanuatu|WF:Wallis and Futuna|WS:Samoa|YE:Yemen|YT:Mayotte|ZA:South Africa|ZM:Zambia|ZW:Zimbabwe';

/**
 * A name as looked up: lower case, without accents, one kind of apostrophe ("Côte d’Ivoire" is "cote d'ivoire"),
 * as people type the names the list spells with typographic marks.
 */
function nameKey(name: string): string {
  return name
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[\u2018\u2019\u02bc`´]/g, "'")
    .toLowerCase();
}

const BY_CODE = new Map<string, string>();
const BY_NAME = new Map<string, string>();
for (const entry of LIST.split('|')) {
  const code = entry.slice(0, 2);
  const name = entry.slice(3);
  BY_CODE.set(code, name);
  BY_NAME.set(nameKey(name), code);
}
// Kosovo's user-assigned code, which carriers and the EU use: ship's own check takes it (src/csv/countries.ts),
// so the sandbox does too, rather than refusing mid-run a row the whole-file check passed.
BY_CODE.set('XK', 'Kosovo');
BY_NAME.set('kosovo', 'XK');
// Names people commonly write that differ from the ISO short names.
for (const [alias, code] of [
  ['great britain', 'GB'],
  ['england', 'GB'],
  ['scotland', 'GB'],
  ['wales', 'GB'],
  ['northern ireland', 'GB'],
  ['uk', 'GB'],
  ['united kingdom of great britain and northern ireland', 'GB'],
  ['usa', 'US'],
  ['united states of america', 'US'],
  ['south korea', 'KR'],
  ['north korea', 'KP'],
  ['russia', 'RU'],
  ['vietnam', 'VN'],
  ['czech republic', 'CZ'],
  ['turkey', 'TR'],
  ['holland', 'NL'],
  ['the netherlands', 'NL'],
  // ISO 3166-1's full names where the list has the short one.
  ['bolivia, plurinational state of', 'BO'],
  ['iran, islamic republic of', 'IR'],
  ['micronesia, federated states of', 'FM'],
  ['moldova, republic of', 'MD'],
  ['tanzania, united republic of', 'TZ'],
  ['taiwan, province of china', 'TW'],
  ['venezuela, bolivarian republic of', 'VE'],
  ['turkiye', 'TR'],
  ['falkland islands (malvinas)', 'FK'],
  ['macedonia', 'MK'],
  ['swaziland', 'SZ'],
  ['cape verde', 'CV'],
  ['ivory coast', 'CI'],
  ['laos', 'LA'],
  ['syria', 'SY'],
] as const) {
  BY_NAME.set(alias, code);
}

/** The Country object of API responses. */
export interface Country {
  code: string;
  name: string;
}

/** True for a known two-letter ISO 3166-1 alpha-2 code (upper case). */
export function isCountryCode(code: unknown): code is string {
  return typeof code === 'string' && code.length === 2 && BY_CODE.has(code);
}

/** The ISO code for a code (any case) or a full country name; undefined when unknown. */
export function countryCodeOf(value: string): string | undefined {
  const v = value.trim();
  if (v.length === 2 && BY_CODE.has(v.toUpperCase())) return v.toUpperCase();
  return BY_NAME.get(nameKey(v));
}

/** The Country object for a code; null for null. */
export function countryObject(code: string | null | undefined): Country | null {
  if (!code) return null;
  return { code, name: BY_CODE.get(code) ?? code };
}
