/**
 * onoff's Gpio class for a given sysfs GPIO directory. onoff (pinned by the design card) hard-codes
 * '/sys/class/gpio/'; to run its real code against a test tree laid out like sysfs, its module is
 * compiled here with that one constant replaced, so tests exercise exactly the export, direction,
 * active_low and value I/O the board gets. The production directory loads onoff unchanged.
 * onoff loads the native `epoll` module: both happen only when a GPIO chip was found.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { compileFunction } from 'node:vm';
import type { Gpio } from 'onoff';

export type GpioClass = typeof Gpio;

const ONOFF_ROOT_DECLARATION = "const GPIO_ROOT_PATH = '/sys/class/gpio/';";
const requireHere = createRequire(import.meta.url);

export function loadGpioClass(gpioClassDir: string): GpioClass {
  const dir = gpioClassDir.endsWith('/') ? gpioClassDir : `${gpioClassDir}/`;
  if (dir === '/sys/class/gpio/') return (requireHere('onoff') as { Gpio: GpioClass }).Gpio;
  const file = requireHere.resolve('onoff');
  const source = readFileSync(file, 'utf8');
  if (!source.includes(ONOFF_ROOT_DECLARATION)) {
    throw new Error(`${file} no longer declares ${ONOFF_ROOT_DECLARATION}: cannot point onoff at ${dir}`);
  }
  const patched = source.replace(ONOFF_ROOT_DECLARATION, `const GPIO_ROOT_PATH = ${JSON.stringify(dir)};`);
  const load = compileFunction(patched, ['exports', 'require', 'module', '__filename', '__dirname'], {
    filename: file,
  });
  const module = { exports: {} as { Gpio?: GpioClass } };
  load(module.exports, createRequire(file), module, file, dirname(file));
  if (!module.exports.Gpio) throw new Error(`${file} did not export Gpio`);
  return module.exports.Gpio;
}
