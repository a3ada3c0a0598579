/**
 * Cross-field rules of receivers and outputs (contract: "Receivers and outputs are cross-validated
 * for consistency"), run on the MERGED settings so a patch cannot leave a dangling reference behind.
 */
import { OUTPUT_TYPES, type OutputSettings } from './schema-outputs.js';
import { isValidSiaKey, parseHostPort } from './fields.js';
import { duplicates, duplicateValues, line } from './issues.js';
import { checkTcpServerOutputs } from './tcp-server-check.js';
import { checkWebhookOutput } from './webhook-check.js';
import { RECEIVER_LISTS, type ReceiverListName } from './schema-receivers.js';
import type { Settings } from './schema.js';

/** All receiver ids across the four lists (the ids visible_receivers and output filters refer to). */
export function receiverIds(s: Settings): Set<number> {
  return new Set(RECEIVER_LISTS.flatMap((name) => s.receivers[name].map((r) => r.id)));
}

const CATEGORY_LABEL: Record<ReceiverListName, string> = {
  tcp_receivers: 'TCP receivers',
  udp_receivers: 'UDP receivers',
  com_receivers: 'COM receivers',
  modem_receivers: 'modem receivers',
};

export function checkReceivers(s: Settings): string[] {
  const out: string[] = [];
  const r = s.receivers;
  const all = RECEIVER_LISTS.flatMap((name) => r[name].map((item, i) => ({ item, path: `receivers.${name}[${i}]` })));
  out.push(
    ...duplicates(
      all.map((x) => ({ key: x.item.id, path: x.path, at: `${x.path}.id` })),
      'must be unique among receivers',
    ),
  );

  for (const name of ['tcp_receivers', 'udp_receivers'] as const) {
    const items = r[name].map((item, i) => ({
      key: item.port,
      path: `receivers.${name}[${i}]`,
      at: `receivers.${name}[${i}].port`,
    }));
    out.push(...duplicates(items, `must be unique among ${CATEGORY_LABEL[name]}`));
  }
  for (const name of ['tcp_receivers', 'udp_receivers', 'com_receivers', 'modem_receivers'] as const) {
    r[name].forEach((item, i) => {
      if ('require_encryption' in item && item.require_encryption && item.encryption_password === undefined) {
        out.push(line(`receivers.${name}[${i}].require_encryption`, 'needs an encryption_password'));
      }
    });
  }
  // The MLR2 feed of a legacy receiver is plain text: a DC-09 key there would be a misunderstanding (docs/serial.md).
  r.com_receivers.forEach((item, i) => {
    if (item.protocol !== 'MLR2') return;
    if (item.encryption_password !== undefined)
      out.push(line(`receivers.com_receivers[${i}].encryption_password`, 'only allowed when protocol is "SIA-DC09"'));
  });
  // The API listens on TCP too: the same port twice would fail at bind (Vigil rule).
  if (s.api.api_http_port === s.api.api_port) out.push(line('api.api_http_port', 'must differ from api.api_port'));
  r.tcp_receivers.forEach((item, i) => {
    for (const key of ['api_port', 'api_http_port'] as const) {
      if (item.port === s.api[key]) out.push(line(`receivers.tcp_receivers[${i}].port`, `already used by api.${key}`));
    }
  });

  // One serial device serves one receiver or output.
  const serial = [
    ...(['com_receivers', 'modem_receivers'] as const).flatMap((name) =>
      r[name].map((item, i) => ({
        key: item.port_id,
        path: `receivers.${name}[${i}]`,
        at: `receivers.${name}[${i}].port_id`,
      })),
    ),
    ...s.outputs.flatMap((o, i) =>
      o.type === OUTPUT_TYPES.com
        ? [{ key: o.identificator, path: `outputs[${i}]`, at: `outputs[${i}].identificator` }]
        : [],
    ),
  ];
  out.push(...duplicates(serial, 'serial device already in use'));
  return out;
}

/** RR/L columns: MLR2 2 + 1 (or 3) digits, Ademco 685 R and G one digit each (docs/outputs.md §Settings). */
function checkRoute(o: OutputSettings, at: string): string[] {
  const out: string[] = [];
  const ademco = o.protocol === 'ADEMCO-685';
  const maxReceiver = ademco ? 9 : 99;
  const maxLine = ademco ? 9 : (o.mlr2?.line_digits ?? 1) === 3 ? 999 : 9;
  if (o.receiver_number > maxReceiver)
    out.push(line(`${at}.receiver_number`, `must be between 0 and ${maxReceiver} for ${o.protocol}`));
  if (o.line_number > maxLine) {
    const what = ademco ? ' (the receiver group G)' : maxLine === 999 ? ' with mlr2.line_digits 3' : '';
    out.push(line(`${at}.line_number`, `must be between 0 and ${maxLine} for ${o.protocol}${what}`));
  }
  return out;
}

/** The MLR2 variant block (docs/outputs.md §MLR2 variants). */
function checkMlr2Options(o: OutputSettings, at: string): string[] {
  const m = o.mlr2;
  if (m === undefined) return [];
  if (o.protocol !== 'MLR2' && o.protocol !== 'MLR2-DG')
    return [line(`${at}.mlr2`, 'only allowed when protocol is "MLR2" or "MLR2-DG"')];
  const out: string[] = [];
  // SIA Protocol 1 (3RRL...) has no 3-digit-line layout; those receivers send SIA as Protocol 2 (SG §4.7).
  if (m.line_digits === 3 && o.protocol === 'MLR2')
    out.push(
      line(`${at}.mlr2.line_digits`, '3 needs protocol "MLR2-DG" (SIA Protocol 2 is the 3-digit-line SIA layout)'),
    );
  if (m.long_accounts === 'contact_id_10' && m.line_digits !== 3)
    out.push(
      line(`${at}.mlr2.long_accounts`, '"contact_id_10" needs mlr2.line_digits 3 (its layout has a 3-digit line)'),
    );
  return out;
}

export function checkOutputs(s: Settings): string[] {
  const out: string[] = [];
  const known = receiverIds(s);
  out.push(
    ...duplicates(
      s.outputs.map((o, i) => ({ key: o.id, path: `outputs[${i}]`, at: `outputs[${i}].id` })),
      'must be unique among outputs',
    ),
  );
  s.outputs.forEach((o, i) => {
    const at = `outputs[${i}]`;
    const sia = o.protocol === 'SIA-DC09';
    out.push(...checkWebhookOutput(o, at));
    if (o.type === OUTPUT_TYPES.udp && !sia)
      out.push(line(`${at}.type`, 'UDP (2) is only allowed with protocol "SIA-DC09"'));
    if (o.type === OUTPUT_TYPES.com) {
      if (!o.identificator.startsWith('/'))
        out.push(line(`${at}.identificator`, 'must be the absolute path of a serial device for a COM output'));
    } else if (o.type !== OUTPUT_TYPES.webhook && o.type !== OUTPUT_TYPES.tcp_server) {
      if (parseHostPort(o.identificator) === null) {
        out.push(
          line(
            `${at}.identificator`,
            'must be host:port (IPv4 address, hostname or [IPv6 address]; port 1..65535) for a TCP or UDP output',
          ),
        );
      }
      if (o.serial !== undefined) out.push(line(`${at}.serial`, 'only allowed when type is 3 (serial COM)'));
    }
    // A webhook has no receiver/line columns: its numbers are ignored (docs/outputs.md §Webhook).
    if (!sia && o.protocol !== 'JSON') {
      out.push(...checkRoute(o, at));
      if (o.sia_dc09 !== undefined) out.push(line(`${at}.sia_dc09`, 'only allowed when protocol is "SIA-DC09"'));
    }
    out.push(...checkMlr2Options(o, at));
    const key = o.sia_dc09?.encryption_key ?? '';
    if ((o.sia_dc09?.encryption_enabled || key !== '') && !isValidSiaKey(key)) {
      out.push(
        line(`${at}.sia_dc09.encryption_key`, 'must be 16, 24 or 32 ASCII characters or 32, 48 or 64 hex digits'),
      );
    }
    o.filters.receivers.forEach((rid, j) => {
      if (!known.has(rid)) out.push(line(`${at}.filters.receivers[${j}]`, `receiver ${rid} does not exist`));
    });
    out.push(...duplicateValues(o.filters.receivers, `${at}.filters.receivers`, 'receiver id'));
    out.push(...duplicateValues(o.filters.event_classes, `${at}.filters.event_classes`, 'event class'));
  });
  out.push(...checkTcpServerOutputs(s));
  return out;
}
