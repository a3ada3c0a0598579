/**
 * SIA event codes (SIA DC-03) as Contact ID events (SIA DC-05), for receiver formats that only carry Contact ID (the
 * Ademco 685 layout). The pairs are the usual SIA -> Contact ID equivalences: the same event class on both sides
 * (burglary 130, fire 110, panic 120, hold-up 122, medical 100, tamper 137, ...), alarms as E and their restores as R;
 * openings are E401 and closings R401 (Contact ID: "E = new event or opening, R = restore or closing").
 *
 * A SIA code with no entry is sent as Contact ID 140 "General alarm" (E, or R when the SIA code is a restore: second
 * letter R or H), so the operator still sees that the account reported something and looks the event up in Vigil's
 * journal, which keeps the SIA code and the raw frame (docs/outputs.md §Ademco 685, "Events without a Contact ID code").
 */
export interface CidEquivalent {
  readonly qualifier: 'E' | 'R';
  readonly code: string;
  /** False when the SIA code had no equivalent and the general alarm stands in for it. */
  readonly exact: boolean;
}

const E = (code: string) => ({ qualifier: 'E', code }) as const;
const R = (code: string) => ({ qualifier: 'R', code }) as const;

const TABLE: Readonly<Record<string, { readonly qualifier: 'E' | 'R'; readonly code: string }>> = {
  BA: E('130'),
  BR: R('130'),
  BH: R('130'),
  BT: E('380'),
  BJ: R('380'),
  BB: E('570'),
  BU: R('570'),
  FA: E('110'),
  FR: R('110'),
  FH: R('110'),
  FT: E('373'),
  FJ: R('373'),
  FB: E('571'),
  FU: R('571'),
  PA: E('120'),
  PR: R('120'),
  PH: R('120'),
  PB: E('572'),
  PU: R('572'),
  HA: E('122'),
  HR: R('122'),
  HH: R('122'),
  MA: E('100'),
  MR: R('100'),
  MH: R('100'),
  QA: E('101'),
  QR: R('101'),
  QH: R('101'),
  GA: E('151'),
  GR: R('151'),
  GH: R('151'),
  KA: E('158'),
  KR: R('158'),
  KH: R('158'),
  WA: E('154'),
  WR: R('154'),
  WH: R('154'),
  ZA: E('159'),
  ZR: R('159'),
  ZH: R('159'),
  SA: E('113'),
  SR: R('113'),
  SH: R('113'),
  TA: E('137'),
  TR: R('137'),
  TH: R('137'),
  UA: E('150'),
  UR: R('150'),
  UH: R('150'),
  UT: E('380'),
  UJ: R('380'),
  UB: E('570'),
  UU: R('570'),
  AT: E('301'),
  AR: R('301'),
  YT: E('302'),
  YR: R('302'),
  YM: E('311'),
  XT: E('384'),
  XR: R('384'),
  LT: E('351'),
  LR: R('351'),
  YC: E('354'),
  YK: R('354'),
  ET: E('333'),
  ER: R('333'),
  JA: E('461'),
  RP: E('602'),
  RX: E('601'),
  TX: E('601'),
  RR: E('305'),
  OP: E('401'),
  CL: R('401'),
  OA: E('403'),
  CA: R('403'),
  OG: E('402'),
  CG: R('402'),
  CI: E('454'),
  OI: E('453'),
  CE: E('464'),
  OR: E('406'),
};

const RESTORE_RE = /^[A-Z][RH]$/;

/** The Contact ID event for a two-letter SIA code (upper case). */
export function siaToContactId(siaCode: string): CidEquivalent {
  const hit = TABLE[siaCode];
  if (hit) return { ...hit, exact: true };
  return { qualifier: RESTORE_RE.test(siaCode) ? 'R' : 'E', code: '140', exact: false };
}
