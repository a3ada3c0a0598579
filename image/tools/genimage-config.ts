/**
 * The genimage(1) configuration of the SD image (docs/image.md): an MBR card with a FAT boot partition
 * (the Pi firmware reads only FAT on MBR), the ext4 root, and a small ext4 data partition that grows to
 * fill the card on first boot. Partitions are 4 MiB-aligned (SD erase blocks). Pure: numbers in, text out.
 */
export const BOOT_LABEL = 'VIGIL-BOOT';
export const ROOT_LABEL = 'vigil-root';
export const DATA_LABEL = 'vigil-data';
const ALIGN_MIB = 4;

export interface ImageLayout {
  readonly imageName: string;
  readonly bootMib: number;
  readonly rootMib: number;
  readonly dataMib: number;
}

/** Root size for the files it must hold: a quarter more for ext4's metadata and inodes, plus 128 MiB, 4 MiB-aligned. */
export function rootSizeMib(usedKib: number): number {
  const wanted = Math.ceil((usedKib * 1.25) / 1024) + 128;
  return Math.ceil(wanted / ALIGN_MIB) * ALIGN_MIB;
}

export function renderGenimageConfig(layout: ImageLayout): string {
  for (const [name, mib] of [
    ['boot', layout.bootMib],
    ['root', layout.rootMib],
    ['data', layout.dataMib],
  ] as const) {
    if (!Number.isInteger(mib) || mib <= 0 || mib % ALIGN_MIB !== 0)
      throw new RangeError(`${name} size must be a positive multiple of ${ALIGN_MIB} MiB, got ${mib}`);
  }
  if (!/^[A-Za-z0-9._-]+\.img$/.test(layout.imageName))
    throw new RangeError(`image name must be a plain file name ending in .img, got '${layout.imageName}'`);
  return `# Rendered by image/tools/genimage-config.ts for ./build.sh image (docs/image.md).
image boot.vfat {
  vfat {
    label = "${BOOT_LABEL}"
  }
  mountpoint = "/boot/firmware"
  size = ${layout.bootMib}M
}

image root.ext4 {
  ext4 {
    label = "${ROOT_LABEL}"
    use-mke2fs = true
    # read-only at run time: no blocks reserved for root
    extraargs = "-m 0"
  }
  mountpoint = "/"
  size = ${layout.rootMib}M
}

image data.ext4 {
  ext4 {
    label = "${DATA_LABEL}"
    use-mke2fs = true
    # 4 KiB blocks and the default inode ratio: mke2fs would pick its "small" profile (1 KiB blocks)
    # for 64 MiB, and the partition grows to the whole card on first boot.
    extraargs = "-m 1 -b 4096 -T default"
  }
  empty = true
  size = ${layout.dataMib}M
}

image ${layout.imageName} {
  hdimage {
    partition-table-type = "mbr"
    align = ${ALIGN_MIB}M
  }
  partition boot {
    partition-type = 0xC
    bootable = true
    image = "boot.vfat"
  }
  partition root {
    partition-type = 0x83
    image = "root.ext4"
  }
  partition data {
    partition-type = 0x83
    image = "data.ext4"
  }
}
`;
}
