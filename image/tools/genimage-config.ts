/**
 * The genimage(1) configuration of the SD image (docs/image.md "What is on the card"): an MBR card (the
 * Pi 3 boot ROM reads nothing else) with a FAT boot partition, the two system slots A and B, and a small
 * ext4 data partition that grows to fill the card on first boot. Slot A holds the root file system of
 * this build; slot B is empty until the first update writes a bundle's image into it. The disk
 * signature is fixed: boot.scr and RAUC's system.conf find the slots by PARTUUID (signature-partition),
 * because a slot image is written byte for byte into either slot and its label cannot tell them apart.
 * Partitions are 4 MiB-aligned (SD erase blocks). Pure: numbers in, text out.
 */
export const BOOT_LABEL = 'VIGIL-BOOT';
/** The label of the root file system image, the same in both slots (the slots are told apart by partition). */
export const ROOT_LABEL = 'vigil-root';
export const DATA_LABEL = 'vigil-data';
/** The MBR disk signature ("VIGL"): slot A is PARTUUID 5649474c-02, slot B 5649474c-03. */
export const DISK_SIGNATURE = 0x5649474c;
export const SLOT_PARTITIONS = { A: 2, B: 3 } as const;
/**
 * The root file system's UUID and directory hash seed, the same in every build: with them (and the
 * build's fixed time, build-image.sh) two builds of one tree differ only where their files do, so an
 * adaptive bundle's blocks match what a slot already holds (docs/image.md "Bundles"). Both slots carry
 * the same image anyway; the partitions tell them apart.
 */
export const ROOT_FS_UUID = '5649474c-726f-4f74-8000-000000000001';
export const ROOT_HASH_SEED = '5649474c-6861-4573-8000-000000000002';
export const DATA_PARTITION = 4;
const ALIGN_MIB = 4;

export interface ImageLayout {
  readonly imageName: string;
  readonly bootMib: number;
  /** The root file system image (what a bundle carries). */
  readonly rootMib: number;
  /** Each slot partition: at least rootMib, fixed across versions so that later roots still fit. */
  readonly slotMib: number;
  readonly dataMib: number;
}

/** Where each partition lies on the card genimage writes (MiB from the start), and the image's size. */
export function cardLayoutMib(layout: Pick<ImageLayout, 'bootMib' | 'slotMib' | 'dataMib'>): {
  readonly partitions: ReadonlyArray<{ readonly name: string; readonly startMib: number; readonly sizeMib: number }>;
  readonly totalMib: number;
} {
  // The MBR and the gap before the first partition take one alignment unit; each size is aligned.
  let at = ALIGN_MIB;
  const partitions = (
    [
      ['boot', layout.bootMib],
      ['slot-a', layout.slotMib],
      ['slot-b', layout.slotMib],
      ['data', layout.dataMib],
    ] as const
  ).map(([name, size]) => {
    const sizeMib = Math.ceil(size / ALIGN_MIB) * ALIGN_MIB;
    const part = { name, startMib: at, sizeMib };
    at += sizeMib;
    return part;
  });
  return { partitions, totalMib: at };
}

/** Root size for the files it must hold: a quarter more for ext4's metadata and inodes, plus 128 MiB, 4 MiB-aligned. */
export function rootSizeMib(usedKib: number): number {
  const wanted = Math.ceil((usedKib * 1.25) / 1024) + 128;
  return Math.ceil(wanted / ALIGN_MIB) * ALIGN_MIB;
}

/** The PARTUUID the kernel and udev give a slot's partition on the card. */
export function slotPartuuid(slot: keyof typeof SLOT_PARTITIONS): string {
  return `${DISK_SIGNATURE.toString(16).padStart(8, '0')}-${String(SLOT_PARTITIONS[slot]).padStart(2, '0')}`;
}

export function renderGenimageConfig(layout: ImageLayout): string {
  for (const [name, mib] of [
    ['boot', layout.bootMib],
    ['root', layout.rootMib],
    ['slot', layout.slotMib],
    ['data', layout.dataMib],
  ] as const) {
    if (!Number.isInteger(mib) || mib <= 0 || mib % ALIGN_MIB !== 0)
      throw new RangeError(`${name} size must be a positive multiple of ${ALIGN_MIB} MiB, got ${mib}`);
  }
  if (layout.rootMib > layout.slotMib)
    throw new RangeError(
      `the root file system (${layout.rootMib} MiB) does not fit a slot (${layout.slotMib} MiB): raise SLOT_MIB in image/build-image.sh for new cards, and know that cards made with the old size cannot take this update`,
    );
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
    # read-only at run time: no blocks reserved for root; a fixed UUID and hash seed, so that builds of
    # one tree differ only where their files do (genimage's own -E options again: the last -E counts)
    extraargs = "-m 0 -U ${ROOT_FS_UUID} -E root_owner=0:0,lazy_itable_init=0,lazy_journal_init=0,hash_seed=${ROOT_HASH_SEED}"
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
    disk-signature = 0x${DISK_SIGNATURE.toString(16)}
  }
  partition boot {
    partition-type = 0xC
    bootable = true
    image = "boot.vfat"
  }
  partition slot-a {
    partition-type = 0x83
    image = "root.ext4"
    size = ${layout.slotMib}M
  }
  partition slot-b {
    partition-type = 0x83
    size = ${layout.slotMib}M
  }
  partition data {
    partition-type = 0x83
    image = "data.ext4"
  }
}
`;
}
