/** @jsxImportSource hono/jsx */
/**
 * GET/POST /device and POST /device/stream (scope `device_control`; `omit_mpass` applies as in the
 * API). The form goes to runDeviceCommand (src/services/devices-service.ts), the function the
 * API's command endpoints call: the same scope, parser, visible receivers and port; the reply is
 * the API's reply body (controlReply / configReply). /device/stream answers with Server-Sent
 * Events: one `packet` per reply packet as it arrives, then `result`. Every command is journaled
 * with the user's login.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { CommandKind } from '../../core/device-commands.js';
import { MAX_PARTIAL_UID_DIGITS } from '../../services/device-request.js';
import { replyHead } from '../../services/device-reply.js';
import { configReply, controlReply } from '../../services/device-reply.js';
import { mayCommandDevices, runDeviceCommand, type DeviceCommandResult } from '../../services/devices-service.js';
import type { WebDeps, WebEnv } from '../web-deps.js';
import { forbidden, view } from '../page.js';
import { DeviceView, summary, type DeviceForm } from '../views/device-view.js';
import { explain } from '../device-words.js';

function text(value: unknown): string {
  return typeof value === 'string' ? value.trim() : '';
}

async function readForm(c: Context<WebEnv>): Promise<DeviceForm> {
  const body = await c.req.parseBody();
  return {
    kind: body.kind === 'config' ? 'config' : 'control',
    partial_uid: text(body.partial_uid),
    data: text(body.data).replace(/\s+/g, ''),
    cloud_access_code: typeof body.cloud_access_code === 'string' ? body.cloud_access_code : '',
    request_id: text(body.request_id),
    response_required: body.response_required === 'true',
  };
}

/** The request body the API would receive for this form. */
function requestBody(form: DeviceForm): Record<string, unknown> {
  return {
    partial_uid: form.partial_uid,
    data: form.data,
    response_required: form.response_required,
    ...(form.cloud_access_code !== '' && { cloud_access_code: form.cloud_access_code }),
    ...(form.request_id !== '' && { request_id: form.request_id }),
  };
}

/** The service's verdicts on the request, put beside the field they concern. */
function fieldErrors(result: DeviceCommandResult): Record<string, string[]> | null {
  switch (result.kind) {
    case 'uid-missing':
      return { partial_uid: [`FIELD_UID_IS_MISSING: ${explain('FIELD_UID_IS_MISSING')}`] };
    case 'data-invalid':
      return { data: [`INVALID_DATA: ${explain('INVALID_DATA')}`] };
    case 'invalid':
      return { partial_uid: [`Invalid request: the partial UID must be 1 to ${MAX_PARTIAL_UID_DIGITS} hex digits`] };
    default:
      return null;
  }
}

const EMPTY: DeviceForm = {
  kind: 'control',
  partial_uid: '',
  data: '',
  cloud_access_code: '',
  request_id: '',
  response_required: true,
};

export function registerDevice(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  const service = { devices: deps.devices, logger: deps.logger.child('web:device') };

  async function run(c: Context<WebEnv>, form: DeviceForm, onPacket?: (p: Buffer, n: number) => void) {
    const kind = form.kind as CommandKind;
    const result = await runDeviceCommand(service, c.get('principal'), kind, requestBody(form), onPacket);
    if (result.kind !== 'done') return { result, reply: null };
    const reply =
      kind === 'control' ? controlReply(result.request, result.outcome) : configReply(result.request, result.outcome);
    const said = typeof reply.error === 'string' ? reply.error : 'ok';
    const partialUid = result.request.partialUid.toUpperCase();
    deps.journalAction(
      c.get('session').login,
      `${kind} to partial UID ${partialUid}, ${result.request.data.length} bytes: ${said}`,
    );
    return { result, reply };
  }

  const allowed = (c: Context<WebEnv>) => mayCommandDevices(c.get('principal'));

  web.get('/device', session, (c) => {
    if (!allowed(c)) return forbidden(c, deps, '/device');
    return view(
      c,
      deps,
      'Device',
      '/device',
      <DeviceView form={EMPTY} errors={{}} result={null} csrf={c.get('session').csrf} />,
    );
  });

  web.post('/device', session, async (c) => {
    if (!allowed(c)) return forbidden(c, deps, '/device');
    const form = await readForm(c);
    const csrf = c.get('session').csrf;
    const { result, reply } = await run(c, form);
    if (result.kind === 'forbidden') return forbidden(c, deps, '/device');
    const errors = fieldErrors(result);
    if (errors || !reply)
      return view(
        c,
        deps,
        'Device',
        '/device',
        <DeviceView form={form} errors={errors ?? {}} result={null} csrf={csrf} />,
        400,
      );
    return view(c, deps, 'Device', '/device', <DeviceView form={form} errors={{}} result={{ reply }} csrf={csrf} />);
  });

  web.post('/device/stream', session, async (c) => {
    if (!allowed(c)) return c.text('FORBIDDEN', 403);
    const form = await readForm(c);
    return streamSSE(c, async (stream) => {
      let writes = Promise.resolve();
      const { result, reply } = await run(c, form, (packet, number) => {
        writes = writes.then(() =>
          stream.writeSSE({
            event: 'packet',
            data: JSON.stringify({ number, hex: packet.toString('hex').toUpperCase() }),
          }),
        );
      });
      await writes;
      if (!reply) {
        const [field, messages] = Object.entries(fieldErrors(result) ?? { partial_uid: ['FORBIDDEN'] })[0]!;
        const refused = { ...replyHead({ partialUid: form.partial_uid }), error: messages[0]!.split(':')[0]! };
        await stream.writeSSE({
          event: 'result',
          data: JSON.stringify({ ok: false, field, summary: messages[0], reply: refused }),
        });
        return;
      }
      const said = summary(reply);
      await stream.writeSSE({ event: 'result', data: JSON.stringify({ ok: said.ok, summary: said.text, reply }) });
    });
  });
}
