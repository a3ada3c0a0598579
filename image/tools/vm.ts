/**
 * The disk and the VM of `./build.sh image-check`: reads the image's MBR, copies files in and out of its
 * FAT boot partition with mtools (no loop devices, no mounts), and runs qemu-system-aarch64 -M virt with
 * loopback-only port forwards, booting through U-Boot (u-boot-qemu's u-boot.bin as the firmware, which
 * runs the card's boot.scr like u-boot-rpi on a Pi) or, given a kernel, straight into it.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { openSync, readSync, closeSync } from 'node:fs';
import { createServer } from 'node:net';

export interface MbrPartition {
  readonly index: number;
  readonly type: number;
  readonly startSector: number;
  readonly sectors: number;
}

/** The four primary entries of a DOS partition table (offset 446, 16 bytes each; LBA start at +8, size at +12). */
export function readMbr(imagePath: string): MbrPartition[] {
  const sector = Buffer.alloc(512);
  const fd = openSync(imagePath, 'r');
  try {
    readSync(fd, sector, 0, 512, 0);
  } finally {
    closeSync(fd);
  }
  if (sector.readUInt16LE(510) !== 0xaa55) throw new Error(`${imagePath}: no MBR signature`);
  const parts: MbrPartition[] = [];
  for (let i = 0; i < 4; i += 1) {
    const entry = sector.subarray(446 + i * 16, 462 + i * 16);
    const sectors = entry.readUInt32LE(12);
    if (sectors > 0) parts.push({ index: i + 1, type: entry[4]!, startSector: entry.readUInt32LE(8), sectors });
  }
  return parts;
}

/** mtools addresses a partition inside an image as `image@@byteoffset`. */
export class FatPartition {
  private readonly target: string;

  constructor(imagePath: string, startSector: number) {
    this.target = `${imagePath}@@${startSector * 512}`;
  }

  list(): string[] {
    return execFileSync('mdir', ['-b', '-i', this.target, '::/'], { encoding: 'utf8' })
      .split('\n')
      .map((line) => line.trim().replace(/^::\//, ''))
      .filter((name) => name.length > 0);
  }

  copyOut(name: string, destination: string): void {
    execFileSync('mcopy', ['-o', '-i', this.target, `::/${name}`, destination]);
  }

  copyIn(source: string, name: string): void {
    execFileSync('mcopy', ['-o', '-i', this.target, source, `::/${name}`]);
  }

  read(name: string): string {
    return execFileSync('mtype', ['-i', this.target, `::/${name}`], { encoding: 'utf8' });
  }
}

/** A free TCP port on loopback for a host forward (the VM's ports are only ever forwarded from 127.0.0.1). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

export interface VmOptions {
  readonly disk: string;
  /** The firmware (-bios): u-boot-qemu's u-boot.bin, which finds boot.scr on the card. */
  readonly bios?: string;
  /** Or a kernel started directly, without the card's boot loader. */
  readonly kernel?: string;
  readonly initrd?: string;
  readonly append?: string;
  readonly consoleLog: string;
  /** guest port -> host port on 127.0.0.1 */
  readonly forwards: ReadonlyArray<{ readonly host: number; readonly guest: number }>;
  readonly memoryMib?: number;
}

/** Where u-boot-qemu (Debian) puts the 64-bit firmware for -M virt. */
export const UBOOT_QEMU_ARM64 = '/usr/lib/u-boot/qemu_arm64/u-boot.bin';

function bootArgs(o: VmOptions): string[] {
  if (o.bios) return ['-bios', o.bios];
  if (!o.kernel || !o.initrd || o.append === undefined)
    throw new Error('a VM boots through -bios or a kernel, initrd and command line');
  return ['-kernel', o.kernel, '-initrd', o.initrd, '-append', o.append];
}

export function qemuArgs(o: VmOptions): string[] {
  const forwards = o.forwards.map((f) => `hostfwd=tcp:127.0.0.1:${f.host}-:${f.guest}`).join(',');
  return [
    '-M',
    'virt',
    '-cpu',
    'cortex-a72',
    '-smp',
    '2',
    '-m',
    String(o.memoryMib ?? 1024),
    ...bootArgs(o),
    '-drive',
    `if=none,file=${o.disk},format=raw,id=disk0`,
    '-device',
    'virtio-blk-pci,drive=disk0',
    '-netdev',
    `user,id=net0,${forwards}`, // romfile= : no PXE option ROM (ipxe-qemu is only a Recommends of qemu-system-arm, and the guest
    // boots from its disk, never from the network).
    '-device',
    'virtio-net-pci,netdev=net0,romfile=',
    '-device',
    'virtio-rng-pci',
    '-display',
    'none',
    '-monitor',
    'none',
    '-serial',
    `file:${o.consoleLog}`,
  ];
}

/** qemu is gone: a poll that meets it stops at once instead of waiting out its timeout. */
export class VmDied extends Error {
  override readonly name = 'VmDied';
}

export class Vm {
  private process: ChildProcess | null = null;
  private exited: Promise<number | null> = Promise.resolve(null);
  private readonly options: VmOptions;
  /** qemu's exit code and its last words on stderr, once it has exited. */
  private death: string | null = null;

  constructor(options: VmOptions) {
    this.options = options;
  }

  start(): void {
    const child = spawn('qemu-system-aarch64', qemuArgs(this.options), { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr?.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-2000)));
    this.death = null;
    this.exited = new Promise((resolve) =>
      child.on('exit', (code, signal) => {
        if (code !== 0 && stderr) process.stderr.write(`qemu: ${stderr}\n`);
        this.death = `qemu exited (${signal ?? `code ${code}`})${stderr.trim() ? `: ${stderr.trim()}` : ''}`;
        this.process = null;
        resolve(code);
      }),
    );
    // A missing binary or firmware file fails the spawn itself.
    child.once('error', (err) => {
      this.death = `qemu could not start: ${err.message}`;
      this.process = null;
    });
    this.process = child;
  }

  /** Throws VmDied with qemu's own words when it is not running (an unexpected death, not a slow boot). */
  assertRunning(): void {
    if (!this.process) throw new VmDied(this.death ?? 'qemu is not running');
  }

  get running(): boolean {
    return this.process !== null;
  }

  get pid(): number | undefined {
    return this.process?.pid;
  }

  /** Waits up to `ms` for qemu to exit by itself; false when it is still running. */
  async waitExit(ms: number): Promise<boolean> {
    if (!this.process) return true;
    const timeout = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms).unref());
    return (await Promise.race([this.exited, timeout])) !== 'timeout';
  }

  /** SIGKILL is a power cut: qemu writes nothing more to the disk image. */
  async kill(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    if (!this.process) return;
    this.process.kill(signal);
    if (!(await this.waitExit(5000))) this.process?.kill('SIGKILL');
    await this.waitExit(5000);
  }
}
