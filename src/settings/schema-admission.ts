/**
 * Section `admission` (Vigil's, not in the contract; docs/settings.md §admission, docs/security.md
 * "Admission"): the limits of the one admission component (src/core/admission/) that every door a
 * stranger can reach takes its share from. Defaults are safe for a Pi on the internet and generous
 * for a real site: panels behind one carrier NAT share an address, so per-source allowances are
 * large, and totals leave room for a whole fleet reconnecting after an outage.
 */
import * as v from 'valibot';
import type { AdmissionLimits } from '../core/admission/admission.js';
import { int } from './fields.js';

export const ADMISSION_DEFAULTS = Object.freeze({
  max_sockets: 0,
  max_sockets_per_source: 1024,
  known_reserve_percent: 5,
  api_max_sockets: 512,
  api_max_sockets_per_source: 32,
  api_accepts_per_source_per_min: 300,
  api_stranger_accepts_per_s: 20,
  tls_handshake_timeout_s: 10,
  request_headers_timeout_s: 10,
  status_output_connects_per_source_per_min: 6,
  udp_stranger_datagrams_per_s: 2000,
  link_hellos_per_source_per_min: 600,
  link_stranger_hellos_per_s: 100,
  new_objects_per_source_per_hour: 250,
  new_objects_per_receiver_per_hour: 500,
  new_objects_per_hour: 1000,
  enrolments_per_source_per_hour: 20,
  enrolments_per_hour: 200,
} satisfies AdmissionLimits);

export const admissionEntries = {
  // 0: the open-files limit less a reserve of 1,024 descriptors (docs/security.md "Admission").
  max_sockets: v.optional(int(0, 1_000_000, 'must be between 0 and 1000000 (0: from the open-files limit)'), 0),
  max_sockets_per_source: v.optional(int(1, 1_000_000), ADMISSION_DEFAULTS.max_sockets_per_source),
  known_reserve_percent: v.optional(int(0, 50), ADMISSION_DEFAULTS.known_reserve_percent),
  api_max_sockets: v.optional(int(8, 100_000), ADMISSION_DEFAULTS.api_max_sockets),
  api_max_sockets_per_source: v.optional(int(2, 10_000), ADMISSION_DEFAULTS.api_max_sockets_per_source),
  api_accepts_per_source_per_min: v.optional(int(10, 100_000), ADMISSION_DEFAULTS.api_accepts_per_source_per_min),
  api_stranger_accepts_per_s: v.optional(int(1, 100_000), ADMISSION_DEFAULTS.api_stranger_accepts_per_s),
  tls_handshake_timeout_s: v.optional(int(1, 120), ADMISSION_DEFAULTS.tls_handshake_timeout_s),
  request_headers_timeout_s: v.optional(int(1, 300), ADMISSION_DEFAULTS.request_headers_timeout_s),
  status_output_connects_per_source_per_min: v.optional(
    int(1, 10_000),
    ADMISSION_DEFAULTS.status_output_connects_per_source_per_min,
  ),
  udp_stranger_datagrams_per_s: v.optional(int(1, 1_000_000), ADMISSION_DEFAULTS.udp_stranger_datagrams_per_s),
  link_hellos_per_source_per_min: v.optional(int(1, 100_000), ADMISSION_DEFAULTS.link_hellos_per_source_per_min),
  link_stranger_hellos_per_s: v.optional(int(1, 100_000), ADMISSION_DEFAULTS.link_stranger_hellos_per_s),
  new_objects_per_source_per_hour: v.optional(int(1, 1_000_000), ADMISSION_DEFAULTS.new_objects_per_source_per_hour),
  new_objects_per_receiver_per_hour: v.optional(
    int(1, 1_000_000),
    ADMISSION_DEFAULTS.new_objects_per_receiver_per_hour,
  ),
  new_objects_per_hour: v.optional(int(1, 1_000_000), ADMISSION_DEFAULTS.new_objects_per_hour),
  enrolments_per_source_per_hour: v.optional(int(1, 100_000), ADMISSION_DEFAULTS.enrolments_per_source_per_hour),
  enrolments_per_hour: v.optional(int(1, 1_000_000), ADMISSION_DEFAULTS.enrolments_per_hour),
};
