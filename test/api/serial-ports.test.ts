import { join } from 'node:path';
import { test } from 'uvu';
import { ADMIN, USB_BY_ID, VIEWER, call, createHarness, expectResponse, type Harness } from './harness.js';

let h: Harness;
test.before.each(async () => {
  h = await createHarness();
});
test.after.each(async () => {
  await h.close();
});

test('GET /api/serial-ports needs a token and the settings scope', async () => {
  await expectResponse(await call(h, 'GET', '/api/serial-ports'), 401, 'NOT_LOGGED_IN');
  await expectResponse(
    await call(h, 'GET', '/api/serial-ports', { token: await h.token(VIEWER.id) }),
    403,
    'FORBIDDEN',
  );
  await expectResponse(
    await call(h, 'POST', '/api/serial-ports', { token: await h.token(ADMIN.id) }),
    405,
    'Method Not Allowed',
  );
});

test('GET /api/serial-ports lists each device once with its by-id names, and who the settings say uses it', async () => {
  const dev = join(h.dbPath, '..', 'dev');
  const byId = join(dev, 'serial', 'by-id', USB_BY_ID);
  const token = await h.token(ADMIN.id);
  await expectResponse(await call(h, 'GET', '/api/serial-ports', { token }), 200, {
    ports: [{ port_id: byId, device: join(dev, 'ttyUSB0'), by_id: [byId], source: 'by-id', used_by: [] }],
  });
});

test.run();
