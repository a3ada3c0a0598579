/**
 * What image-check and update-check share to start: a clean work dir, the admin password, the SSH key the
 * check logs in with, three loopback ports, a freshly "flashed" 4 GiB card with vigil-setup.txt (and a
 * backup) on its boot partition, and the emulated board booting it through U-Boot with loopback-only
 * forwards (docs/image.md "image-check", "update-check").
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { type SetupIdentity, setupFile } from './setup-file.js';
import { FatPartition, freePort, type MbrPartition, readMbr, UBOOT_QEMU_ARM64, Vm } from './vm.js';

/** A "4 GB card": first boot grows the data partition into it. */
export const DISK_BYTES = 4 * 1024 ** 3;
/** The DC-09 receiver port the checks configure on the box. */
export const RX_PORT = 9000;

export interface CheckStart {
  readonly work: string;
  readonly password: string;
  readonly keyFile: string;
  readonly publicKey: string;
  readonly ports: { readonly ssh: number; readonly api: number; readonly rx: number };
}

/** Empties `work`, makes the admin password and an SSH key, and picks three free loopback ports. */
export async function startCheck(work: string, name: string): Promise<CheckStart> {
  rmSync(work, { recursive: true, force: true });
  mkdirSync(work, { recursive: true });
  const keyFile = join(work, 'id_ed25519');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', name, '-f', keyFile]);
  const [ssh, api, rx] = [await freePort(), await freePort(), await freePort()];
  return {
    work,
    password: `check-${randomBytes(9).toString('base64url')}`,
    keyFile,
    publicKey: readFileSync(`${keyFile}.pub`, 'utf8').trim(),
    ports: { ssh, api, rx },
  };
}

export interface Card {
  readonly partitions: MbrPartition[];
  readonly fat: FatPartition;
}

/** How `prepareCard` writes this image, for the first step's name: decompressed or copied. */
export function imageKind(image: string): string {
  return image.endsWith('.xz') ? 'compressed image (.img.xz), decompressed' : 'raw image (.img), copied';
}

/**
 * Writes the image (`.img` or `.img.xz`) to `disk` as a flashed 4 GiB card and puts vigil-setup.txt for
 * `identity` on its boot partition, with `files` (a backup) beside it. Throws unless the card has the
 * four partitions of docs/image.md (FAT boot, slot A, slot B, data).
 */
export function prepareCard(
  image: string,
  disk: string,
  start: CheckStart,
  identity: SetupIdentity,
  files: readonly string[] = [],
): Card {
  if (image.endsWith('.xz')) execFileSync('sh', ['-c', 'xz -dc -T2 "$1" > "$2"', 'sh', image, disk]);
  else execFileSync('cp', ['--sparse=always', image, disk]); // a raw .img straight from genimage
  const fd = openSync(disk, 'r+');
  ftruncateSync(fd, DISK_BYTES);
  closeSync(fd);
  const partitions = readMbr(disk);
  if (partitions.length !== 4 || partitions[0]!.type !== 0x0c)
    throw new Error(`expected FAT boot + slot A + slot B + data partitions, found ${JSON.stringify(partitions)}`);
  const fat = new FatPartition(disk, partitions[0]!.startSector);
  const setup = join(start.work, 'vigil-setup.txt');
  writeFileSync(setup, setupFile(identity, start.publicKey), { mode: 0o600 });
  fat.copyIn(setup, 'vigil-setup.txt');
  for (const file of files) fat.copyIn(file, basename(file));
  return { partitions, fat };
}

/** The emulated board booting `disk` through U-Boot, forwarding only loopback ports to SSH, HTTPS, DC-09. */
export function boardVm(start: CheckStart, disk: string, consoleLog: string): Vm {
  return new Vm({
    disk,
    bios: UBOOT_QEMU_ARM64,
    consoleLog,
    forwards: [
      { host: start.ports.ssh, guest: 22 },
      { host: start.ports.api, guest: 8443 },
      { host: start.ports.rx, guest: RX_PORT },
    ],
  });
}
