/**
 * Webhook outputs through PUT / GET /api/settings: a bad URL is 400 with its field path and changes nothing;
 * a good one is stored and its secret reads "********" in the public view and never appears in an answer.
 */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ADMIN, call, createHarness, expectResponse, type Harness } from './harness.js';

const SECRET = 'webhook-secret-for-the-api-test';

let h: Harness;
let admin: string;
test.before.each(async () => {
  h = await createHarness();
  admin = await h.token(ADMIN.id);
});
test.after.each(async () => {
  await h.close();
});

function webhookOutput(identificator: string, secret = SECRET): Record<string, unknown> {
  return {
    id: 3,
    name: 'Hook',
    type: 4,
    protocol: 'JSON',
    identificator,
    oid: 1,
    receiver_number: 0,
    line_number: 0,
    webhook: { secret },
  };
}

test('a webhook URL that is not https is 400 with its field path, and nothing changes', async () => {
  const before = h.settings.current().outputs;
  const res = await call(h, 'PUT', '/api/settings', {
    token: admin,
    body: { outputs: [webhookOutput('http://192.0.2.7/hook')] },
  });
  await expectResponse(
    res,
    400,
    'outputs[0].identificator: must be https:// (plain http:// only to a loopback address such as 127.0.0.1 or [::1])',
  );
  assert.equal(h.settings.current().outputs, before);
  const short = await call(h, 'PUT', '/api/settings', {
    token: admin,
    body: { outputs: [webhookOutput('https://hooks.example.net/', 'tiny-secret')] },
  });
  const text = await short.text();
  assert.is(short.status, 400);
  assert.is(text, 'outputs[0].webhook.secret: must be 16 to 256 printable ASCII characters');
});

test('a webhook output is stored; GET shows its secret masked and PUT of the view keeps it', async () => {
  await expectResponse(
    await call(h, 'PUT', '/api/settings', {
      token: admin,
      body: { outputs: [webhookOutput('https://hooks.example.net/in')] },
    }),
    200,
    { success: true },
  );
  assert.is(h.settings.current().outputs[0]!.webhook!.secret, SECRET);
  const res = await call(h, 'GET', '/api/settings', { token: admin });
  const text = await res.clone().text();
  assert.not.ok(text.includes(SECRET));
  const view = (await res.json()) as { outputs: { webhook: { secret: string } }[] };
  assert.is(view.outputs[0]!.webhook.secret, '********');
  await expectResponse(await call(h, 'PUT', '/api/settings', { token: admin, body: { outputs: view.outputs } }), 200, {
    success: true,
  });
  assert.is(h.settings.current().outputs[0]!.webhook!.secret, SECRET);
});

test.run();
