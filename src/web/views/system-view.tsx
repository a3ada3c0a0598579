/** @jsxImportSource hono/jsx */
/**
 * System (scope `system_update`, docs/web.md "System", docs/backup.md "Page"): what runs, how the last
 * run ended, a staged restore; a backup download, a restore upload and a gateway restart. The upload is
 * the one form that needs the page's script: it sends the file as the raw request body (never held
 * whole in memory), with a progress bar; without the script the view points to `vigil restore`.
 */
import type { SystemReport } from '../../services/system-service.js';
import { MIN_PASSPHRASE_LENGTH } from '../../backup/backup-format.js';
import { CSRF_FIELD } from '../session.js';
import { Field } from './fields.js';
import { utc } from './format.js';
import { UpdateSection } from './system-update-view.js';

export interface SystemViewProps {
  readonly csrf: string;
  readonly report: SystemReport;
  readonly notice: { readonly ok: boolean; readonly text: string } | null;
  /** Errors of the backup form, by field (`passphrase`, `passphrase_again`). */
  readonly backupErrors?: Readonly<Record<string, readonly string[]>>;
}

function Facts(props: { report: SystemReport }) {
  const { report } = props;
  const lastRun = report.last_run;
  return (
    <dl class="facts" id="system-facts">
      <dt>Running version</dt>
      <dd data-fact="version">{report.version}</dd>
      <dt>Instance</dt>
      <dd data-fact="instance">{report.instance_name || '(no name)'}</dd>
      <dt>Instance id</dt>
      <dd data-fact="instance-id" class="mono">
        {report.instance_id ?? 'none yet (assigned when a MySQL mirror or the update channel first needs it)'}
      </dd>
      <dt>Started</dt>
      <dd>{utc(report.started_at)}</dd>
      <dt>Last run ended</dt>
      <dd data-fact="last-run">
        {lastRun
          ? `${lastRun.detail ?? lastRun.how ?? 'unknown'}${lastRun.at ? ` (${utc(lastRun.at)})` : ''}`
          : 'not known yet'}
      </dd>
      <dt>Free space for data</dt>
      <dd>{report.data_free_mib === null ? 'not measured' : `${report.data_free_mib} MiB`}</dd>
    </dl>
  );
}

function Pending(props: { report: SystemReport }) {
  const pending = props.report.restore_pending;
  if (!pending) return <p data-fact="restore-pending">No restore is staged.</p>;
  return (
    <p class="alert info" data-fact="restore-pending">
      A restore is staged: the backup of {pending.instance_name || 'a box'} made {utc(pending.created_at)} by version{' '}
      {pending.app_version}
      {pending.journal ? ', with its journal' : ', without a journal'}. It replaces this box's data at the next start of
      the gateway.
    </p>
  );
}

export function SystemView(props: SystemViewProps) {
  const { report, csrf } = props;
  const errors = props.backupErrors ?? {};
  return (
    <>
      {props.notice && (
        <p class={props.notice.ok ? 'alert ok' : 'alert error'} role="status">
          {props.notice.text}
        </p>
      )}
      <section class="card">
        <h2>This box</h2>
        <Facts report={report} />
        <Pending report={report} />
      </section>

      <UpdateSection report={report} csrf={csrf} />

      <section class="card">
        <h2>Download a backup</h2>
        <p>
          One file with everything needed to rebuild this box on a new card: settings with their secrets, users and
          grants, OID overrides, objects, output cursors and the box's TLS key pair, encrypted with the passphrase you
          choose here. Keep the passphrase apart from the file: without it the file cannot be opened, by anyone.
        </p>
        <form method="post" action="/system/backup" class="stack" id="backup-form">
          <input type="hidden" name={CSRF_FIELD} value={csrf} />
          <Field
            name="passphrase"
            label="Passphrase"
            type="password"
            required
            autocomplete="new-password"
            hint={`at least ${MIN_PASSPHRASE_LENGTH} characters`}
            errors={errors.passphrase}
          />
          <Field
            name="passphrase_again"
            label="The same passphrase again"
            type="password"
            required
            autocomplete="new-password"
            errors={errors.passphrase_again}
          />
          <label class="check">
            <input type="checkbox" name="journal" value="1" /> Include the event journal (larger file)
          </label>
          <div>
            <button type="submit" class="primary">
              Download backup
            </button>
          </div>
        </form>
      </section>

      <section class="card">
        <h2>Restore a backup</h2>
        <p>
          The file is checked completely (passphrase, every byte) before anything is kept; a wrong passphrase or a
          damaged file changes nothing. A checked backup replaces this box's data at the next start of the gateway; the
          replaced files are kept in the data directory.
        </p>
        <form
          method="post"
          action="/system/restore"
          enctype="multipart/form-data"
          class="stack"
          id="restore-form"
          data-upload="/system/restore"
        >
          <label for="f-restore-file">
            Backup file
            <input id="f-restore-file" name="file" type="file" accept=".vbk" required />
          </label>
          <Field
            name="restore_passphrase"
            label="Passphrase of the backup"
            type="password"
            required
            autocomplete="off"
          />
          <label class="check">
            <input type="checkbox" name="new_identity" value="1" /> Restore as a new box (a copy beside the original:
            new instance id)
          </label>
          <progress id="restore-progress" max="100" value="0" hidden></progress>
          <p id="restore-result" role="status"></p>
          <noscript>
            <p class="alert info">
              Uploading a backup needs this page's script. Without it, copy the file to the box and run vigil restore.
            </p>
          </noscript>
          <div>
            <button type="submit" class="primary">
              Check and stage
            </button>
          </div>
        </form>
      </section>

      {report.restart_available && (
        <section class="card">
          <h2>Restart the gateway</h2>
          <p>
            The gateway stops cleanly and the system starts it again within seconds
            {report.restore_pending ? ', applying the staged restore' : ''}. Devices are disconnected meanwhile and
            reconnect by themselves.
          </p>
          <form method="post" action="/system/restart" class="stack" data-confirm="Restart the gateway now?">
            <input type="hidden" name={CSRF_FIELD} value={csrf} />
            <label class="check">
              <input type="checkbox" name="confirm" value="yes" required /> I understand that the gateway is offline for
              a few seconds
            </label>
            <div>
              <button type="submit" class="danger">
                Restart gateway
              </button>
            </div>
          </form>
        </section>
      )}
    </>
  );
}
