/**
 * Checks a `verity` bundle's payload before it is installed (docs/updates.md "Refusals"). `rauc info`
 * verifies the signature over the manifest only; the payload is protected by a dm-verity hash tree whose
 * root hash, salt and size the signed manifest names. This recomputes that tree from the payload
 * (SHA-256, 4096-byte blocks, the salt before each block: dm-verity format 1) in one streaming read and
 * compares the root hash and the stored tree, so a corrupted or altered byte anywhere is refused without
 * extracting the bundle (which would need the payload's size again in free space).
 *
 * Layout of a bundle (RAUC "Bundle format: verity"): payload | hash tree (verity size) | CMS signature |
 * signature size (u64, big endian).
 */
import { createHash } from 'node:crypto';
import { open } from 'node:fs/promises';

const BLOCK = 4096;
const DIGEST = 32;
const PER_BLOCK = BLOCK / DIGEST;
const READ_CHUNK = 1024 * 1024;

export type PayloadVerdict = { readonly ok: true } | { readonly ok: false; readonly reason: string };

function hashBlock(salt: Buffer, block: Buffer): Buffer {
  return createHash('sha256').update(salt).update(block).digest();
}

/** Packs digests into zero-padded 4096-byte hash blocks. */
function pack(digests: readonly Buffer[]): Buffer[] {
  const blocks: Buffer[] = [];
  for (let i = 0; i < digests.length; i += PER_BLOCK) {
    const block = Buffer.alloc(BLOCK);
    digests.slice(i, i + PER_BLOCK).forEach((digest, j) => {
      digest.copy(block, j * DIGEST);
    });
    blocks.push(block);
  }
  return blocks;
}

export async function checkVerityPayload(
  file: string,
  verity: { readonly hash: string; readonly salt: string; readonly size: number },
): Promise<PayloadVerdict> {
  const handle = await open(file, 'r');
  try {
    const { size: fileSize } = await handle.stat();
    const tail = Buffer.alloc(8);
    if (fileSize < 8 || (await handle.read(tail, 0, 8, fileSize - 8)).bytesRead !== 8)
      return { ok: false, reason: 'the bundle is truncated' };
    const signatureSize = Number(tail.readBigUInt64BE(0));
    const payloadSize = fileSize - 8 - signatureSize - verity.size;
    if (payloadSize <= 0 || payloadSize % BLOCK !== 0 || verity.size % BLOCK !== 0)
      return { ok: false, reason: 'the bundle is truncated or its payload has the wrong size' };
    const salt = Buffer.from(verity.salt, 'hex');
    const digests: Buffer[] = [];
    const buffer = Buffer.alloc(READ_CHUNK);
    for (let offset = 0; offset < payloadSize; ) {
      const want = Math.min(READ_CHUNK, payloadSize - offset);
      const { bytesRead } = await handle.read(buffer, 0, want, offset);
      if (bytesRead !== want) return { ok: false, reason: 'the bundle is truncated' };
      for (let at = 0; at < want; at += BLOCK) digests.push(hashBlock(salt, buffer.subarray(at, at + BLOCK)));
      offset += want;
    }
    // Levels bottom-up; the stored tree holds them top-down (veritysetup's layout).
    const levels: Buffer[][] = [];
    let level = pack(digests);
    levels.push(level);
    while (level.length > 1) {
      level = pack(level.map((block) => hashBlock(salt, block)));
      levels.push(level);
    }
    const root = hashBlock(salt, levels[levels.length - 1]![0]!).toString('hex');
    if (root !== verity.hash)
      return { ok: false, reason: 'the bundle payload is corrupted (its hash does not match the signed one)' };
    const tree = Buffer.concat(levels.reverse().flat());
    const stored = Buffer.alloc(verity.size);
    await handle.read(stored, 0, verity.size, payloadSize);
    if (!stored.subarray(0, tree.length).equals(tree) || stored.subarray(tree.length).some((b) => b !== 0))
      return { ok: false, reason: "the bundle's hash tree is corrupted" };
    return { ok: true };
  } finally {
    await handle.close();
  }
}
