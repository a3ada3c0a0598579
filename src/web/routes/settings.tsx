/** @jsxImportSource hono/jsx */
/**
 * GET /settings/:section and POST /settings/:section (scope `settings`, as GET/PUT /api/settings).
 * The form is generated from the settings schema; a post becomes the partial update
 * `{ "<section>": value }` that PUT /api/settings would receive and goes through the same
 * SettingsService.update(). Invalid: nothing is saved, and each message is shown beside the
 * input its field path names. Saved: journaled with the user's login (section name only).
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { describeError } from '../../core/errors.js';
import type { WebDeps, WebEnv } from '../web-deps.js';
import { forbidden, view } from '../page.js';
import { errorsByPath, readSection, type FormFields } from '../settings-form.js';
import { sectionShapes } from '../settings-shape.js';
import { SettingsView } from '../views/settings-view.js';

export function registerSettings(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  const logger = deps.logger.child('web:settings');
  const sections = sectionShapes();
  const names = sections.map((s) => s.key);

  function render(c: Context<WebEnv>, section: string, value: unknown, errors: Map<string, string[]>, notice: { ok: boolean; text: string } | null, status: 200 | 400 | 500 = 200) {
    const entry = sections.find((s) => s.key === section)!;
    return view(
      c,
      deps,
      'Settings',
      '/settings',
      <SettingsView sections={names} section={section} shape={entry.shape} value={value} errors={errors} notice={notice} csrf={c.get('session').csrf} />,
      status,
    );
  }

  function current(section: string): unknown {
    return (deps.settingsView.publicView() as Record<string, unknown>)[section];
  }

  web.get('/settings', session, (c) => {
    if (!c.get('principal').scopes.has('settings')) return forbidden(c, deps, '/settings');
    return c.redirect('/settings/general', 303);
  });

  web.get('/settings/:section', session, (c) => {
    if (!c.get('principal').scopes.has('settings')) return forbidden(c, deps, '/settings');
    const section = c.req.param('section');
    if (!names.includes(section)) return c.text('Not Found', 404);
    return render(c, section, current(section), new Map(), null);
  });

  web.post('/settings/:section', session, async (c) => {
    if (!c.get('principal').scopes.has('settings')) return forbidden(c, deps, '/settings');
    const section = c.req.param('section');
    const entry = sections.find((s) => s.key === section);
    if (!entry) return c.text('Not Found', 404);
    const fields = (await c.req.parseBody({ all: true })) as FormFields;
    const value = readSection(entry.shape, fields, section);
    const { login, principal } = c.get('session');
    try {
      const result = await deps.settings.update({ [section]: value });
      if (!result.ok) return render(c, section, value, errorsByPath(result.errors), null, 400);
    } catch (err) {
      logger.error('settings update failed', { by: principal.subject, error: describeError(err) });
      return render(c, section, value, new Map(), { ok: false, text: 'The settings could not be saved (E_3). Nothing was changed.' }, 500);
    }
    logger.info('settings updated', { by: principal.subject, sections: section });
    deps.journalAction(login, `settings section ${section} saved`);
    return render(c, section, current(section), new Map(), { ok: true, text: 'Saved. Receiver and output changes apply after a restart of the services.' });
  });
}
