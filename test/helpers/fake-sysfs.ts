/**
 * A temporary directory laid out like /sys for the GPIO driver (docs/leds.md §Tests): gpiochipN/
 * with label, base and ngpio, the export and unexport files, and the device-tree model. A small
 * shell process plays the kernel's part. export and unexport are FIFOs: a number within a chip's
 * range becomes gpioN/ with direction, value, active_low and edge; unexport removes it; a number
 * outside every chip is refused (recorded, no directory: the kernel's EINVAL). GPIO is the one
 * part that cannot exist on a development machine, so this is the only fake the LED tests use,
 * under the real driver.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { tempDir } from './temp-dir.js';
import { tool } from './system-tools.js';

// $1: class/gpio dir; $2: export|unexport. Chips are read from .chips ("base ngpio" lines) per message.
// The loop holds its FIFO open read-write for its whole life. Reopening it per message (cat) lost
// writes: a write that opened the FIFO after cat's EOF but before its close went into a pipe that
// was then discarded (onoff's close() writes three unexports back to back; CI saw one vanish).
// Held open, the pipe always has a reader, so nothing written is lost. A message is what arrives
// before 10 ms of quiet (one write arrives whole); writes that arrive together are read together
// ("529539"): onoff writes the bare number, so unexport takes the exported numbers off the front.
const KERNEL = `
dir=$1; file=$2
exec 3<>"$dir/$file"
while :; do
  IFS= read -r -N 1 data <&3 || exit 0
  while IFS= read -r -N 1 -t 0.01 more <&3; do data=$data$more; done
  data=\${data//[!0-9]/}
  [ -n "$data" ] || continue
  if [ "$file" = unexport ]; then
    while [ -n "$data" ]; do
      hit=
      for line in "$dir"/gpio[0-9]*; do
        n=\${line##*/gpio}
        case "$data" in "$n"*) hit=$n; break;; esac
      done
      if [ -z "$hit" ]; then echo "refused $data" >> "$dir/.log"; break; fi
      rm -rf "$dir/gpio$hit"; echo "unexport $hit" >> "$dir/.log"; data=\${data#"$hit"}
    done
    continue
  fi
  n=$data ok=
  while read -r base ngpio; do
    [ "$n" -ge "$base" ] && [ "$n" -lt $((base + ngpio)) ] && ok=1
  done < "$dir/.chips"
  if [ -z "$ok" ]; then echo "refused $n" >> "$dir/.log"; continue; fi
  # The kernel's line directory appears whole: built aside and renamed into place, so a driver that
  # polls for it never finds a value file before its initial 0 is written (and then overwritten). The
  # export is logged before the directory appears: a test that saw the driver return reads it logged.
  tmp="$dir/.gpio$n.new"; rm -rf "$tmp"; mkdir -p "$tmp"
  echo in > "$tmp/direction"; echo 0 > "$tmp/value"; echo 0 > "$tmp/active_low"; echo none > "$tmp/edge"
  echo "export $n" >> "$dir/.log"
  if [ -d "$dir/gpio$n" ]; then rm -rf "$tmp"; else mv "$tmp" "$dir/gpio$n"; fi
done
`;

export class FakeSysfs {
  readonly root: string;
  readonly classDir: string;
  private readonly dir: { path: string; remove(): void };
  private readonly kernels: ChildProcess[] = [];

  constructor() {
    this.dir = tempDir('vigil-sysfs-');
    this.root = this.dir.path;
    this.classDir = join(this.root, 'class', 'gpio');
  }

  /** Creates class/gpio with its export and unexport FIFOs, and starts answering them. */
  withGpioClass(): this {
    mkdirSync(this.classDir, { recursive: true });
    writeFileSync(join(this.classDir, '.chips'), '');
    writeFileSync(join(this.classDir, '.log'), '');
    execFileSync(tool('mkfifo'), [join(this.classDir, 'export'), join(this.classDir, 'unexport')]);
    return this;
  }

  /** Starts the kernel loops (call once the tree is built; writes to export block until then). */
  start(): this {
    for (const file of ['export', 'unexport']) {
      this.kernels.push(
        spawn(tool('bash'), ['-c', KERNEL, 'kernel', this.classDir, file], { stdio: 'ignore', detached: true }),
      );
    }
    return this;
  }

  /** `exportable` lines (default all) are what the kernel accepts on export; the rest are refused. */
  addChip(label: string, base: number, ngpio: number, exportable = ngpio): this {
    const chip = join(this.classDir, `gpiochip${base}`);
    mkdirSync(chip, { recursive: true });
    writeFileSync(join(chip, 'label'), `${label}\n`);
    writeFileSync(join(chip, 'base'), `${base}\n`);
    writeFileSync(join(chip, 'ngpio'), `${ngpio}\n`);
    appendFileSync(join(this.classDir, '.chips'), `${base} ${exportable}\n`);
    return this;
  }

  /** The device-tree model, NUL-terminated as the kernel shows it. */
  setModel(model: string): this {
    const dir = join(this.root, 'firmware', 'devicetree', 'base');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'model'), `${model}\0`);
    return this;
  }

  /** What the "kernel" did, in order: numbers exported, unexported, refused. */
  get exported(): number[] {
    return this.log('export');
  }
  get unexported(): number[] {
    return this.log('unexport');
  }
  get refused(): number[] {
    return this.log('refused');
  }

  line(number: number, file: 'value' | 'direction' | 'active_low'): string | null {
    const path = join(this.classDir, `gpio${number}`, file);
    return existsSync(path) ? readFileSync(path, 'utf8').trim() : null;
  }

  isExported(number: number): boolean {
    return existsSync(join(this.classDir, `gpio${number}`));
  }

  remove(): void {
    for (const kernel of this.kernels.splice(0)) {
      try {
        if (kernel.pid) process.kill(-kernel.pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
    this.dir.remove();
  }

  private log(what: string): number[] {
    const path = join(this.classDir, '.log');
    if (!existsSync(path)) return [];
    return readFileSync(path, 'utf8')
      .split('\n')
      .filter((l) => l.startsWith(`${what} `))
      .map((l) => Number(l.split(' ')[1]));
  }
}
