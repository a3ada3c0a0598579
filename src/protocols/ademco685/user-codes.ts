/**
 * Contact ID event codes whose CCC field is a user number rather than a zone ("Event data type: User" in the Contact ID
 * event code table, SIA DC-05 and the MX8000 guide's Table 8-23). The 685 layout marks them with 'U' instead of 'C'.
 */
const USER_CODES: ReadonlySet<string> = new Set([
  '121', // duress
  '313', // engineer reset
  '400',
  '401',
  '402',
  '403',
  '404',
  '405',
  '406',
  '407',
  '408',
  '409', // open/close by user, remote, quick arm, keyswitch
  '411',
  '412',
  '413',
  '414',
  '415', // callback, download, access, shutdowns
  '421',
  '422',
  '424',
  '425', // access denied / report / egress by user
  '441', // armed stay
  '450',
  '451',
  '452',
  '453',
  '454',
  '455',
  '456',
  '457',
  '458',
  '459', // O/C exceptions
  '462',
  '463',
  '464',
  '466', // legal code, re-arm, auto-arm extended, service on premises
  '574', // group bypass
  '607', // walk test mode
  '625', // time/date reset
  '913',
  '914',
  '920',
  '921',
  '928',
  '929', // MX8000 Table 8-23: test start/end, trouble closing, access denied, user code, log-off
]);

export function isUserCode(code: string): boolean {
  return USER_CODES.has(code.toUpperCase());
}
