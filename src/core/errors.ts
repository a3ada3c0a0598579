/**
 * Errors inside the process carry a code; only the API edge turns codes into HTTP shapes.
 */
export type ErrorCode =
  | 'INVALID_SETTINGS'
  | 'STORE_UNAVAILABLE'
  | 'STORE_FAILURE'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'DATABASE_UNREACHABLE'
  | 'AUTH_FAILED'
  | 'FRAME_INVALID'
  | 'DEVICE_NOT_CONNECTED'
  | 'DEVICE_TIMEOUT'
  | 'DEVICE_REJECTED'
  | 'SERVICE_FAILED'
  | 'UNSAFE_PATH'
  | 'BAD_BACKUP'
  | 'BAD_PASSPHRASE'
  | 'INTERNAL';

export class VigilError extends Error {
  readonly code: ErrorCode;
  /**
   * The values or field paths the message is about. Not named `details`: uvu reads an error's
   * `details` as its diff text (a string) and, given an array, stops the suite without a report.
   */
  readonly context: readonly string[];

  constructor(code: ErrorCode, message: string, context: readonly string[] = [], options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'VigilError';
    this.code = code;
    this.context = context;
  }
}

export function isVigilError(err: unknown, code?: ErrorCode): err is VigilError {
  return err instanceof VigilError && (code === undefined || err.code === code);
}

/** A readable one-liner for logs, whatever was thrown. */
export function describeError(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
