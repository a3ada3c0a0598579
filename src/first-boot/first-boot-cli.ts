/**
 * `vigil first-boot`: run by vigil-first-boot.service before the network and the gateway start
 * (image/overlay/usr/lib/vigil/first-boot). Prints what happened to stdout, which the unit sends to the
 * console as well as the journal. Exit 0 when applied or nothing to do, 3 when the file was rejected.
 */
import { mkdirSync } from 'node:fs';
import { runFirstBoot } from './apply.js';
import { RESULT_FILE } from './setup-file.js';
import { describeErrors } from './status.js';

export interface FirstBootCommand {
  readonly bootDir: string;
  readonly root: string;
  readonly dataDir: string;
}

export async function runFirstBootCli(
  command: FirstBootCommand,
  out: (text: string) => void = (t) => process.stdout.write(t),
): Promise<number> {
  mkdirSync(command.dataDir, { recursive: true, mode: 0o700 });
  const outcome = await runFirstBoot(command);
  switch (outcome.kind) {
    case 'absent':
      out(
        'vigil first boot: no vigil-setup.txt; defaults kept (DHCP; the admin password is generated at first start)\n',
      );
      return 0;
    case 'applied':
      out(`vigil first boot: vigil-setup.txt applied and destroyed; details in ${RESULT_FILE}\n`);
      for (const item of outcome.applied) out(`  ${item}\n`);
      if (outcome.generatedPassword !== null)
        out(`  generated admin password (login: admin): ${outcome.generatedPassword}\n`);
      return 0;
    case 'rejected':
      out(`vigil first boot: vigil-setup.txt REJECTED, nothing applied; details in ${RESULT_FILE}\n`);
      for (const line of describeErrors(outcome.errors)) out(`  ${line}\n`);
      return 3;
  }
}
