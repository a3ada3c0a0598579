/**
 * The `updates` settings section (docs/settings.md §updates, docs/updates.md "The update channel"): where
 * the box polls for system updates and when it may install them. A Vigil section, not in the contract.
 * Empty `channel_url` = no channel: updates arrive only by upload (the System view, the API, the CLI).
 */
import * as v from 'valibot';
import { bool, CONTROL_CHARACTERS, int, str } from './fields.js';

/** One week: a box that polls less often than that would miss a manifest's whole validity. */
export const MAX_POLL_MINUTES = 10_080;

const hhmm = v.pipe(str, v.regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a local time HH:MM (00:00 to 23:59)'));

const channelUrl = v.pipe(
  str,
  v.maxLength(2048, 'must be at most 2048 characters'),
  v.check((s) => s === '' || isHttpsUrl(s), 'must be empty or an https:// URL'),
);

function isHttpsUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
  } catch {
    return false;
  }
}

export const updatesEntries = {
  channel_url: v.optional(channelUrl, ''),
  // Empty = Node's own list of public CAs. A path is read and checked when an update names it (pem-check.ts).
  ca_file: v.optional(
    v.pipe(
      str,
      v.check((s) => !CONTROL_CHARACTERS.test(s), 'must not contain control characters'),
    ),
    '',
  ),
  poll_interval_minutes: v.optional(int(1, MAX_POLL_MINUTES), 60),
  // The box's local time (general time zone, first boot's setting); start = end is the whole day.
  window_start: v.optional(hhmm, '02:00'),
  window_end: v.optional(hhmm, '05:00'),
  auto_install: v.optional(bool, true),
  auto_reboot: v.optional(bool, true),
};
