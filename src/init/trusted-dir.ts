/**
 * Whether root may write beneath a directory (docs/security.md "First boot runs as root next to the service user's files"). Node has no openat(2), so a
 * privileged writer resolves the directory once and checks that nobody but root (or the caller itself)
 * can change which directory that path names afterwards:
 * - every component of the resolved path is a real directory owned by root or the caller;
 * - no component's parent is writable by group or others, unless it is sticky (/tmp): the sticky bit
 *   stops others from renaming or removing entries they do not own;
 * - the last directory may belong to the service user when the caller says so (the gateway's data dir):
 *   then its parent must not be writable by group or others at all, because the sticky bit would still
 *   let that owner move it away and put a symlink in its place.
 * Inside a directory the service user owns, files are only ever created by writeFileAtomic
 * (O_EXCL|O_NOFOLLOW, fchown on the descriptor, rename), which follows no name that user controls.
 */
import { lstatSync, realpathSync, type Stats } from 'node:fs';
import { dirname, sep } from 'node:path';
import { VigilError } from '../core/errors.js';

export interface TrustedDirectory {
  /** The resolved path: every later operation uses this one, never the name it was given. */
  readonly path: string;
  readonly uid: number;
  readonly gid: number;
}

export interface TrustOptions {
  /** The directory itself may be owned by another (the service) user: the gateway's data dir. */
  readonly serviceOwned?: boolean;
}

const GROUP_OR_OTHER_WRITE = 0o022;
const STICKY = 0o1000;

export function trustedDirectory(dir: string, options: TrustOptions = {}): TrustedDirectory {
  let real: string;
  try {
    real = realpathSync(dir);
  } catch (err) {
    throw unsafe(dir, `cannot be resolved (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`);
  }
  const self = process.getuid?.() ?? 0;
  const trustedOwner = (stat: Stats): boolean => stat.uid === 0 || stat.uid === self;
  const chain = components(real);
  let parent: Stats | null = null;
  for (const [index, path] of chain.entries()) {
    const stat = lstatSync(path);
    if (!stat.isDirectory()) throw unsafe(path, 'is not a directory');
    const last = index === chain.length - 1;
    const ownedByService = !trustedOwner(stat);
    if (ownedByService && !(last && options.serviceOwned)) throw unsafe(path, `is owned by uid ${stat.uid}, not root`);
    if (parent !== null && (parent.mode & GROUP_OR_OTHER_WRITE) !== 0) {
      if ((parent.mode & STICKY) === 0) throw unsafe(dirname(path), 'is writable by group or others');
      if (ownedByService)
        throw unsafe(dirname(path), `is writable by others, so uid ${stat.uid} could move ${path} away`);
    }
    if (
      last &&
      !ownedByService &&
      !options.serviceOwned &&
      (stat.mode & GROUP_OR_OTHER_WRITE) !== 0 &&
      (stat.mode & STICKY) === 0
    ) {
      throw unsafe(path, 'is writable by group or others');
    }
    parent = stat;
  }
  const stat = lstatSync(real);
  return { path: real, uid: stat.uid, gid: stat.gid };
}

/** `/a/b/c` -> `/`, `/a`, `/a/b`, `/a/b/c`. */
function components(real: string): string[] {
  const parts = real.split(sep).filter((p) => p !== '');
  const chain: string[] = [sep];
  for (let i = 1; i <= parts.length; i += 1) chain.push(sep + parts.slice(0, i).join(sep));
  return chain;
}

function unsafe(path: string, why: string): VigilError {
  return new VigilError('UNSAFE_PATH', `${path} ${why}: refusing to write there`, [path]);
}
