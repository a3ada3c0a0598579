/**
 * update-check step 5 (docs/image.md "update-check", "Who may install"): refusals. Through the API, a
 * corrupted and an unsigned bundle are refused with their codes, nothing changed. Then a compromised
 * gateway cannot take the box back to an older signed release. Played on the box as the gateway's user `vigil` would,
 * straight to rauc-service over D-Bus (what its policy lets `vigil` say), past the gateway's own OLDER check:
 *   - `rauc install` of an older signed bundle: the image's pre-install handler refuses it, nothing written;
 *   - root's permit installs that same bundle (the way an operator goes back on purpose), and root puts the
 *     running slot first again: the other slot now holds the older release;
 *   - `rauc status mark-active other` onto it: the boot backend refuses; `mark-bad booted` of the running,
 *     confirmed slot: refused; a method outside the policy (InspectBundle): denied by D-Bus; `rauc status`
 *     (allowed) still answers.
 * The boot state is unchanged after every refusal.
 */
import { basename } from 'node:path';
import type { Guest, poll as pollGuest } from './guest.js';
import { badBundles, describe, install, slotState, type SlotState } from './update-box.js';

export interface RefusalsBox {
  readonly guest: Guest;
  /** A good bundle (B), from which the damaged ones are made, and the API token. */
  readonly bundle: string;
  readonly token: () => string;
  readonly work: string;
  /** A signed bundle older than the running version (the image's own: ./build.sh bundle). */
  readonly older: string;
  readonly olderVersion: string;
  readonly step: <T>(name: string, run: () => Promise<T>) => Promise<T>;
  readonly poll: typeof pollGuest;
}

const AS_VIGIL = 'runuser -u vigil --';

export async function refusalsCheck(box: RefusalsBox): Promise<void> {
  const { guest, older, olderVersion } = box;
  await box.step('5. a corrupted and an unsigned bundle are refused through the API, nothing changed', async () => {
    const { corrupted, unsigned } = badBundles(box.bundle, box.work);
    const before = await slotState(guest);
    const results: string[] = [];
    for (const [name, file, code] of [
      ['corrupted', corrupted, /^4\d\d (CORRUPTED|BAD_BUNDLE|BAD_SIGNATURE):/],
      ['unsigned', unsigned, /^4\d\d UNSIGNED:/],
    ] as const) {
      const r = await install(guest, file, box.token());
      // Refused with its code (docs/updates.md "Refusals"), not an error of some other kind.
      if (!code.test(r.output)) throw new Error(`the ${name} bundle: ${r.output}`);
      results.push(`${name}: ${r.output.slice(0, 160)}`);
    }
    const after = await slotState(guest);
    if (
      after.booted !== before.booted ||
      after.boot.BOOT_ORDER !== before.boot.BOOT_ORDER ||
      after.boot.BOOT_B_LEFT !== before.boot.BOOT_B_LEFT
    )
      throw new Error(`changed: ${describe(before)} -> ${describe(after)}`);
    return results.join('; ');
  });

  const onBox = `/var/lib/vigil/${basename(older)}`;
  /**
   * Runs as `vigil`; returns its words, the exit status, and what rauc-service journaled meanwhile (RAUC
   * passes a handler's or the boot backend's own words to its journal, its client gets "exited with code 1").
   */
  const asVigil = async (command: string) => {
    const mark = (await guest.ssh('date +%s')).trim();
    const out = await guest.ssh(`${AS_VIGIL} sh -c '${command} 2>&1; echo "exit=$?"'`, 20 * 60_000);
    const journal = await guest.ssh(`journalctl -u rauc --since @${mark} --no-pager -o cat || true`);
    return `${journal}\n${out}`;
  };
  const unchanged = (before: SlotState, after: SlotState, what: string) => {
    if (
      after.booted !== before.booted ||
      after.boot.BOOT_ORDER !== before.boot.BOOT_ORDER ||
      after.boot.BOOT_A_LEFT !== before.boot.BOOT_A_LEFT ||
      after.boot.BOOT_B_LEFT !== before.boot.BOOT_B_LEFT
    )
      throw new Error(`${what} changed the boot state: ${describe(before)} -> ${describe(after)}`);
  };
  const slotVersions = () =>
    guest.ssh(
      "rauc status --detailed --output-format=json | tr ',' '\\n' | grep -o '\"version\":\"[^\"]*\"' | tr '\\n' ' '",
    );

  await box.step(
    `5b. as user vigil, an older signed bundle (${olderVersion}) straight to RAUC: refused by root's floor`,
    async () => {
      await guest.sshWithInput(`install -o vigil -g vigil -m 0644 /dev/stdin ${onBox}`, older);
      const before = await slotState(guest);
      const versions = await slotVersions();
      const out = await asVigil(`rauc install ${onBox}`);
      if (/exit=0$/.test(out) || !/older than the running .*a downgrade needs root's permit/.test(out))
        throw new Error(`rauc install as vigil: ${out.slice(-400)}`);
      unchanged(before, await slotState(guest), 'the refused install');
      if ((await slotVersions()) !== versions)
        throw new Error(`a slot was written: ${versions} -> ${await slotVersions()}`);
      return (
        out
          .split('\n')
          .find((l) => /older than the running/.test(l))
          ?.trim() ?? ''
      );
    },
  );

  await box.step(
    "5c. root's permit installs it; vigil can neither activate that older slot nor mark the running one bad",
    async () => {
      const installed = await guest.ssh(
        `/usr/lib/vigil/permit-downgrade ${olderVersion} && rauc install ${onBox} >/dev/null 2>&1 && rauc status mark-active booted >/dev/null 2>&1 && echo ok`,
        20 * 60_000,
      );
      if (installed.trim().split('\n').pop() !== 'ok') throw new Error(`root's install with the permit: ${installed}`);
      const before = await slotState(guest);
      const activate = await asVigil('rauc status mark-active other');
      if (/exit=0$/.test(activate) || !/older than the running .*not activated/.test(activate))
        throw new Error(`mark-active other as vigil: ${activate.slice(-400)}`);
      unchanged(before, await slotState(guest), 'mark-active');
      const bad = await asVigil('rauc status mark-bad booted');
      if (/exit=0$/.test(bad) || !/running and confirmed: not marked bad/.test(bad))
        throw new Error(`mark-bad booted as vigil: ${bad.slice(-400)}`);
      unchanged(before, await slotState(guest), 'mark-bad');
      const denied = await asVigil(
        'busctl --system call de.pengutronix.rauc / de.pengutronix.rauc.Installer InspectBundle "sa{sv}" /x 0',
      );
      if (/exit=0$/.test(denied) || !/denied/i.test(denied))
        throw new Error(`InspectBundle as vigil: ${denied.slice(-300)}`);
      const status = await asVigil('rauc status');
      if (!/exit=0$/.test(status)) throw new Error(`rauc status as vigil: ${status.slice(-300)}`);
      await guest.ssh(`rm -f ${onBox}`);
      return `the other slot holds ${olderVersion}; mark-active refused, mark-bad refused, InspectBundle denied, rauc status answered; ${describe(await slotState(guest))}`;
    },
  );
}
