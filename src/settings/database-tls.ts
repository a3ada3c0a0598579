/**
 * How the MySQL password travels (issue #28.4, docs/mysql-sync.md §TLS and logins): the mysql2
 * options for `database.sql_tls_mode`, shared by the connection test and the sync adapter.
 *
 * - "required" / "verify": TLS 1.2+ before the login; mysql2's own login plugins may then send
 *   the password, inside TLS. "verify" checks the chain (sql_tls_ca_file, or the system CAs when
 *   empty) and that the certificate names sqlhost.
 * - "disabled": no TLS, so only logins that never put the password on the wire are allowed:
 *   mysql_native_password (a SHA-1 challenge-response) and the fast path of caching_sha2_password
 *   (a SHA-256 challenge-response). Refused: caching_sha2_password's full authentication and
 *   sha256_password (the password RSA-encrypted to whatever key the server sends, i.e. to anyone
 *   who answers on sqlhost) and mysql_clear_password (the password in clear). Unknown plugins
 *   are refused by mysql2 itself.
 */
import { connect, isIP, type Socket } from 'node:net';
import { authPlugins, type ConnectionOptions } from 'mysql2';
import { VigilError } from '../core/errors.js';
import { caCertificatesProblem, readPem } from './pem-check.js';
import type { SqlTlsMode } from './schema.js';

/** caching_sha2_password's "fast auth success" AuthMoreData packet: the server accepted the hash. */
const FAST_AUTH_SUCCESS = Buffer.from([3]);

/** The reason when the server asks for the password on a connection without TLS. */
export const INSECURE_LOGIN_REASON =
  'the server asks for the password itself, which Vigil sends only over TLS (set database.sql_tls_mode to "required" or "verify")';

export interface TlsTarget {
  sqlhost: string;
  sql_tls_mode: SqlTlsMode;
  sql_tls_ca_file: string;
}

type SecurityOptions = Pick<ConnectionOptions, 'ssl' | 'authPlugins' | 'stream'>;
type AuthPlugin = NonNullable<ConnectionOptions['authPlugins']>[string];
type PluginAnswer = ReturnType<ReturnType<AuthPlugin>>;

/** Marked so that the callers can tell Vigil's refusal from the driver's other errors. */
export function isInsecureLoginRefusal(err: unknown): boolean {
  return (err as { vigilInsecureLogin?: unknown } | null)?.vigilInsecureLogin === true;
}

function refusal(plugin: string): Promise<never> {
  const err = Object.assign(new Error(`${plugin} refused without TLS: ${INSECURE_LOGIN_REASON}`), {
    vigilInsecureLogin: true,
  });
  // Rejected, not thrown: mysql2 turns a rejection into a fatal error of the connect (auth_switch.js).
  return Promise.reject(err);
}

/**
 * caching_sha2_password without TLS: the scramble answer (a hash) goes out as mysql2 computes it;
 * any later request but "fast auth success" is the server asking for the password: refused.
 */
const hashOnlyCachingSha2: AuthPlugin = (meta) => {
  const inner = authPlugins.caching_sha2_password({})(meta);
  let scrambleSeen = false;
  return (data: Buffer): PluginAnswer => {
    if (!scrambleSeen) {
      scrambleSeen = true;
      return inner(data);
    }
    if (data.equals(FAST_AUTH_SUCCESS)) return inner(data);
    return refusal('caching_sha2_password full authentication') as PluginAnswer;
  };
};

const refused =
  (plugin: string): AuthPlugin =>
  () =>
  () =>
    refusal(plugin) as PluginAnswer;

/** A fresh object per connect: mysql2 keeps per-config state on it. */
function hashOnlyPlugins(): NonNullable<ConnectionOptions['authPlugins']> {
  return {
    caching_sha2_password: hashOnlyCachingSha2,
    sha256_password: refused('sha256_password'),
    mysql_clear_password: refused('mysql_clear_password'),
  };
}

/** The CA certificates of sql_tls_ca_file, read within pem-check's bounds at every connect. */
async function readCaFile(path: string): Promise<string> {
  const read = await readPem(path);
  const problem = read.ok ? caCertificatesProblem(read.text) : read.reason;
  if (problem !== null || !read.ok) {
    throw new VigilError('DATABASE_UNREACHABLE', `database.sql_tls_ca_file ${problem ?? 'cannot be read'}`);
  }
  return read.text;
}

/**
 * The TCP socket for "verify" to an IP address. mysql2 gives Node's TLS no name for an IP host, and
 * Node then checks the certificate against "localhost" (tls.connect falls back to the socket's
 * `_host`, which net.connect sets only for names it resolved). Setting it to the address makes the
 * check compare the certificate's IP SANs with sqlhost, as "verify" promises.
 */
function socketNamedFor(host: string, port: number): () => Socket {
  return () => {
    const socket = connect(port, host);
    socket.setNoDelay(true); // as mysql2 does for its own sockets
    (socket as Socket & { _host: string | null })._host = host;
    return socket;
  };
}

/**
 * The `ssl`, `authPlugins` (and for "verify" to an IP, `stream`) options of one connect to
 * `port` (already resolved). Throws VigilError when the CA file is unusable.
 */
export async function connectionSecurity(target: TlsTarget, port: number): Promise<SecurityOptions> {
  switch (target.sql_tls_mode) {
    case 'disabled':
      return { authPlugins: hashOnlyPlugins() };
    case 'required':
      // Encrypted against eavesdroppers; the server is not authenticated (docs/mysql-sync.md).
      return { ssl: { rejectUnauthorized: false, minVersion: 'TLSv1.2' } };
    case 'verify': {
      const ca = target.sql_tls_ca_file === '' ? undefined : await readCaFile(target.sql_tls_ca_file);
      const ssl = { ca, rejectUnauthorized: true, verifyIdentity: true, minVersion: 'TLSv1.2' };
      return isIP(target.sqlhost) === 0 ? { ssl } : { ssl, stream: socketNamedFor(target.sqlhost, port) };
    }
  }
}
