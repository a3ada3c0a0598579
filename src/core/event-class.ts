/**
 * The class of a journaled event, what outputs filter on (`event_classes`) and the journal's
 * `event_class` column holds. Neither DC-03 nor DC-05 defines such classes; the tables that give a
 * device event its class are Vigil's (src/protocols/dc09/classify.ts, docs/dc09.md "Event
 * classification"). 'alarm' means a condition that needs attention: alarms, supervisory, troubles,
 * tampers, missing devices. 'internal' is the gateway's own events (src/internal-events/); a device
 * event is never 'internal'.
 */
export const EVENT_CLASSES = ['alarm', 'restore', 'link_test', 'internal', 'other'] as const;

export type EventClass = (typeof EVENT_CLASSES)[number];

/** The classes a device's event can have (classify.ts). */
export type DeviceEventClass = Exclude<EventClass, 'internal'>;
