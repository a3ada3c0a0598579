/**
 * Serial figures (docs/benchmarks.md). GSM modem section: SMS decoded per second and the AT round trip
 * over a pseudo-terminal (bench/lib/modem-figures.ts). Needs socat.
 *
 *   node dist/bench/serial.js
 */
import { modemFigures } from './lib/modem-figures.js';

process.stdout.write('GSM modem\n');
for (const line of await modemFigures()) process.stdout.write(`  ${line}\n`);
