/** Which settings name which serial device: COM and modem receivers by `port_id`, serial (type 3) outputs by `identificator`. */
import { OUTPUT_TYPES } from './schema-outputs.js';
import type { Settings } from './schema.js';

/** Path -> the settings paths that name it, in settings order (`receivers.com_receivers[0]`, `outputs[2]`). */
export function configuredSerialPorts(settings: Pick<Settings, 'receivers' | 'outputs'>): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const add = (path: string, user: string): void => {
    const users = found.get(path);
    if (users) users.push(user);
    else found.set(path, [user]);
  };
  for (const list of ['com_receivers', 'modem_receivers'] as const) {
    for (const [i, r] of settings.receivers[list].entries()) add(r.port_id, `receivers.${list}[${i}]`);
  }
  settings.outputs.forEach((o, i) => {
    if (o.type === OUTPUT_TYPES.com) add(o.identificator, `outputs[${i}]`);
  });
  return found;
}
