// ISO 3166-1 country codes with English names and common aliases, so CSV files may say "United Kingdom" or "USA".
// Source of the table: the Debian iso-codes package (ISO 3166-1), packed as AA + AAA + names ("|" between names).
const TABLE = `
ADANDAndorra;AEAREUnited Arab Emirates;AFAFGAfghanistan;AGATGAntigua and Barbuda;AIAIAAnguilla;ALALBAlbania;
AMARMArmenia;AOAGOAngola;AQATAAntarctica;ARARGArgentina;ASASMAmerican Samoa;ATAUTAustria;AUAUSAustralia;
AWABWAruba;AXALAÅland Islands;AZAZEAzerbaijan;BABIHBosnia and Herzegovina;BBBRBBarbados;BDBGDBangladesh;
BEBELBelgium;BFBFABurkina Faso;BGBGRBulgaria;BHBHRBahrain;BIBDIBurundi;BJBENBenin;BLBLMSaint Barthélemy;
BMBMUBermuda;BNBRNBrunei Darussalam;BOBOLBolivia|Bolivia, Plurinational State of;
BQBESBonaire, Sint Eustatius and Saba;BRBRABrazil;BSBHSBahamas;BTBTNBhutan;BVBVTBouvet Island;BWBWABotswana;
BYBLRBelarus;BZBLZBelize;CACANCanada;CCCCKCocos (Keeling) Islands;CDCODCongo, The Democratic Republic of the;
CFCAFCentral African Republic;CGCOGCongo;CHCHESwitzerland;CICIVCôte d'Ivoire;CKCOKCook Islands;CLCHLChile;
CMCMRCameroon;CNCHNChina;COCOLColombia;CRCRICosta Rica;CUCUBCuba;CVCPVCabo Verde;CWCUWCuraçao;
CXCXRChristmas Island;CYCYPCyprus;CZCZECzechia;DEDEUGermany;DJDJIDjibouti;DKDNKDenmark;DMDMADominica;
DODOMDominican Republic;DZDZAAlgeria;ECECUEcuador;EEESTEstonia;EGEGYEgypt;EHESHWestern Sahara;ERERIEritrea;
ESESPSpain;ETETHEthiopia;FIFINFinland;FJFJIFiji;FKFLKFalkland Islands (Malvinas);
FMFSMMicronesia, Federated States of;FOFROFaroe Islands;FRFRAFrance;GAGABGabon;GBGBRUnited Kingdom;
GDGRDGrenada;GEGEOGeorgia;GFGUFFrench Guiana;GGGGYGuernsey;GHGHAGhana;GIGIBGibraltar;GLGRLGreenland;
GMGMBGambia;GNGINGuinea;GPGLPGuadeloupe;GQGNQEquatorial Guinea;GRGRCGreece;
GSSGSSouth Georgia and the South Sandwich Islands;GTGTMGuatemala;GUGUMGuam;GWGNBGuinea-Bissau;GYGUYGuyana;
HKHKGHong Kong;HMHMDHeard Island and McDonald Islands;HNHNDHonduras;HRHRVCroatia;HTHTIHaiti;HUHUNHungary;
IDIDNIndonesia;IEIRLIreland;ILISRIsrael;IMIMNIsle of Man;ININDIndia;IOIOTBritish Indian Ocean Territory;
IQIRQIraq;IRIRNIran|Iran, Islamic Republic of;ISISLIceland;ITITAItaly;JEJEYJersey;JMJAMJamaica;JOJORJordan;
JPJPNJapan;KEKENKenya;KGKGZKyrgyzstan;KHKHMCambodia;KIKIRKiribati;KMCOMComoros;KNKNASaint Kitts and Nevis;
KPPRKNorth Korea|Korea, Democratic People's Republic of;KRKORSouth Korea|Korea, Republic of;KWKWTKuwait;
KYCYMCayman Islands;KZKAZKazakhstan;LALAOLaos|Lao People's Democratic Republic;LBLBNLebanon;LCLCASaint Lucia;
LILIELiechtenstein;LKLKASri Lanka;LRLBRLiberia;LSLSOLesotho;LTLTULithuania;LULUXLuxembourg;LVLVALatvia;
LYLBYLibya;MAMARMorocco;MCMCOMonaco;MDMDAMoldova|Moldova, Republic of;MEMNEMontenegro;
MFMAFSaint Martin (French part);MGMDGMadagascar;MHMHLMarshall Islands;MKMKDNorth Macedonia;MLMLIMali;
MMMMRMyanmar;MNMNGMongolia;MOMACMacao;MPMNPNorthern Mariana Islands;MQMTQMartinique;MRMRTMauritania;
MSMSRMontserrat;MTMLTMalta;MUMUSMauritius;MVMDVMaldives;MWMWIMalawi;MXMEXMexico;MYMYSMalaysia;MZMOZMozambique;
NANAMNamibia;NCNCLNew Caledonia;NENERNiger;NFNFKNorfolk Island;NGNGANigeria;NINICNicaragua;NLNLDNetherlands;
NONORNorway;NPNPLNepal;NRNRUNauru;NUNIUNiue;NZNZLNew Zealand;OMOMNOman;PAPANPanama;PEPERPeru;
PFPYFFrench Polynesia;PGPNGPapua New Guinea;PHPHLPhilippines;PKPAKPakistan;PLPOLPoland;
PMSPMSaint Pierre and Miquelon;PNPCNPitcairn;PRPRIPuerto Rico;PSPSEPalestine, State of;PTPRTPortugal;
PWPLWPalau;PYPRYParaguay;QAQATQatar;REREURéunion;ROROURomania;RSSRBSerbia;RURUSRussian Federation;RWRWARwanda;
SASAUSaudi Arabia;SBSLBSolomon Islands;SCSYCSeychelles;SDSDNSudan;SESWESweden;SGSGPSingapore;
SHSHNSaint Helena, Ascension and Tristan da Cunha;SISVNSlovenia;SJSJMSvalbard and Jan Mayen;SKSVKSlovakia;
SLSLESierra Leone;SMSMRSan Marino;SNSENSenegal;SOSOMSomalia;SRSURSuriname;SSSSDSouth Sudan;
STSTPSao Tome and Principe;SVSLVEl Salvador;SXSXMSint Maarten (Dutch part);SYSYRSyria|Syrian Arab Republic;
SZSWZEswatini;TCTCATurks and Caicos Islands;TDTCDChad;TFATFFrench Southern Territories;TGTGOTogo;
THTHAThailand;TJTJKTajikistan;TKTKLTokelau;TLTLSTimor-Leste;TMTKMTurkmenistan;TNTUNTunisia;TOTONTonga;
TRTURTürkiye;TTTTOTrinidad and Tobago;TVTUVTuvalu;TWTWNTaiwan|Taiwan, Province of China;
TZTZATanzania|Tanzania, United Republic of;UAUKRUkraine;UGUGAUganda;UMUMIUnited States Minor Outlying Islands;
USUSAUnited States;UYURYUruguay;UZUZBUzbekistan;VAVATHoly See (Vatican City State);
VCVCTSaint Vincent and the Grenadines;VEVENVenezuela|Venezuela, Bolivarian Republic of;
VGVGBVirgin Islands, British;VIVIRVirgin Islands, U.S.;VNVNMVietnam|Viet Nam;VUVUTVanuatu;
WFWLFWallis and Futuna;WSWSMSamoa;YEYEMYemen;YTMYTMayotte;ZAZAFSouth Africa;ZMZMBZambia;ZWZWEZimbabwe;`;

// Names people and shop systems actually write that are not ISO's names.
const ALIASES: Record<string, string> = {
  UK: 'GB', 'GREAT BRITAIN': 'GB', BRITAIN: 'GB', ENGLAND: 'GB', SCOTLAND: 'GB', WALES: 'GB',
  'NORTHERN IRELAND': 'GB', 'UNITED KINGDOM OF GREAT BRITAIN AND NORTHERN IRELAND': 'GB',
  'U.K.': 'GB', USA: 'US', 'U.S.A.': 'US', 'U.S.': 'US', 'UNITED STATES OF AMERICA': 'US', AMERICA: 'US',
  DEUTSCHLAND: 'DE', 'FEDERAL REPUBLIC OF GERMANY': 'DE', HOLLAND: 'NL', 'THE NETHERLANDS': 'NL', NEDERLAND: 'NL',
  'ESPAÑA': 'ES', ESPANA: 'ES', ITALIA: 'IT', 'ÖSTERREICH': 'AT', OSTERREICH: 'AT', SCHWEIZ: 'CH', SUISSE: 'CH',
  SVIZZERA: 'CH', 'BELGIË': 'BE', BELGIE: 'BE', BELGIQUE: 'BE', SVERIGE: 'SE', NORGE: 'NO', DANMARK: 'DK',
  SUOMI: 'FI', POLSKA: 'PL', 'ÉIRE': 'IE', EIRE: 'IE', 'REPUBLIC OF IRELAND': 'IE', 'ČESKO': 'CZ',
  'CZECH REPUBLIC': 'CZ', 'SOUTH KOREA': 'KR', 'NORTH KOREA': 'KP', RUSSIA: 'RU', VIETNAM: 'VN',
  'IVORY COAST': 'CI', "COTE D'IVOIRE": 'CI', TURKEY: 'TR', 'TÜRKIYE': 'TR', TURKIYE: 'TR', MACEDONIA: 'MK',
  'UAE': 'AE', 'HONG KONG SAR': 'HK', 'MACAU': 'MO', 'PRC': 'CN', "PEOPLE'S REPUBLIC OF CHINA": 'CN',
  'CAPE VERDE': 'CV', SWAZILAND: 'SZ', BURMA: 'MM', 'EAST TIMOR': 'TL', 'VATICAN CITY': 'VA', 'HOLY SEE': 'VA',
  'PALESTINE': 'PS', KOSOVO: 'XK', 'BOLIVIA': 'BO', 'VENEZUELA': 'VE', TANZANIA: 'TZ', SYRIA: 'SY', IRAN: 'IR',
  LAOS: 'LA', MOLDOVA: 'MD', TAIWAN: 'TW', 'FALKLAND ISLANDS': 'FK', MICRONESIA: 'FM', 'ST HELENA': 'SH',
};

// Names that stand for more than one country: refused, naming the candidates, rather than guessed.
const AMBIGUOUS: Record<string, string> = {
  KOREA: 'KR (South Korea) or KP (North Korea)',
  CONGO: 'CG (Republic of the Congo, Brazzaville) or CD (Democratic Republic of the Congo, Kinshasa)',
  'VIRGIN ISLANDS': 'VG (British Virgin Islands) or VI (U.S. Virgin Islands)',
  'CHANNEL ISLANDS': 'JE (Jersey) or GG (Guernsey)',
};

interface Tables {
  byCode: Map<string, string>;
  byAlpha3: Map<string, string>;
  byName: Map<string, string>;
}
let tables: Tables | undefined;

/** Upper-cases and folds punctuation and accents so "Viet Nam", "viet-nam" and "VIÊT NAM" compare equal. */
function fold(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/[^A-Z0-9']+/g, ' ')
    .replace(/^THE /, '')
    .trim();
}

function load(): Tables {
  if (tables) return tables;
  const byCode = new Map<string, string>();
  const byAlpha3 = new Map<string, string>();
  const byName = new Map<string, string>();
  for (const entry of TABLE.replace(/\n/g, '').split(';')) {
    if (!entry) continue;
    const code = entry.slice(0, 2);
    const names = entry.slice(5).split('|');
    byCode.set(code, names[0]);
    byAlpha3.set(entry.slice(2, 5), code);
    for (const n of names) {
      byName.set(fold(n), code);
      // "Korea, Republic of" is also written "Republic of Korea"
      const comma = n.indexOf(', ');
      if (comma > 0) byName.set(fold(`${n.slice(comma + 2)} ${n.slice(0, comma)}`), code);
    }
  }
  byCode.set('XK', 'Kosovo');
  for (const [alias, code] of Object.entries(ALIASES)) byName.set(fold(alias), code);
  tables = { byCode, byAlpha3, byName };
  return tables;
}

/** The English name of an ISO 3166-1 alpha-2 code, or undefined if the code is not assigned. */
export function countryName(code: string): string | undefined {
  return load().byCode.get(code.toUpperCase());
}

/** What a country cell resolved to: a two-letter code, or why it could not be resolved (with a suggestion). */
export type CountryResult = { ok: true; code: string } | { ok: false; message: string };

/**
 * Resolves a country as written in a file: an ISO alpha-2 code (any case) or an unambiguous English name or alias.
 * Three-letter codes are refused with the matching two-letter code suggested, since the API takes only alpha-2.
 */
export function resolveCountry(input: string): CountryResult {
  const t = load();
  const raw = input.trim();
  const upper = raw.toUpperCase();
  if (/^[A-Z]{2}$/.test(upper)) {
    if (t.byCode.has(upper)) return { ok: true, code: upper };
    const alias = t.byName.get(upper); // "UK" is not ISO (GB is) but means one country only
    if (alias) return { ok: true, code: alias };
    return { ok: false, message: `"${raw}" is not an ISO 3166-1 two-letter country code` };
  }
  if (/^[A-Z]{3}$/.test(upper) && t.byAlpha3.has(upper) && !t.byName.has(fold(raw))) {
    const code = t.byAlpha3.get(upper)!;
    return { ok: false, message: `must be a two-letter ISO 3166-1 country code, not "${raw}" (did you mean ${code}?)` };
  }
  const ambiguous = AMBIGUOUS[fold(raw)];
  if (ambiguous) return { ok: false, message: `"${raw}" may be ${ambiguous}: write the two-letter code` };
  const code = t.byName.get(fold(raw));
  if (code) return { ok: true, code };
  return { ok: false, message: `must be a two-letter ISO 3166-1 country code; "${raw}" is not a country name we know` };
}
