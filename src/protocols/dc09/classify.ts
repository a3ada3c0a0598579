/**
 * The class of a device's event (src/core/event-class.ts), from its SIA or Contact ID code. Neither DC-03 nor DC-05
 * defines such classes; the tables below are Vigil's (docs/dc09.md, "Event classification").
 */
import type { DeviceEventClass } from '../../core/event-class.js';

const words = (text: string): ReadonlySet<string> => new Set(text.split(/\s+/).filter(Boolean));

/** SIA DC-03 codes. */
const SIA_LINK_TEST = words('RP RX TX');
const SIA_RESTORE = words(`
  AN AR BE BH BJ BR DH DR EJ EN ER FH FJ FQ FR FV GH GJ GR HH HJ HR IR JC KH KJ KR LR MH MJ MR NR NS OV
  PH PJ PR QH QJ QR SH SJ SR TH TJ TR UH UJ UR VR WH WJ WR XH XJ XR YE YH YJ YK YQ YR ZH ZJ ZR`);
const SIA_ALARM = words(`
  AT BA BD BG BM BS BT BV BZ CM DF DJ DL DM EA EM ES ET EZ FA FG FM FS FT FW FY FZ GA GS GT HA HS HT IA JA
  KA KS KT LT MA MS MT NT OU PA PS PT QA QS QT SA SS ST TA TT UA UG US UT UX UY UZ WA WS WT XL XM XQ XS XT
  YA YC YF YI YM YP YS YT ZA ZS ZT`);

export function classifySia(code: string): DeviceEventClass {
  if (SIA_LINK_TEST.has(code)) return 'link_test';
  if (SIA_RESTORE.has(code)) return 'restore';
  if (SIA_ALARM.has(code)) return 'alarm';
  return 'other';
}

/** Contact ID (SIA DC-05) periodic and manual communication tests. */
const CID_LINK_TEST = words('601 602 603 608');

/**
 * Contact ID: qualifier E (1) new event / opening, R (3) restore / closing, P (6) previously reported, still present.
 * In the 4xx family (open/close) R means "closing", not a restore. Families 1xx alarms, 2xx supervisory,
 * 3xx troubles are 'alarm' when they begin; 5xx bypasses, 6xx tests and the rest are 'other'.
 */
export function classifyCid(qualifier: 'E' | 'R' | 'P', code: string): DeviceEventClass {
  if (CID_LINK_TEST.has(code)) return 'link_test';
  const family = code[0];
  if (qualifier === 'R') return family === '4' ? 'other' : 'restore';
  if (family === '1' || family === '2' || family === '3') return 'alarm';
  return 'other';
}
