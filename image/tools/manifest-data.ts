/**
 * Pure parts of the image manifest: installed packages from a dpkg status file (deb-control(5) paragraphs)
 * and production packages from an npm lockfile (lockfileVersion 2/3 `packages` map).
 */
export interface PackageVersion {
  readonly name: string;
  readonly version: string;
  readonly arch?: string;
}

export function dpkgPackages(status: string): PackageVersion[] {
  const found: PackageVersion[] = [];
  for (const paragraph of status.split(/\n\s*\n/)) {
    const field = (name: string): string | undefined =>
      new RegExp(`^${name}: *(.*)$`, 'm').exec(paragraph)?.[1]?.trim();
    const name = field('Package');
    const version = field('Version');
    if (!name || !version || field('Status') !== 'install ok installed') continue;
    found.push({ name, version, arch: field('Architecture') ?? 'unknown' });
  }
  return found.sort((a, b) => a.name.localeCompare(b.name));
}

export function npmPackages(lock: unknown): PackageVersion[] {
  const packages = (lock as { packages?: Record<string, { version?: string; dev?: boolean }> }).packages ?? {};
  const found: PackageVersion[] = [];
  for (const [path, entry] of Object.entries(packages)) {
    if (path === '' || entry.dev === true || typeof entry.version !== 'string') continue;
    found.push({ name: path.replace(/^.*node_modules\//, ''), version: entry.version });
  }
  return found.sort((a, b) => a.name.localeCompare(b.name) || a.version.localeCompare(b.version));
}

export interface ManifestInput {
  readonly name: string;
  readonly builtAt: Date;
  readonly commit: string | null;
  readonly sources: readonly string[];
  readonly debian: readonly PackageVersion[];
  readonly npm: readonly PackageVersion[];
}

export function renderManifest(input: ManifestInput): string {
  const lines = [
    `# Vigil image manifest: ${input.name}`,
    `# built ${input.builtAt.toISOString()}${input.commit ? ` from commit ${input.commit}` : ''}`,
    ...input.sources.map((s) => `# source: ${s}`),
    '',
    `[debian] ${input.debian.length} packages (name version architecture)`,
    ...input.debian.map((p) => `${p.name} ${p.version} ${p.arch ?? ''}`.trimEnd()),
    '',
    `[npm] ${input.npm.length} production packages (name version)`,
    ...input.npm.map((p) => `${p.name} ${p.version}`),
    '',
  ];
  return lines.join('\n');
}
