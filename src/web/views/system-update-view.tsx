/** @jsxImportSource hono/jsx */
/**
 * The update part of the System view (docs/updates.md "Page"): the running version and slot, the other
 * slot's version and state, the last update and an unacknowledged rollback; the update channel (what it
 * offers, what the box does about it, its last error) with Check now; an upload of a bundle with a
 * progress bar (the page's script sends it as the raw body, like a restore), reboot now, acknowledge.
 */
import type { SystemReport } from '../../services/system-service.js';
import type { SlotReport } from '../../update/update-system.js';
import { CSRF_FIELD } from '../session.js';
import { utc } from './format.js';

function slotLine(slot: SlotReport): string {
  const parts = [slot.version ? `version ${slot.version}` : 'version unknown', slot.state];
  if (slot.boot_status) parts.push(slot.boot_status);
  if (slot.trial) parts.push('on trial (not confirmed yet)');
  if (slot.tries_left !== null) parts.push(`${slot.tries_left} boot tries left`);
  return parts.join(', ');
}

function LastUpdate(props: { report: SystemReport }) {
  const update = props.report.update;
  if (!update) return <p data-fact="last-update">No system update was installed on this box yet.</p>;
  const words = {
    pending: 'installed, waiting to be started and confirmed',
    confirmed: 'confirmed',
    rolled_back: 'rolled back',
  }[update.outcome];
  return (
    <p data-fact="last-update">
      Last update: {update.from_version} → {update.to_version} in slot {update.slot}, installed{' '}
      {utc(update.installed_at)}: <strong>{words}</strong>
      {update.reason ? ` (${update.reason})` : ''}.
    </p>
  );
}

function Channel(props: { report: SystemReport; csrf: string }) {
  const channel = props.report.channel;
  if (!channel) return null;
  if (!channel.url)
    return (
      <p data-fact="channel">
        No update channel: this box installs only bundles uploaded here or over the API (Settings, section updates).
      </p>
    );
  const m = channel.manifest;
  return (
    <div class="stack" data-fact="channel">
      <h3>Update channel</h3>
      <dl class="facts">
        <dt>Channel</dt>
        <dd data-fact="channel-url">{channel.url}</dd>
        <dt>State</dt>
        <dd data-fact="channel-state">
          {channel.state}
          {channel.progress ? `: ${channel.progress.percent} % ${channel.progress.step}` : ''}
          {channel.last_check_at ? `; last check ${utc(channel.last_check_at)}` : ''}
          {channel.next_check_at ? `; next ${utc(channel.next_check_at)}` : ''}
        </dd>
        {m && (
          <>
            <dt>Offered</dt>
            <dd data-fact="channel-offer">
              version {m.version} (manifest {m.serial}, valid until {utc(m.expires_at)}); current wave {m.wave_percent}{' '}
              %{channel.bucket !== null ? `, this box's place ${channel.bucket}` : ''}
            </dd>
          </>
        )}
        {channel.decision && (
          <>
            <dt>This box</dt>
            <dd data-fact="channel-decision">{channel.decision}</dd>
          </>
        )}
        {channel.last_install && (
          <>
            <dt>Last install</dt>
            <dd data-fact="channel-install">
              {channel.last_install.version} at {utc(channel.last_install.at)}: {channel.last_install.result}
            </dd>
          </>
        )}
      </dl>
      {channel.error && (
        <p class="alert error" data-fact="channel-error">
          {channel.error.code}: {channel.error.message} ({utc(channel.error.at)})
        </p>
      )}
      <form method="post" action="/system/update/check">
        <input type="hidden" name={CSRF_FIELD} value={props.csrf} />
        <button type="submit">Check now</button>
      </form>
    </div>
  );
}

export function UpdateSection(props: { report: SystemReport; csrf: string }) {
  const { report, csrf } = props;
  const slots = report.slots;
  if (!slots) {
    return (
      <section class="card" id="updates">
        <h2>System updates</h2>
        <p data-fact="slots">
          Not available on this system: it has no A/B system slots or no RAUC (docs/updates.md). Running version{' '}
          {report.version}.
        </p>
      </section>
    );
  }
  const other = slots.booted === 'A' ? 'B' : 'A';
  return (
    <section class="card" id="updates">
      <h2>System updates</h2>
      {report.rollback_unacknowledged && (
        <div class="alert error" data-fact="rollback">
          <p>
            The last update did not come up healthy and the box returned to this version by itself:{' '}
            {report.update?.reason}.
          </p>
          <form method="post" action="/system/update/acknowledge">
            <input type="hidden" name={CSRF_FIELD} value={csrf} />
            <button type="submit">Acknowledge the rollback</button>
          </form>
        </div>
      )}
      <dl class="facts">
        <dt>Running</dt>
        <dd data-fact="running-slot">
          slot {slots.booted}, {slotLine(slots[slots.booted])}
        </dd>
        <dt>Other slot ({other})</dt>
        <dd data-fact="other-slot">{slotLine(slots[other])}</dd>
        <dt>Next boot</dt>
        <dd data-fact="next-boot">slot {slots.primary ?? slots.booted}</dd>
      </dl>
      <LastUpdate report={report} />
      <Channel report={report} csrf={csrf} />
      <h3>Install a bundle</h3>
      <form
        method="post"
        action="/system/update"
        enctype="multipart/form-data"
        class="stack"
        id="update-form"
        data-update-upload="/system/update"
      >
        <label for="f-update-file">
          Update bundle (.raucb)
          <input id="f-update-file" name="file" type="file" accept=".raucb" required />
        </label>
        <label class="check">
          <input type="checkbox" name="allow_downgrade" value="1" /> Allow an older version (downgrade)
        </label>
        <progress id="update-progress" max="100" value="0" hidden></progress>
        <p id="update-result" role="status"></p>
        <noscript>
          <p class="alert info">Uploading a bundle needs this page's script. Without it, run vigil update install.</p>
        </noscript>
        <div>
          <button type="submit" class="primary">
            Check and install
          </button>
        </div>
      </form>
      <form method="post" action="/system/reboot" class="stack" data-confirm="Reboot the box now?">
        <input type="hidden" name={CSRF_FIELD} value={csrf} />
        <label class="check">
          <input type="checkbox" name="confirm" value="yes" required /> I understand that the box is offline for about a
          minute
          {slots.primary && slots.primary !== slots.booted ? ` and starts the update in slot ${slots.primary}` : ''}
        </label>
        <div>
          <button type="submit" class="danger">
            Reboot now
          </button>
        </div>
      </form>
    </section>
  );
}
