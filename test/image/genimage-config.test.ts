import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { renderGenimageConfig, rootSizeMib } from '../../image/tools/genimage-config.js';
import { dpkgPackages, npmPackages, renderManifest } from '../../image/tools/manifest-data.js';

test('the card is MBR, 4 MiB-aligned: bootable FAT boot at /boot/firmware, ext4 root, empty ext4 data', () => {
  const text = renderGenimageConfig({ imageName: 'vigil-1.2.3-arm64.img', bootMib: 256, rootMib: 1024, dataMib: 64 });
  const image = /image vigil-1\.2\.3-arm64\.img \{([\s\S]*)\}\s*$/.exec(text)?.[1] ?? '';
  assert.match(image, /partition-table-type = "mbr"\n\s+align = 4M\n/);
  assert.equal(
    [...image.matchAll(/partition (\w+) \{\s+partition-type = (0x\w+)(\s+bootable = true)?\s+image = "([\w.]+)"/g)].map(
      (m) => [m[1], m[2], Boolean(m[3]), m[4]],
    ),
    [
      ['boot', '0xC', true, 'boot.vfat'],
      ['root', '0x83', false, 'root.ext4'],
      ['data', '0x83', false, 'data.ext4'],
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

test('labels match what fstab, cmdline and the data-partition script look for', async () => {
  const { readFileSync } = await import('node:fs');
  const fstab = readFileSync(new URL('../../../image/overlay/etc/fstab', import.meta.url), 'utf8');
  assert.match(fstab, /^LABEL=vigil-root +\/ +ext4 +ro,/m);
  assert.match(fstab, /^LABEL=VIGIL-BOOT +\/boot\/firmware +vfat +ro,/m);
  assert.match(fstab, /^LABEL=vigil-data +\/var\/lib\/vigil +ext4 +/m);
  const hook = readFileSync(new URL('../../../image/hooks/customize-base.sh', import.meta.url), 'utf8');
  assert.match(hook, /ROOTPART=LABEL=vigil-root/);
  const prepare = readFileSync(new URL('../../../image/overlay/usr/lib/vigil/data-prepare', import.meta.url), 'utf8');
  assert.match(prepare, /\/dev\/disk\/by-label\/vigil-data/);
});

test('root size leaves a quarter plus 128 MiB of room, 4 MiB-aligned; bad sizes and names are refused', () => {
  assert.is(rootSizeMib(800 * 1024), 1128);
  assert.is(rootSizeMib(1), 132);
  assert.throws(
    () => renderGenimageConfig({ imageName: 'x.img', bootMib: 250, rootMib: 1024, dataMib: 64 }),
    /boot size must be a positive multiple of 4 MiB/,
  );
  assert.throws(
    () => renderGenimageConfig({ imageName: 'a b.img', bootMib: 256, rootMib: 1024, dataMib: 64 }),
    /image name/,
  );
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
