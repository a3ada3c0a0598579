/**
 * DC-09 frames from real panels, as posted in public issue threads, with their source. Every CRC below was
 * checked against the frame's own CRC field as posted (CRC-16/ARC), so a frame is what the panel sent, not a
 * re-typing: where a thread shows the bytes (a Buffer dump) they are used as they are; where it shows a log line,
 * the LF and CR the log strips are put back, and any other reconstruction is said in `note`.
 * Frames without a source are not here: tests that need one build it and say so.
 */
import type { FrameQuirk } from '../../../src/protocols/dc09/frame.js';
import type { MessageQuirk } from '../../../src/protocols/dc09/message.js';

export interface CorpusFrame {
  /** Short name used in test titles. */
  readonly name: string;
  /** The panel or communicator as the thread names it. */
  readonly panel: string;
  /** Repository and thread (issue or pull request) where the frame was posted. */
  readonly source: string;
  /** The frame as it travelled, LF to CR (and what followed the CR, when the thread shows it). */
  readonly wire: Buffer;
  readonly note?: string;
  /** Deviations Vigil tolerates in it; [] for a frame by the letter of the standard. */
  readonly quirks: readonly (FrameQuirk | MessageQuirk)[];
  /** What the journal must hold for it (null: a NULL link test, no event). */
  readonly event: {
    account: string;
    protocol: 'SIA-DCS' | 'ADM-CID';
    code: string;
    zone?: string;
    group?: string;
    qualifier?: 'E' | 'R' | 'P';
  } | null;
  /** The header echoed in the ACK body. */
  readonly ackBody: string;
}

const text = (s: string): Buffer => Buffer.from(s, 'latin1');
/** A log line with the LF and CR it lost put back. */
const line = (s: string): Buffer => text(`\n${s}\r`);
/** A frame whose CRC field is two raw bytes (high first), then the rest of the line as logged. */
const binary = (hi: number, lo: number, rest: string): Buffer =>
  Buffer.concat([Buffer.from([0x0a, hi, lo]), text(`${rest}\r`)]);
/** A Buffer dump as posted ({"type":"Buffer","data":[...]}). */
const dump = (bytes: number[]): Buffer => Buffer.from(bytes);

export const CORPUS: readonly CorpusFrame[] = [
  {
    name: 'L without digits and a NUL after the CR',
    panel: 'unnamed panel (SIA-DCS, no account prefix)',
    source: 'schmupu/ioBroker.sia issue #4 ("message parse fail")',
    wire: dump([
      10, 57, 70, 48, 68, 48, 48, 49, 65, 34, 83, 73, 65, 45, 68, 67, 83, 34, 48, 48, 48, 49, 76, 91, 35, 57, 57, 57,
      57, 124, 78, 66, 65, 50, 93, 13, 0,
    ]),
    quirks: ['empty-line', 'trailing-bytes'],
    event: { account: '9999', protocol: 'SIA-DCS', code: 'BA', zone: '2' },
    ackBody: '"ACK"0001L[]',
  },
  {
    name: 'NULL with L without digits and a NUL after the CR',
    panel: '"alarm host compliant with SIA DC09" from a Chinese manufacturer',
    source: 'schmupu/ioBroker.sia issue #11 ("Required SIA fields Missing")',
    wire: dump([
      10, 66, 66, 56, 54, 48, 48, 50, 67, 34, 78, 85, 76, 76, 34, 48, 48, 48, 49, 76, 35, 55, 51, 48, 51, 54, 53, 56,
      53, 53, 48, 91, 93, 95, 49, 53, 58, 51, 57, 58, 51, 56, 44, 48, 54, 45, 48, 55, 45, 50, 48, 49, 57, 13, 0,
    ]),
    quirks: ['empty-line', 'trailing-bytes'],
    event: null,
    ackBody: '"ACK"0001L#7303658550[]',
  },
  {
    name: 'SIA-DCS with L without digits (G90B-PLUS)',
    panel: 'G90B-PLUS 2G GSM alarm',
    source: 'schmupu/ioBroker.sia issue #19 ("Required SIA fields Missing")',
    wire: dump([
      10, 55, 56, 70, 67, 48, 48, 51, 66, 34, 83, 73, 65, 45, 68, 67, 83, 34, 48, 48, 48, 49, 76, 35, 50, 50, 51, 51,
      52, 52, 53, 53, 91, 35, 50, 50, 51, 51, 52, 52, 53, 53, 124, 78, 67, 81, 49, 93, 95, 49, 52, 58, 51, 51, 58, 53,
      51, 44, 48, 50, 45, 48, 57, 45, 50, 48, 50, 48, 13, 0,
    ]),
    quirks: ['empty-line', 'trailing-bytes'],
    event: { account: '22334455', protocol: 'SIA-DCS', code: 'CQ', zone: '1' },
    ackBody: '"ACK"0001L#22334455[]',
  },
  {
    name: 'binary CRC, ADM-CID',
    panel: 'Trikdis E16 Ethernet communicator, protocol DC-09_2012',
    source: 'eavanvalkenburg/pysiaalarm issue #52 ("Not a SIA or ADM Spec event, compatibility")',
    wire: binary(0x30, 0x6e, '003D"ADM-CID"0002R1L1#9413[#9413|1602 99 999]_23:05:30,08-30-2023'),
    note: 'logged as "0n003D...": the CRC bytes 0x30 0x6E printed as "0n"; CRC-16/ARC of the body is 0x306E',
    quirks: ['binary-crc'],
    event: { account: '9413', protocol: 'ADM-CID', code: '602', group: '99', zone: '999', qualifier: 'E' },
    ackBody: '"ACK"0002R1L1#9413[]',
  },
  {
    name: 'binary CRC, NULL',
    panel: 'Trikdis E16 Ethernet communicator, protocol DC-09_2012',
    source: 'eavanvalkenburg/pysiaalarm issue #52',
    wire: binary(0xd1, 0x4b, '0029"NULL"0000R1L1#9413[]_23:05:28,08-30-2023'),
    note: 'logged as "K0029...": 0x4B printed as "K", 0xD1 not printable; CRC-16/ARC of the body is 0xD14B',
    quirks: ['binary-crc'],
    event: null,
    ackBody: '"ACK"0000R1L1#9413[]',
  },
  {
    name: 'binary CRC, ADM-CID 1700',
    panel: 'Trikdis E16 Ethernet communicator, protocol DC-09_2012',
    source: 'eavanvalkenburg/pysiaalarm issue #52',
    wire: binary(0xda, 0xeb, '003D"ADM-CID"0001R1L1#9413[#9413|1700 99 999]_23:05:28,08-30-2023'),
    note: 'logged as "003D...": neither CRC byte printable; both are the body\'s CRC-16/ARC (0xDAEB), consistent with the log',
    quirks: ['binary-crc'],
    event: { account: '9413', protocol: 'ADM-CID', code: '700', group: '99', zone: '999', qualifier: 'E' },
    ackBody: '"ACK"0001R1L1#9413[]',
  },
  {
    name: 'CR counted in length and CRC',
    panel: 'ELDES alarm system',
    source: 'Cheaterdev/sia-ha issue #3 ("SIA IP with Eldes")',
    wire: line('F19A002B"ADM-CID"0056L9999#9999[#9999|1900 00 001]'),
    note: 'length 0x2B is the body (0x2A) plus the CR; CRC-16/ARC over body + CR is 0xF19A',
    quirks: ['cr-counted'],
    event: { account: '9999', protocol: 'ADM-CID', code: '900', group: '00', zone: '001', qualifier: 'E' },
    ackBody: '"ACK"0056L9999#9999[]',
  },
  {
    name: 'CR counted, second message',
    panel: 'ELDES alarm system',
    source: 'Cheaterdev/sia-ha issue #3',
    wire: line('367B002B"ADM-CID"0058L9999#9999[#9999|1900 00 001]'),
    quirks: ['cr-counted'],
    event: { account: '9999', protocol: 'ADM-CID', code: '900', group: '00', zone: '001', qualifier: 'E' },
    ackBody: '"ACK"0058L9999#9999[]',
  },
  {
    name: 'CR counted, closing report',
    panel: 'ELDES alarm system',
    source: 'eavanvalkenburg/pysiaalarm issue #17 ("Integration with ELDES alarm systems")',
    wire: line('AA1A0030"ADM-CID"0227R4F39L4F39#4F39[#4F39|3401 01 057]'),
    note: 'the log shows the sent CRC (AA1A) and the body; the length field (body + CR = 0x30) is not in the log',
    quirks: ['cr-counted'],
    event: { account: '4F39', protocol: 'ADM-CID', code: '401', group: '01', zone: '057', qualifier: 'R' },
    ackBody: '"ACK"0227R4F39L4F39#4F39[]',
  },
  {
    name: 'lower-case hex in the length',
    panel: 'LUPUS security control centre (lupuscloud)',
    source: 'eavanvalkenburg/pysiaalarm issue #63 ("Code not found, replying with DUH")',
    wire: line('9B3C004d"SIA-DCS"0047L0#100200[#100200|Nti10:01:00/da08-18-24/RP]_10:01:00,08-18-2024'),
    quirks: [],
    event: { account: '100200', protocol: 'SIA-DCS', code: 'RP' },
    ackBody: '"ACK"0047L0#100200[]',
  },
  {
    name: 'pi modifier before the code',
    panel: 'SATEL ETHM-1',
    source: 'eavanvalkenburg/pysiaalarm pull request #87 ("Fix SIA-DCS parsing for SATEL Npi frames")',
    wire: line('D8910037"SIA-DCS"0097L0#ABCD[#0000|Npi0/AT]_11:26:04,03-01-2026'),
    note: 'the header account (ABCD) differs from the one in the data (0000): the header account is the one journaled',
    quirks: [],
    event: { account: 'ABCD', protocol: 'SIA-DCS', code: 'AT' },
    ackBody: '"ACK"0097L0#ABCD[]',
  },
  {
    name: 'extended data block [R] (room)',
    panel: 'Dahua AirShield key fob',
    source: 'eavanvalkenburg/pysiaalarm pull request #87 (comment of 2026-08-25)',
    wire: line('BC160045"SIA-DCS"0178L0#5555[#5555|Npi1/NL1][RLivingRoom]_16:39:25,08-25-2026'),
    note: 'the excerpt ends at "08-25-20"; the year 2026 is the only one whose CRC matches BC16',
    quirks: [],
    event: { account: '5555', protocol: 'SIA-DCS', code: 'NL', zone: '1' },
    ackBody: '"ACK"0178L0#5555[]',
  },
  {
    name: 'ti and id modifiers, no timestamp',
    panel: 'Scantronic (Eaton) via SecureConnect, "SC SIA3"',
    source: 'eavanvalkenburg/pysiaalarm issue #8 ("Sia v3 will not parse correctly")',
    wire: line('1908002B"SIA-DCS"0000L0#3080[#3080|Nti19:44/id1/RP]'),
    quirks: [],
    event: { account: '3080', protocol: 'SIA-DCS', code: 'RP' },
    ackBody: '"ACK"0000L0#3080[]',
  },
  {
    name: 'NULL by the letter, with the ACK a working receiver sent',
    panel: 'Pyronix Enforcer 11',
    source: 'home-assistant/core issue #180511 (NiftyDC09 answered 59890012"ACK"0000L0#1409[])',
    wire: line('EA740027"NULL"0000L0#1409[]_20:38:07,08-27-2026'),
    quirks: [],
    event: null,
    ackBody: '"ACK"0000L0#1409[]',
  },
  {
    name: 'Ajax CG with area modifier',
    panel: 'Ajax Hub',
    source: 'eavanvalkenburg/sia issue #51 ("Code JC not in the list")',
    wire: line('C95F0038"SIA-DCS"4326L0#AAA[#AAA|Nri3/CG501]_11:38:51,09-26-2021'),
    quirks: [],
    event: { account: 'AAA', protocol: 'SIA-DCS', code: 'CG', zone: '501', group: '3' },
    ackBody: '"ACK"4326L0#AAA[]',
  },
  {
    name: 'Ajax code unknown to other receivers (PE)',
    panel: 'Ajax Hub',
    source: 'home-assistant/core issue #88474 ("SIA Alarm Systems - Bug with unknown code")',
    wire: line('A2350038"SIA-DCS"7232L0#AAA[#AAA|Nri1/PE501]_08:21:05,02-20-2023'),
    quirks: [],
    event: { account: 'AAA', protocol: 'SIA-DCS', code: 'PE', zone: '501', group: '1' },
    ackBody: '"ACK"7232L0#AAA[]',
  },
  {
    name: 'periodic test, Buffer dump',
    panel: 'Ajax Hub (node-red-contrib-sia-ultimate user)',
    source: 'Supergiovane/node-red-contrib-sia-ultimate issue #2 ("Acknowledge for SIA")',
    wire: dump([
      10, 55, 48, 67, 52, 48, 48, 51, 66, 34, 83, 73, 65, 45, 68, 67, 83, 34, 49, 55, 48, 55, 76, 48, 35, 48, 48, 48,
      48, 91, 35, 48, 48, 48, 48, 124, 78, 114, 105, 48, 47, 82, 80, 48, 48, 48, 48, 93, 95, 49, 51, 58, 51, 54, 58, 52,
      49, 44, 49, 50, 45, 50, 50, 45, 50, 48, 50, 49, 13,
    ]),
    quirks: [],
    event: { account: '0000', protocol: 'SIA-DCS', code: 'RP', zone: '0000', group: '0' },
    ackBody: '"ACK"1707L0#0000[]',
  },
];

/** The published ACK of the Pyronix thread, byte for byte (home-assistant/core issue #180511). */
export const PYRONIX_ACK = line('59890012"ACK"0000L0#1409[]');
