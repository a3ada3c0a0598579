/**
 * Structured, namespaced logging: one line per event, `key=value` fields, written to a sink
 * (stderr in production, a buffer or nothing in tests). No module-level logger: components
 * receive one, so tests never monkey-patch.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  debug(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  child(namespace: string): Logger;
}

export type LogSink = (line: string) => void;

const LEVEL_ORDER: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };

export function parseLogLevel(value: string | undefined, fallback: LogLevel = 'info'): LogLevel {
  return value === 'debug' || value === 'info' || value === 'warn' || value === 'error' ? value : fallback;
}

function formatValue(value: string | number | boolean | null): string {
  const text = String(value);
  return /^[\w.:/@+-]*$/.test(text) && text !== '' ? text : JSON.stringify(text);
}

export function createLogger(namespace: string, sink: LogSink, minLevel: LogLevel = 'info'): Logger {
  const write = (level: LogLevel, message: string, fields?: LogFields): void => {
    if (LEVEL_ORDER[level] < LEVEL_ORDER[minLevel]) return;
    let line = `${new Date().toISOString()} ${level.toUpperCase()} ${namespace} ${message}`;
    if (fields) {
      for (const [key, value] of Object.entries(fields)) {
        if (value !== undefined) line += ` ${key}=${formatValue(value)}`;
      }
    }
    sink(line);
  };
  return {
    debug: (m, f) => write('debug', m, f),
    info: (m, f) => write('info', m, f),
    warn: (m, f) => write('warn', m, f),
    error: (m, f) => write('error', m, f),
    child: (sub) => createLogger(`${namespace}:${sub}`, sink, minLevel),
  };
}

/** A logger that drops everything; for tests and benchmarks. */
export const silentLogger: Logger = createLogger('silent', () => undefined, 'error');

export function stderrSink(line: string): void {
  process.stderr.write(line + '\n');
}
