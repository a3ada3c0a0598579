/**
 * Vigil's own events (contract §internal_events: "the allowed values: not shown"). Each type is
 * reported to the outputs as a Contact ID event with the configured classificator, code, group
 * and zone. The defaults below use the Contact ID event codes (SIA DC-05) closest in meaning;
 * every one can be changed through PUT /api/settings, and a type left out of the list is not sent.
 */
export const INTERNAL_EVENT_TYPES = [
  'gateway_started',
  'gateway_stopping',
  'object_lost',
  'object_restored',
  'output_failed',
  'output_restored',
  'receiver_failed',
  'receiver_restored',
  'receiver_trouble',
  'store_trouble',
  'store_restored',
  'clock_trouble',
  'clock_restored',
  'settings_changed',
  'login_failed',
  'device_link_failed',
  'technician_action',
  'device_identity_conflict',
  'output_client_refused',
  'update_installed',
  'update_activated',
  'update_confirmed',
  'update_rolled_back',
] as const;

export type InternalEventType = (typeof INTERNAL_EVENT_TYPES)[number];

interface InternalEventDefault {
  type: InternalEventType;
  classificator: 'E' | 'R';
  event_code: string;
  group_no: string;
  zone_no: string;
  name: string;
}

function entry(type: InternalEventType, classificator: 'E' | 'R', code: string, name: string): InternalEventDefault {
  return { type, classificator, event_code: code, group_no: '00', zone_no: '000', name };
}

/** Contact ID codes: 305 system reset, 308 system shutdown, 350 communication trouble,
 * 354 failure to communicate event, 330 system peripheral trouble, 300 system trouble,
 * 626 time/date inaccurate, 306 panel programming changed, 461 wrong code entry,
 * 356 loss of central polling, 412 successful download/access (a technician's action on the page),
 * 421 access denied (a device-link HELLO that did not prove its UID, docs/device-link.md §4.5; a client outside a
 * TCP server output's allow-list, docs/outputs.md §TCP server),
 * 416 successful upload (a system bundle installed), 305 system reset (booted into it), 300 system trouble
 * (an update rolled back; its confirmation is the restore R 300). Restores reuse the trouble code with classificator R. */
export const DEFAULT_INTERNAL_EVENTS: readonly InternalEventDefault[] = [
  entry('gateway_started', 'E', '305', 'Gateway started'),
  entry('gateway_stopping', 'E', '308', 'Gateway stopping'),
  entry('object_lost', 'E', '350', 'Object lost'),
  entry('object_restored', 'R', '350', 'Object restored'),
  entry('output_failed', 'E', '354', 'Output failed'),
  entry('output_restored', 'R', '354', 'Output restored'),
  entry('receiver_failed', 'E', '330', 'Receiver failed'),
  entry('receiver_restored', 'R', '330', 'Receiver restored'),
  entry('receiver_trouble', 'E', '330', 'Receiver trouble'),
  entry('store_trouble', 'E', '300', 'Event store trouble'),
  entry('store_restored', 'R', '300', 'Event store restored'),
  entry('clock_trouble', 'E', '626', 'Clock trouble'),
  entry('clock_restored', 'R', '626', 'Clock restored'),
  entry('settings_changed', 'E', '306', 'Settings changed'),
  entry('login_failed', 'E', '461', 'Login failed'),
  entry('device_link_failed', 'E', '356', 'Device link failed'),
  entry('technician_action', 'E', '412', 'Technician action'),
  entry('device_identity_conflict', 'E', '421', 'Device identity conflict'),
  entry('output_client_refused', 'E', '421', 'Output client refused'),
  entry('update_installed', 'E', '416', 'System update installed'),
  entry('update_activated', 'E', '305', 'System update activated'),
  entry('update_confirmed', 'R', '300', 'System update confirmed'),
  entry('update_rolled_back', 'E', '300', 'System update rolled back'),
];
