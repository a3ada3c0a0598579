/** @jsxImportSource hono/jsx */
/**
 * GET/POST /device and POST /device/stream (scope `device_control`; `omit_mpass` applies as in the
 * API). The request is parsed by the API's parser and sent through the same DeviceCommandPort with
 * the caller's visible receivers; the reply is the API's reply body (controlReply / configReply).
 * /device/stream answers with Server-Sent Events: one `packet` per reply packet as it arrives,
 * then `result`. Every command is journaled with the user's login.
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { streamSSE } from 'hono/streaming';
import type { CommandKind } from '../../core/device-commands.js';
import { MAX_PARTIAL_UID_DIGITS, parseDeviceRequest, replyHead, type ParsedDeviceRequest } from '../../api/device-request.js';
import { commandRequest, configReply, controlReply } from '../../api/routes/devices.js';
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

type Checked = { ok: true; request: ParsedDeviceRequest } | { ok: false; errors: Record<string, string[]> };

/** The API's parser, with its verdicts put beside the field they concern. */
function check(form: DeviceForm): Checked {
  const verdict = parseDeviceRequest({
    partial_uid: form.partial_uid,
    data: form.data,
    response_required: form.response_required,
    ...(form.cloud_access_code !== '' && { cloud_access_code: form.cloud_access_code }),
    ...(form.request_id !== '' && { request_id: form.request_id }),
  });
  switch (verdict.kind) {
    case 'ok':
      return { ok: true, request: verdict.request };
    case 'uid-missing':
      return { ok: false, errors: { partial_uid: [`FIELD_UID_IS_MISSING: ${explain('FIELD_UID_IS_MISSING')}`] } };
    case 'data-invalid':
      return { ok: false, errors: { data: [`INVALID_DATA: ${explain('INVALID_DATA')}`] } };
    case 'invalid':
      return { ok: false, errors: { partial_uid: [`Invalid request: the partial UID must be 1 to ${MAX_PARTIAL_UID_DIGITS} hex digits`] } };
  }
}

const EMPTY: DeviceForm = { kind: 'control', partial_uid: '', data: '', cloud_access_code: '', request_id: '', response_required: true };

export function registerDevice(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  const logger = deps.logger.child('web:device');

  async function run(c: Context<WebEnv>, kind: CommandKind, request: ParsedDeviceRequest, onPacket?: (p: Buffer, n: number) => void) {
    const { principal, login } = c.get('session');
    const outcome = await deps.devices.execute(commandRequest(kind, request, principal, onPacket));
    const reply = kind === 'control' ? controlReply(request, outcome) : configReply(request, outcome);
    const result = typeof reply.error === 'string' ? reply.error : 'ok';
    logger.info('device command', { kind, by: principal.subject, partial_uid: request.partialUid, result });
    deps.journalAction(login, `${kind} to partial UID ${request.partialUid.toUpperCase()}, ${request.data.length} bytes: ${result}`);
    return reply;
  }

  const allowed = (c: Context<WebEnv>) => c.get('principal').scopes.has('device_control');

  web.get('/device', session, (c) => {
    if (!allowed(c)) return forbidden(c, deps, '/device');
    return view(c, deps, 'Device', '/device', <DeviceView form={EMPTY} errors={{}} result={null} csrf={c.get('session').csrf} />);
  });

  web.post('/device', session, async (c) => {
    if (!allowed(c)) return forbidden(c, deps, '/device');
    const form = await readForm(c);
    const checked = check(form);
    const csrf = c.get('session').csrf;
    if (!checked.ok) return view(c, deps, 'Device', '/device', <DeviceView form={form} errors={checked.errors} result={null} csrf={csrf} />, 400);
    const reply = await run(c, form.kind as CommandKind, checked.request);
    return view(c, deps, 'Device', '/device', <DeviceView form={form} errors={{}} result={{ reply }} csrf={csrf} />);
  });

  web.post('/device/stream', session, async (c) => {
    if (!allowed(c)) return c.text('FORBIDDEN', 403);
    const form = await readForm(c);
    const checked = check(form);
    return streamSSE(c, async (stream) => {
      if (!checked.ok) {
        const [field, messages] = Object.entries(checked.errors)[0]!;
        const reply = { ...replyHead({ partialUid: form.partial_uid }), error: messages[0]!.split(':')[0]! };
        await stream.writeSSE({ event: 'result', data: JSON.stringify({ ok: false, field, summary: messages[0], reply }) });
        return;
      }
      let writes = Promise.resolve();
      const reply = await run(c, form.kind as CommandKind, checked.request, (packet, number) => {
        writes = writes.then(() => stream.writeSSE({ event: 'packet', data: JSON.stringify({ number, hex: packet.toString('hex').toUpperCase() }) }));
      });
      await writes;
      const said = summary(reply);
      await stream.writeSSE({ event: 'result', data: JSON.stringify({ ok: said.ok, summary: said.text, reply }) });
    });
  });
}
