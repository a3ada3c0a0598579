/**
 * What GET /api/settings shows. Decision (docs/settings.md §public view): every field of the
 * contract stays visible except secrets. The JWT secret and the users' password hashes are left
 * out entirely; the other secrets (sqlpass, device_status_output.encryption_key, receiver
 * encryption passwords, modem SIM PINs, SIA-DC09 output keys, webhook secrets) read "********" when set and ""
 * when not, so a client can tell whether one is configured. Sending "********" back in an update
 * keeps the stored value (merge.ts), so a view can be edited and PUT back as is.
 */
import { SECRET_MASK } from './fields.js';
import type { ApiSettings, Settings, UserSettings } from './schema.js';

export type PublicSettings = Omit<Settings, 'api' | 'users'> & {
  api: Omit<ApiSettings, 'api_jwt_secret'>;
  users: Omit<UserSettings, 'password_hash'>[];
};

function mask(value: string): string;
function mask(value: string | undefined): string | undefined;
function mask(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? value : SECRET_MASK;
}

export function toPublicView(settings: Settings): PublicSettings {
  const s = structuredClone(settings) as Settings;
  const { api_jwt_secret: _secret, ...api } = s.api;
  const users = s.users.map(({ password_hash: _hash, ...user }) => user);
  s.database.sqlpass = mask(s.database.sqlpass);
  s.device_status_output.encryption_key = mask(s.device_status_output.encryption_key);
  for (const r of [...s.receivers.tcp_receivers, ...s.receivers.udp_receivers]) {
    if (r.encryption_password !== undefined) r.encryption_password = mask(r.encryption_password);
  }
  for (const r of s.receivers.modem_receivers) {
    if (r.encryption_password !== undefined) r.encryption_password = mask(r.encryption_password);
    if (r.sim_pin !== undefined) r.sim_pin = mask(r.sim_pin);
  }
  for (const o of s.outputs) {
    if (o.sia_dc09) o.sia_dc09.encryption_key = mask(o.sia_dc09.encryption_key);
    if (o.webhook) o.webhook.secret = mask(o.webhook.secret);
  }
  return { ...s, api, users };
}
