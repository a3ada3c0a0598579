/**
 * Orders version strings such as `0.2.0`, `1.10.3` or `0.3.0-rc.1` (docs/updates.md "Refusals": an older
 * bundle is refused). Dotted numbers compare numerically; a version with a pre-release suffix comes before
 * the same version without one (SemVer §11, simplified: suffixes compare as text).
 */
function split(version: string): { numbers: number[]; pre: string } {
  const trimmed = version.trim().replace(/^v/i, '');
  const dash = trimmed.search(/[-+~]/);
  const main = dash === -1 ? trimmed : trimmed.slice(0, dash);
  const pre = dash === -1 ? '' : trimmed.slice(dash + 1);
  const numbers = main.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : Number.NaN));
  return { numbers, pre };
}

/** Whether `version` reads as a version at all (digits and dots, optionally a suffix). */
export function isVersion(version: string): boolean {
  const { numbers } = split(version);
  return numbers.length > 0 && numbers.every((n) => Number.isFinite(n));
}

/** Negative when a < b, 0 when equal, positive when a > b. */
export function compareVersions(a: string, b: string): number {
  const left = split(a);
  const right = split(b);
  const length = Math.max(left.numbers.length, right.numbers.length);
  for (let i = 0; i < length; i++) {
    const diff = (left.numbers[i] ?? 0) - (right.numbers[i] ?? 0);
    if (diff !== 0) return diff;
  }
  if (left.pre === right.pre) return 0;
  if (left.pre === '') return 1;
  if (right.pre === '') return -1;
  return left.pre < right.pre ? -1 : 1;
}
