/**
 * MLR2 on a COM line over a real pty (socat): a line of a type Vigil knows (Contact ID, SIA Protocol 1 and 2, the
 * heartbeat) in a wrong layout is answered NAK (0x15) and journals nothing, so the legacy receiver sends it again
 * (MLR2 installation manual §Acknowledgment of the Signal); a line of a type Vigil does not know is still journaled
 * as `other` and ACKed (docs/serial.md §protocol "MLR2").
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { HEARTBEAT, encodeContactId } from '../../src/protocols/mlr2/codec.js';
import { startComRig, type ComRig } from './helpers/com-rig.js';

const ACK = 0x06;
const NAK = 0x15;
const CID = encodeContactId(
  { receiver: 1, line: 1 },
  { account: '1234', qualifier: 'E', code: '130', group: '01', zone: '015' },
);
if (!CID.ok) throw new Error(CID.reason);

/** Sends each line with its DC4, one at a time as the receiver does (it waits for the answer), and returns the answers. */
async function answers(rig: ComRig, lines: readonly string[]): Promise<number[]> {
  for (let i = 0; i < lines.length; i++) {
    rig.send(`${lines[i]}\x14`);
    await rig.replies(i + 1);
  }
  return [...Buffer.concat(rig.received)];
}

/** Known type, wrong layout: each cut short, padded or with a field out of its alphabet. */
const WRONG_LAYOUTS = [
  '5011 18884', // the Contact ID line of issue #28.14, cut short
  '5011 181234E1300101', // one digit short
  '5011 181234E130010155', // one digit too many
  '5011 181234X13001015', // qualifier outside E/R/P
  '5011 181234E13001G15', // a zone digit that is not hex
  '5011 981234E13001015', // not the Contact ID identifier 18
  '501', // only the protocol number and part of the route
  '3011      12ABBA00', // SIA Protocol 1 cut in the zone
  '3011    12ABBA0007', // SIA Protocol 1 with a four-column account
  '3011      12ABba0007', // SIA code in lower case
  'S011[#00123456|Nri2FA', // SIA Protocol 2 without its closing bracket
  'S011[#00123456', // SIA Protocol 2 cut in the account block
  'S01', // cut inside the route: no layout ends there
  '1011           @', // heartbeat without its four trailing spaces
  '1011      @    ', // heartbeat with six spaces before '@' instead of eleven
  '1011      ', // heartbeat cut before its '@'
];

test('MLR2: a known type in a wrong layout is NAKed (0x15) and journaled nowhere; the next good line is ACKed', async () => {
  const rig = await startComRig({ protocol: 'MLR2' });
  try {
    const got = await answers(rig, [...WRONG_LAYOUTS, CID.bytes.subarray(0, -1).toString('latin1')]);
    assert.equal(got, [...WRONG_LAYOUTS.map(() => NAK), ACK], JSON.stringify(WRONG_LAYOUTS));
    assert.equal(
      rig.events().map((e) => [e.protocol, e.account, e.zoneNo]),
      [['ADM-CID', '1234', '015']],
    );
  } finally {
    await rig.close();
  }
});

test('MLR2: lines of types Vigil does not know are journaled as other and ACKed; a heartbeat is ACKed', async () => {
  const rig = await startComRig({ protocol: 'MLR2' });
  try {
    const unknown = [
      '7012 OTHER FORMAT',
      '1011      0012 C1128', // a Sur-Gard open/close line: protocol 1 like the heartbeat, but no '@'
      '6011      1234BA0007', // BFSK (protocol 6)
      'S011 RECEIVER NOTE', // the receiver's own message: 'S' without the SIA Protocol 2 block
    ];
    const got = await answers(rig, [...unknown, HEARTBEAT.subarray(0, -1).toString('latin1')]);
    assert.equal(got, [ACK, ACK, ACK, ACK, ACK]);
    assert.equal(
      rig.events().map((e) => [e.protocol, e.eventClass, e.text]),
      unknown.map((t) => ['MLR2', 'other', t]),
    );
  } finally {
    await rig.close();
  }
});

test.run();
