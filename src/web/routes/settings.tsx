/** @jsxImportSource hono/jsx */
/**
 * GET /settings/:section and POST /settings/:section (scope `settings`, as GET/PUT /api/settings).
 * The form is generated from the settings schema; a post becomes the partial update
 * `{ "<section>": value }` that PUT /api/settings would receive and goes through the same
 * saveSettings (src/services/settings-access.ts). Invalid: nothing is saved, and each message is
 * shown beside the input its field path names. Saved: journaled with the user's login (section
 * name only).
 */
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { mayManageSettings, readSettings, saveSettings } from '../../services/settings-access.js';
import type { WebDeps, WebEnv } from '../web-deps.js';
import { forbidden, view } from '../page.js';
import { errorsByPath, readSection, type FormFields } from '../settings-form.js';
import { sectionShapes } from '../settings-shape.js';
import { SettingsView } from '../views/settings-view.js';

export function registerSettings(web: Hono<WebEnv>, deps: WebDeps, session: MiddlewareHandler<WebEnv>): void {
  const service = { settings: deps.settings, logger: deps.logger.child('web:settings') };
  const sections = sectionShapes();
  const names = sections.map((s) => s.key);

  function render(
    c: Context<WebEnv>,
    section: string,
    value: unknown,
    errors: Map<string, string[]>,
    notice: { ok: boolean; text: string } | null,
    status: 200 | 400 | 500 = 200,
  ) {
    const entry = sections.find((s) => s.key === section)!;
    return view(
      c,
      deps,
      'Settings',
      '/settings',
      <SettingsView
        sections={names}
        section={section}
        shape={entry.shape}
        value={value}
        errors={errors}
        notice={notice}
        csrf={c.get('session').csrf}
      />,
      status,
    );
  }

  /** The section as readSettings shows it, or null when the caller may not read the settings. */
  function current(c: Context<WebEnv>, section: string): unknown {
    const outcome = readSettings(service, c.get('principal'));
    return outcome.kind === 'ok' ? outcome.view[section] : null;
  }

  web.get('/settings', session, (c) => {
    if (readSettings(service, c.get('principal')).kind === 'forbidden') return forbidden(c, deps, '/settings');
    return c.redirect('/settings/general', 303);
  });

  web.get('/settings/:section', session, (c) => {
    const outcome = readSettings(service, c.get('principal'));
    if (outcome.kind === 'forbidden') return forbidden(c, deps, '/settings');
    const section = c.req.param('section');
    if (!names.includes(section)) return c.text('Not Found', 404);
    return render(c, section, outcome.view[section], new Map(), null);
  });

  web.post('/settings/:section', session, async (c) => {
    const { login, principal } = c.get('session');
    // The scope answers before the section name, as on the API (403 before anything else).
    if (!mayManageSettings(principal)) return forbidden(c, deps, '/settings');
    const section = c.req.param('section');
    const entry = sections.find((s) => s.key === section);
    if (!entry) return c.text('Not Found', 404);
    const fields = (await c.req.parseBody({ all: true })) as FormFields;
    const value = readSection(entry.shape, fields, section);
    let outcome;
    try {
      outcome = await saveSettings(service, principal, { [section]: value });
    } catch {
      return render(
        c,
        section,
        value,
        new Map(),
        { ok: false, text: 'The settings could not be saved (E_3). Nothing was changed.' },
        500,
      );
    }
    if (outcome.kind === 'forbidden') return forbidden(c, deps, '/settings');
    if (outcome.kind === 'invalid') return render(c, section, value, errorsByPath(outcome.errors), null, 400);
    deps.journalAction(login, `settings section ${section} saved`);
    return render(c, section, current(c, section), new Map(), {
      ok: true,
      text: 'Saved. Receiver and output changes apply after a restart of the services.',
    });
  });
}
