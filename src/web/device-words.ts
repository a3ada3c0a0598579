/** The contract's device command error codes in words a technician can act on (management API §Errors). */
export const DEVICE_ERROR_WORDS: Readonly<Record<string, string>> = {
  FIELD_UID_IS_MISSING: 'No partial UID was given: enter the last hex digits of the device UID.',
  INVALID_DATA: 'The data is not valid hex: use 0-9 and A-F, whole bytes (an even number of digits), no spaces.',
  BAD_DATA: 'The device reported the data as malformed or corrupted, or refused the command.',
  NO_OBJECT: 'No device you may see has a UID ending in these digits, or several do (give more digits).',
  NO_CONNECTION: 'The device is known but not connected right now (or it disconnected during the command).',
  MPASS_IS_INCORRECT: 'The cloud access code (master password) is wrong for this device.',
  NO_RESPONSE: 'The device did not reply within 10 seconds.',
  INVALID_PACKET_NUMBER: 'The device replied, but its packets were numbered wrongly; the reply was discarded.',
  INVALID_PACKET_COUNT:
    'The device replied, but its packets declared an inconsistent packet count; the reply was discarded.',
  'Device not connected': 'No connected device you may see has a UID ending in these digits.',
  'Invalid configuration format': 'The device rejected the configuration data.',
};

export function explain(error: string): string {
  return DEVICE_ERROR_WORDS[error] ?? error;
}
