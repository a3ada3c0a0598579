/**
 * vigil-setup.result.txt, left on the boot partition for the installer to read on any PC: what was applied,
 * or line by line what was wrong. It never repeats a secret from the setup file; a generated admin password
 * is the one secret it carries (the installer has no other way to learn it), hence mode 0600 on the box.
 */
import { SETUP_FILE } from './setup-file.js';
import { describeErrors, type FirstBootStatus } from './status.js';

export function renderResult(status: FirstBootStatus, generatedPassword: string | null): string {
  const lines = [`Vigil first boot, ${status.at}`, ''];
  if (status.outcome === 'applied') {
    lines.push(`${SETUP_FILE} was applied, then destroyed (overwritten and removed).`, '', 'Applied:');
    for (const item of status.applied) lines.push(`  ${item}`);
    if (generatedPassword !== null) {
      lines.push(
        '',
        `Generated admin password (login: admin): ${generatedPassword}`,
        'Log in, change it through the API, then delete this file.',
      );
    }
  } else {
    lines.push(
      `${SETUP_FILE} was NOT applied: nothing was changed and the defaults stay`,
      '(wired network by DHCP; the first admin password is generated and shown on the console).',
      'The file was destroyed anyway (overwritten and removed) because it may hold passwords.',
      `Fix the lines below, write the whole ${SETUP_FILE} again and restart the box.`,
      '',
      'Problems:',
    );
    for (const line of describeErrors(status.errors)) lines.push(`  ${line}`);
  }
  lines.push('');
  return lines.join('\r\n');
}
