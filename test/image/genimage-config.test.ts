import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { DATA_PARTITION, renderGenimageConfig, rootSizeMib, slotPartuuid } from '../../image/tools/genimage-config.js';
import { dpkgPackages, npmPackages, renderManifest } from '../../image/tools/manifest-data.js';

test('the card is MBR, 4 MiB-aligned, fixed signature: bootable FAT boot, slot A (the root), empty slot B, data', () => {
  const text = renderGenimageConfig({
    imageName: 'vigil-1.2.3-arm64.img',
    bootMib: 256,
    rootMib: 1024,
    slotMib: 1536,
    dataMib: 64,
  });
  const image = /image vigil-1\.2\.3-arm64\.img \{([\s\S]*)\}\s*$/.exec(text)?.[1] ?? '';
  assert.match(image, /partition-table-type = "mbr"\n\s+align = 4M\n\s+disk-signature = 0x5649474c\n/);
  assert.equal(
    [...image.matchAll(/partition ([\w-]+) \{([^}]*)\}/g)].map((m) => [
      m[1],
      /partition-type = (0x\w+)/.exec(m[2]!)?.[1],
      /bootable = true/.test(m[2]!),
      /image = "([\w.]+)"/.exec(m[2]!)?.[1] ?? null,
      /size = (\d+M)/.exec(m[2]!)?.[1] ?? null,
    ]),
    [
      ['boot', '0xC', true, 'boot.vfat', null],
      ['slot-a', '0x83', false, 'root.ext4', '1536M'],
      ['slot-b', '0x83', false, null, '1536M'],
      ['data', '0x83', false, 'data.ext4', null],
    ],
  );
  assert.match(
    text,
    /image boot\.vfat \{\s+vfat \{\s+label = "VIGIL-BOOT"\s+\}\s+mountpoint = "\/boot\/firmware"\s+size = 256M\s+\}/,
  );
  assert.match(
    text,
    /image root\.ext4 \{\s+ext4 \{\s+label = "vigil-root"[\s\S]*?\}\s+mountpoint = "\/"\s+size = 1024M\s+\}/,
  );
  assert.match(text, /image data\.ext4 \{\s+ext4 \{\s+label = "vigil-data"[\s\S]*?\}\s+empty = true\s+size = 64M\s+\}/);
});

test('slots are found by PARTUUID: boot.scr, RAUC and the layout agree; fstab leaves the root to the boot loader', async () => {
  const { readFileSync } = await import('node:fs');
  const read = (path: string) => readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
  assert.is(slotPartuuid('A'), '5649474c-02');
  assert.is(slotPartuuid('B'), '5649474c-03');
  assert.is(DATA_PARTITION, 4);
  const bootCmd = read('image/boot/boot.cmd');
  assert.match(bootCmd, /root=PARTUUID=5649474c-0\$\{vigil_part\}/);
  assert.match(bootCmd, /setenv vigil_slot A; setenv vigil_part 2;/);
  assert.match(bootCmd, /setenv vigil_slot B; setenv vigil_part 3;/);
  assert.match(bootCmd, /rauc\.slot=\$\{vigil_slot\}/);
  const system = read('image/overlay/etc/rauc/system.conf');
  assert.match(system, /\[slot\.rootfs\.0\]\ndevice=\/dev\/disk\/by-partuuid\/5649474c-02\ntype=ext4\nbootname=A\n/);
  assert.match(system, /\[slot\.rootfs\.1\]\ndevice=\/dev\/disk\/by-partuuid\/5649474c-03\ntype=ext4\nbootname=B\n/);
  assert.match(system, /^compatible=vigil-rpi-arm64$/m);
  assert.match(system, /^bootloader-custom-backend=\/usr\/lib\/vigil\/rauc-boot-backend$/m);
  const manifest = read('image/make-bundle.sh');
  assert.match(manifest, /^compatible=vigil-rpi-arm64$/m);
  assert.match(manifest, /^format=verity$/m);
  const fstab = read('image/overlay/etc/fstab');
  assert.not.match(fstab, /^\S+\s+\/\s/m);
  assert.not.match(fstab, /vigil-root/);
  assert.match(fstab, /^LABEL=VIGIL-BOOT +\/boot\/firmware +vfat +ro,/m);
  assert.match(fstab, /^LABEL=vigil-data +\/var\/lib\/vigil +ext4 +/m);
  const prepare = read('image/overlay/usr/lib/vigil/data-prepare');
  assert.match(prepare, /\/dev\/disk\/by-label\/vigil-data/);
});

test('root size leaves a quarter plus 128 MiB of room, 4 MiB-aligned; bad sizes, names and a root larger than a slot are refused', () => {
  assert.is(rootSizeMib(800 * 1024), 1128);
  assert.is(rootSizeMib(1), 132);
  const layout = { imageName: 'x.img', bootMib: 256, rootMib: 1024, slotMib: 1536, dataMib: 64 };
  assert.throws(
    () => renderGenimageConfig({ ...layout, bootMib: 250 }),
    /boot size must be a positive multiple of 4 MiB/,
  );
  assert.throws(() => renderGenimageConfig({ ...layout, slotMib: 1538 }), /slot size must be a positive multiple/);
  assert.throws(() => renderGenimageConfig({ ...layout, rootMib: 1540 }), /does not fit a slot \(1536 MiB\)/);
  assert.throws(() => renderGenimageConfig({ ...layout, imageName: 'a b.img' }), /image name/);
});

test('the manifest lists installed Debian packages and production npm packages with exact versions', () => {
  const status = [
    'Package: nodejs\nStatus: install ok installed\nArchitecture: arm64\nVersion: 20.19.2+dfsg-1+deb13u3\n',
    'Package: removed-one\nStatus: deinstall ok config-files\nArchitecture: arm64\nVersion: 1.0\n',
    'Package: base-files\nStatus: install ok installed\nArchitecture: arm64\nVersion: 13.8+deb13u1\n',
  ].join('\n');
  const lock = {
    packages: {
      '': { version: '0.1.0' },
      'node_modules/hono': { version: '4.13.19' },
      'node_modules/typescript': { version: '5.9.3', dev: true },
      'node_modules/a/node_modules/b': { version: '1.0.0' },
    },
  };
  const text = renderManifest({
    name: 'vigil-0.1.0-arm64',
    builtAt: new Date('2026-11-23T22:00:00Z'),
    commit: 'abc',
    sources: ['deb http://deb.debian.org/debian trixie main'],
    debian: dpkgPackages(status),
    npm: npmPackages(lock),
  });
  assert.is(
    text,
    [
      '# Vigil image manifest: vigil-0.1.0-arm64',
      '# built 2026-11-23T22:00:00.000Z from commit abc',
      '# source: deb http://deb.debian.org/debian trixie main',
      '',
      '[debian] 2 packages (name version architecture)',
      'base-files 13.8+deb13u1 arm64',
      'nodejs 20.19.2+dfsg-1+deb13u3 arm64',
      '',
      '[npm] 2 production packages (name version)',
      'b 1.0.0',
      'hono 4.13.19',
      '',
    ].join('\n'),
  );
});

test.run();
