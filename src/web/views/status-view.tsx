/** @jsxImportSource hono/jsx */
/**
 * Status: every component of the health registry with its state, since when and its figures.
 * Receivers and outputs get their own tables (connected devices, backlog, last ACK); every other
 * kind (store, api, jobs, serial ports, modems, ...) is listed generically with all its figures,
 * so components added by other parts of Vigil show up without a change here.
 */
import type { StatusBody, StatusComponent } from '../../services/status-body.js';
import { outputLinkSummary } from '../../services/output-link.js';
import { ago, duration, figure, label, utc } from './format.js';

export function StatePill(props: { state: string }) {
  return <span class={`pill state-${props.state}`}>{props.state}</span>;
}

function Since(props: { since: string; now: number }) {
  return <span title={utc(props.since)}>{ago(props.since, props.now)}</span>;
}

/** Figures named `*_at` holding ms since the epoch are moments: shown as an age. */
function shown(key: string, value: StatusComponent['metrics'][string], now: number): string {
  if (key.endsWith('_at') && typeof value === 'number' && value > 1e12) return ago(value, now);
  return figure(value);
}

function Figures(props: { metrics: StatusComponent['metrics']; now: number; skip?: readonly string[] }) {
  const entries = Object.entries(props.metrics).filter(([k]) => !(props.skip ?? []).includes(k));
  if (entries.length === 0) return null;
  return (
    <dl class="figures">
      {entries.map(([k, v]) => (
        <div>
          <dt>{label(k)}</dt>
          <dd>{shown(k, v, props.now)}</dd>
        </div>
      ))}
    </dl>
  );
}

function num(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}

/** A modem receiver's signal (csq 0..31, 99 unknown; RSSI in dBm) and registration, else null. */
function signal(m: StatusComponent['metrics']): string | null {
  if (m.csq === undefined && m.rssi_dbm === undefined) return null;
  const csq = typeof m.csq === 'number' ? (m.csq === 99 ? 'unknown' : `csq ${m.csq}`) : '—';
  const dbm = typeof m.rssi_dbm === 'number' ? ` (${m.rssi_dbm} dBm)` : '';
  const reg = m.registered === false ? ', not registered' : '';
  return `${csq}${dbm}${reg}`;
}

function ReceiversTable(props: { rows: StatusComponent[]; now: number; names: ComponentNames }) {
  if (props.rows.length === 0)
    return <p class="empty">No receivers are running. Configure them under Settings → receivers.</p>;
  const modems = props.rows.some((r) => signal(r.metrics) !== null);
  return (
    <div class="table-wrap">
      <table class="grid stack-narrow">
        <thead>
          <tr>
            <th>Receiver</th>
            <th>State</th>
            <th>Since</th>
            <th class="num">Connected</th>
            <th class="num">Device links</th>
            <th class="num">Events</th>
            <th class="num">Rejected</th>
            <th>Listening</th>
            {modems && <th>Signal</th>}
          </tr>
        </thead>
        <tbody>
          {props.rows.map((r) => (
            <tr data-component={r.name}>
              <td data-label="Receiver">
                <Name c={r} names={props.names} />
              </td>
              <td data-label="State">
                <StatePill state={r.state} />
              </td>
              <td data-label="Since">
                <Since since={r.since} now={props.now} />
              </td>
              <td data-label="Connected" class="num">
                {figure(r.metrics.connections)}
              </td>
              <td data-label="Device links" class="num">
                {figure(r.metrics.links)}
              </td>
              <td data-label="Events" class="num">
                {figure(r.metrics.events)}
              </td>
              <td data-label="Rejected" class="num">
                {figure(
                  num(r.metrics.rejected) === null ? null : (num(r.metrics.rejected) ?? 0) + (num(r.metrics.naks) ?? 0),
                )}
              </td>
              <td data-label="Listening" class="mono">
                {figure(r.metrics.listening ?? r.metrics.port)}
              </td>
              {modems && <td data-label="Signal">{signal(r.metrics) ?? '—'}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function OutputsTable(props: { rows: StatusComponent[]; now: number; names: ComponentNames }) {
  if (props.rows.length === 0) return <p class="empty">No outputs configured.</p>;
  return (
    <div class="table-wrap">
      <table class="grid stack-narrow">
        <thead>
          <tr>
            <th>Output</th>
            <th>State</th>
            <th>Since</th>
            <th>Link</th>
            <th class="num">Backlog</th>
            <th>Last ACK</th>
            <th class="num">Delivered</th>
            <th class="num">Retries</th>
          </tr>
        </thead>
        <tbody>
          {props.rows.map((o) => (
            <tr data-component={o.name}>
              <td data-label="Output">
                <Name c={o} names={props.names} />
                {typeof o.metrics.protocol === 'string' && <div class="detail protocol">{o.metrics.protocol}</div>}
              </td>
              <td data-label="State">
                <StatePill state={o.state} />
              </td>
              <td data-label="Since">
                <Since since={o.since} now={props.now} />
              </td>
              <td data-label="Link">{outputLinkSummary(o.metrics)}</td>
              <td data-label="Backlog" class={num(o.metrics.backlog) ? 'num warn' : 'num'}>
                {figure(o.metrics.backlog)}
              </td>
              <td data-label="Last ACK">
                {typeof o.metrics.last_ack_at === 'number' ? ago(o.metrics.last_ack_at, props.now) : 'never'}
              </td>
              <td data-label="Delivered" class="num">
                {figure(o.metrics.delivered)}
              </td>
              <td data-label="Retries" class="num">
                {figure(o.metrics.retries)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ComponentsList(props: { rows: StatusComponent[]; now: number }) {
  return (
    <div class="components">
      {props.rows.map((c) => (
        <article class={`component kind-${c.kind}`} data-component={c.name}>
          <header>
            <strong>{c.name}</strong>
            <span class="kind">{c.kind}</span>
            <StatePill state={c.state} />
          </header>
          <p class="since">
            since <Since since={c.since} now={props.now} />
          </p>
          {c.detail && <p class="detail">{c.detail}</p>}
          <Figures metrics={c.metrics} now={props.now} />
        </article>
      ))}
    </div>
  );
}

function overall(status: StatusBody): string {
  const all = [...status.receivers, ...status.outputs, ...status.components];
  if (all.some((c) => c.state === 'failed' || c.state === 'stopped')) return 'failed';
  if (all.some((c) => c.state === 'degraded' || c.state === 'starting')) return 'degraded';
  return 'ok';
}

/** Configured names of receivers and outputs by health name (`rx:tcp:1`, `out:3`). */
export type ComponentNames = ReadonlyMap<string, string>;

function Name(props: { c: StatusComponent; names: ComponentNames }) {
  const name = props.names.get(props.c.name);
  return (
    <>
      <strong>{name ?? props.c.name}</strong>
      {name && <div class="detail mono">{props.c.name}</div>}
      {props.c.detail && <div class="detail">{props.c.detail}</div>}
    </>
  );
}

/** The central database (docs/mysql-sync.md §Health): the server in use and the lag, when the sync runs. */
function CentralDatabase(props: { c: StatusComponent | undefined }) {
  const c = props.c;
  if (!c) return null;
  return (
    <div data-kpi="mysql-sync">
      <dt>Central database</dt>
      <dd>
        <StatePill state={c.state} /> {figure(c.metrics.server)} · lag {figure(c.metrics.lag)}
      </dd>
    </div>
  );
}

export function StatusView(props: { status: StatusBody; now: number; names: ComponentNames }) {
  const { status, now } = props;
  const state = overall(status);
  const mirror = status.components.find((c) => c.name === 'mysql-sync');
  const devices = status.receivers.reduce((n, r) => n + (num(r.metrics.connections) ?? 0), 0);
  const backlog = status.outputs.reduce((n, o) => n + (num(o.metrics.backlog) ?? 0), 0);
  return (
    <div data-refresh="5">
      <section class={`summary summary-${state}`}>
        <div class="summary-main">
          <h1>{state === 'ok' ? 'All systems normal' : state === 'degraded' ? 'Attention needed' : 'Fault'}</h1>
          <p>
            {status.instance_name} · Vigil {status.version} · up {duration(status.uptime_s)}
          </p>
        </div>
        <dl class="kpis">
          <div>
            <dt>Connected devices</dt>
            <dd>{devices}</dd>
          </div>
          <div>
            <dt>Output backlog</dt>
            <dd>{backlog}</dd>
          </div>
          <div>
            <dt>Store</dt>
            <dd>
              <StatePill state={status.store.state} />
            </dd>
          </div>
          <CentralDatabase c={mirror} />
        </dl>
      </section>
      <section class="card">
        <h2>Receivers</h2>
        <ReceiversTable rows={status.receivers} now={now} names={props.names} />
      </section>
      <section class="card">
        <h2>Outputs</h2>
        <OutputsTable rows={status.outputs} now={now} names={props.names} />
      </section>
      <section class="card">
        <h2>Components</h2>
        <ComponentsList rows={status.components} now={now} />
      </section>
    </div>
  );
}
