/**
 * node dist/image/tools/render-genimage.js --image NAME.img --boot-mib N --root-used-kib N --slot-mib N --data-mib N
 * Prints the genimage configuration for build-image.sh.
 */
import { parseArgs } from 'node:util';
import { renderGenimageConfig, rootSizeMib } from './genimage-config.js';

const { values } = parseArgs({
  options: {
    image: { type: 'string' },
    'boot-mib': { type: 'string' },
    'root-used-kib': { type: 'string' },
    'slot-mib': { type: 'string' },
    'data-mib': { type: 'string' },
  },
  strict: true,
});
const number = (name: keyof typeof values): number => {
  const text = values[name];
  if (text === undefined || !/^\d+$/.test(text)) {
    process.stderr.write(`render-genimage: --${name} must be a whole number\n`);
    process.exit(2);
  }
  return Number(text);
};
if (!values.image) {
  process.stderr.write('render-genimage: --image is required\n');
  process.exit(2);
}
process.stdout.write(
  renderGenimageConfig({
    imageName: values.image,
    bootMib: number('boot-mib'),
    rootMib: rootSizeMib(number('root-used-kib')),
    slotMib: number('slot-mib'),
    dataMib: number('data-mib'),
  }),
);
