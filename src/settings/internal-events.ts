/**
 * Vigil's own events (contract §internal_events: "the allowed values: not shown"). Each type is
 * reported to the outputs as a Contact ID event with the configured classificator, code, group
 * and zone. The defaults below use the Contact ID event codes (SIA DC-05) closest in meaning;
 * every one can be changed through PUT /api/settings, and a type left out of the list is not sent
 * (but for the few journaled always, TypeDefault.always).
 */
interface TypeDefault {
  readonly classificator: 'E' | 'R';
  readonly code: string;
  readonly name: string;
  /**
   * Journaled whether or not `internal_events` lists it: the list only sets its code and name. A box
   * whose settings were saved before such a type existed, or an administrator who removed it, still
   * journals a stranger passing for a device, and what an update did to the box (docs/internal-events.md).
   */
  readonly always?: true;
}

/**
 * The one list of types, each with its default. Contact ID codes: 305 system reset, 308 system shutdown,
 * 350 communication trouble, 354 failure to communicate event, 330 system peripheral trouble, 300 system
 * trouble, 626 time/date inaccurate, 306 panel programming changed, 461 wrong code entry,
 * 356 loss of central polling, 412 successful download/access (a technician's action on the page),
 * 421 access denied (a device-link HELLO that did not prove its UID, docs/device-link.md §4.5; a client outside a
 * TCP server output's allow-list, docs/outputs.md §TCP server; messages from accounts never seen beyond the
 * new-object allowance, docs/security.md "Admission"),
 * 416 successful upload (a system bundle installed), 305 system reset (booted into it), 300 system trouble
 * (an update rolled back; its confirmation is the restore R 300). Restores reuse the trouble code with classificator R.
 */
const TYPES = {
  gateway_started: { classificator: 'E', code: '305', name: 'Gateway started' },
  gateway_stopping: { classificator: 'E', code: '308', name: 'Gateway stopping' },
  object_lost: { classificator: 'E', code: '350', name: 'Object lost' },
  object_restored: { classificator: 'R', code: '350', name: 'Object restored' },
  output_failed: { classificator: 'E', code: '354', name: 'Output failed' },
  output_restored: { classificator: 'R', code: '354', name: 'Output restored' },
  receiver_failed: { classificator: 'E', code: '330', name: 'Receiver failed' },
  receiver_restored: { classificator: 'R', code: '330', name: 'Receiver restored' },
  receiver_trouble: { classificator: 'E', code: '330', name: 'Receiver trouble' },
  store_trouble: { classificator: 'E', code: '300', name: 'Event store trouble' },
  store_restored: { classificator: 'R', code: '300', name: 'Event store restored' },
  clock_trouble: { classificator: 'E', code: '626', name: 'Clock trouble' },
  clock_restored: { classificator: 'R', code: '626', name: 'Clock restored' },
  settings_changed: { classificator: 'E', code: '306', name: 'Settings changed' },
  login_failed: { classificator: 'E', code: '461', name: 'Login failed' },
  device_link_failed: { classificator: 'E', code: '356', name: 'Device link failed' },
  technician_action: { classificator: 'E', code: '412', name: 'Technician action' },
  device_identity_conflict: { classificator: 'E', code: '421', name: 'Device identity conflict', always: true },
  output_client_refused: { classificator: 'E', code: '421', name: 'Output client refused', always: true },
  new_object_refused: { classificator: 'E', code: '421', name: 'New object refused', always: true },
  update_installed: { classificator: 'E', code: '416', name: 'System update installed', always: true },
  update_activated: { classificator: 'E', code: '305', name: 'System update activated', always: true },
  update_confirmed: { classificator: 'R', code: '300', name: 'System update confirmed', always: true },
  update_rolled_back: { classificator: 'E', code: '300', name: 'System update rolled back', always: true },
} as const satisfies Record<string, TypeDefault>;

export type InternalEventType = keyof typeof TYPES;

export const INTERNAL_EVENT_TYPES = Object.keys(TYPES) as readonly InternalEventType[];

interface InternalEventDefault {
  type: InternalEventType;
  classificator: 'E' | 'R';
  event_code: string;
  group_no: string;
  zone_no: string;
  name: string;
}

/** The `internal_events` list of a new box: every type, in the order above. */
export const DEFAULT_INTERNAL_EVENTS: readonly InternalEventDefault[] = INTERNAL_EVENT_TYPES.map((type) => {
  const d: TypeDefault = TYPES[type];
  return { type, classificator: d.classificator, event_code: d.code, group_no: '00', zone_no: '000', name: d.name };
});

/** The types journaled even when `internal_events` leaves them out (TypeDefault.always). */
export const ALWAYS_JOURNALED: ReadonlySet<InternalEventType> = new Set(
  INTERNAL_EVENT_TYPES.filter((type) => (TYPES[type] as TypeDefault).always),
);
