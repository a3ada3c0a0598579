/** Which server the sync tries next and how long it waits (docs/mysql-sync.md §Failover). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ServerRotation } from '../../../src/store/mysql-sync/server-rotation.js';

const target = (servers: Array<{ host: string; port: number }>) => ({
  sqlhost: 'a',
  sqlport: 0,
  sqluser: 'u',
  sqlpass: 'p',
  sqldatabase: 'd',
  sql_tls_mode: 'disabled' as const,
  sql_tls_ca_file: '',
  sql_servers: servers,
});

test('each failure moves to the next server; the backoff doubles once per full round, up to the maximum', () => {
  const r = new ServerRotation(
    target([
      { host: 'b', port: 3307 },
      { host: 'c', port: 3306 },
    ]),
    1000,
    5000,
  );
  assert.is(r.currentName, 'a:3306');
  const seen: Array<[number, string]> = [];
  for (let i = 0; i < 10; i++) seen.push([r.failed(false), r.currentName]);
  assert.equal(seen, [
    [1000, 'b:3307'],
    [1000, 'c:3306'],
    [1000, 'a:3306'],
    [2000, 'b:3307'],
    [2000, 'c:3306'],
    [2000, 'a:3306'],
    [4000, 'b:3307'],
    [4000, 'c:3306'],
    [4000, 'a:3306'],
    [5000, 'b:3307'],
  ]);
  // A success keeps the server in use (no fail-back) and resets the backoff.
  r.succeeded();
  assert.is(r.currentName, 'b:3307');
  assert.is(r.failed(false), 1000);
  assert.is(r.failed(true), 5000, 'a refusal that needs a person waits the most');
});

test('one server: the previous behaviour, doubling at every failure', () => {
  const r = new ServerRotation(target([]), 1000, 60_000);
  assert.equal([r.failed(false), r.failed(false), r.failed(false), r.failed(false)], [1000, 2000, 4000, 8000]);
  assert.is(r.currentName, 'a:3306');
});

test.run();
