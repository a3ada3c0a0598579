import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { poll } from '../../image/tools/guest.js';
import { qemuArgs, UBOOT_QEMU_ARM64, Vm } from '../../image/tools/vm.js';

const OPTIONS = {
  disk: 'disk.img',
  kernel: 'vmlinuz',
  initrd: 'initrd.img',
  append: 'ro',
  consoleLog: 'console.log',
  forwards: [],
};

test('the network card asks for no option ROM (ipxe-qemu need not be installed)', () => {
  assert.ok(qemuArgs(OPTIONS).includes('virtio-net-pci,netdev=net0,romfile='));
});

test('through U-Boot: the firmware is -bios and no kernel is given; a VM with neither is refused', () => {
  const args = qemuArgs({ disk: 'disk.img', bios: UBOOT_QEMU_ARM64, consoleLog: 'c.log', forwards: [] });
  assert.equal(args.slice(args.indexOf('-bios'), args.indexOf('-bios') + 2), ['-bios', UBOOT_QEMU_ARM64]);
  assert.not.ok(args.includes('-kernel'));
  assert.throws(() => qemuArgs({ disk: 'disk.img', consoleLog: 'c.log', forwards: [] }), /-bios or a kernel/);
});

test('a qemu that dies at once ends the wait at once, with its own words', async () => {
  // A stand-in for qemu-system-aarch64 that fails the way a missing option ROM does.
  const bin = mkdtempSync(join(tmpdir(), 'vigil-fake-qemu-'));
  const fake = join(bin, 'qemu-system-aarch64');
  writeFileSync(fake, '#!/bin/sh\necho \'qemu-system-aarch64: failed to find romfile "efi-virtio.rom"\' >&2\nexit 1\n');
  chmodSync(fake, 0o755);
  const path = process.env.PATH;
  process.env.PATH = `${bin}:${path}`;
  const vm = new Vm(OPTIONS);
  try {
    vm.start();
    const started = Date.now();
    const err = await poll(
      'GET /health 200',
      60_000,
      async () => {
        vm.assertRunning();
        return null; // a live VM that is not healthy yet: keep waiting
      },
      50,
    ).then(
      () => null,
      (e: Error) => e,
    );
    assert.ok(err, 'the wait must fail');
    assert.is(err!.name, 'VmDied');
    assert.match(err!.message, /qemu exited \(code 1\): qemu-system-aarch64: failed to find romfile "efi-virtio.rom"/);
    assert.ok(Date.now() - started < 5_000, `failed after ${Date.now() - started} ms, not at once`);
  } finally {
    process.env.PATH = path;
    await vm.kill();
    rmSync(bin, { recursive: true, force: true });
  }
});

test.run();
