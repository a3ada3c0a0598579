/** The Prometheus text filter behind the visible-receivers rule of GET /metrics (src/metrics/visible-series.ts). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { filterExposition, sampleLabels } from '../../src/metrics/visible-series.js';

test('label values are read with their escapes; a line that does not parse is dropped; comments stay', () => {
  assert.equal(sampleLabels('up 1'), {});
  assert.equal(sampleLabels('a{x="q\\"uo\\\\te\\n",receiver="2"} 1'), { x: 'q"uo\\te\n', receiver: '2' });
  assert.is(sampleLabels('a{x="unterminated} 1'), null);
  const text = [
    '# HELP a help',
    '# TYPE a gauge',
    'a{receiver="1"} 1',
    'a{receiver="2",x="}"} 2',
    'a{receiver=2} 3',
    'b 4',
    '',
  ].join('\n');
  assert.is(
    filterExposition(text, (l) => l.receiver !== '2'),
    ['# HELP a help', '# TYPE a gauge', 'a{receiver="1"} 1', 'b 4', ''].join('\n'),
  );
});

test.run();
