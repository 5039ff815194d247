// The Prometheus text format as node_exporter's textfile collector and promtool read it: HELP/TYPE once
// per family, each series once, label values escaped (and host text that the format cannot carry
// made harmless), no sample timestamps.
import * as assert from 'node:assert/strict';
import { escapeLabelValue, formatExposition, MAX_LABEL_VALUE, MetricFamily } from '../../../src/core/metrics/exposition';

const gauge = (name: string, samples: MetricFamily['samples']): MetricFamily => ({ name, help: `help of ${name}`, type: 'gauge', samples });

describe('Prometheus exposition text', () => {
  it('writes HELP and TYPE once per family, then its samples, without timestamps', () => {
    const text = formatExposition([
      gauge('gdr_doctor_up', [{ labels: { host: 'gpu01' }, value: 1 }]),
      gauge('gdr_doctor_gpu_gdr', [
        { labels: { host: 'gpu01', gpu: '0' }, value: 1 },
        { labels: { host: 'gpu01', gpu: '1' }, value: NaN },
      ]),
    ]);
    assert.equal(
      text,
      [
        '# HELP gdr_doctor_up help of gdr_doctor_up',
        '# TYPE gdr_doctor_up gauge',
        'gdr_doctor_up{host="gpu01"} 1',
        '# HELP gdr_doctor_gpu_gdr help of gdr_doctor_gpu_gdr',
        '# TYPE gdr_doctor_gpu_gdr gauge',
        'gdr_doctor_gpu_gdr{host="gpu01",gpu="0"} 1',
        'gdr_doctor_gpu_gdr{host="gpu01",gpu="1"} NaN',
        '',
      ].join('\n'),
    );
  });

  it('keeps a series once, whatever the order of its labels, and leaves out a family with no samples', () => {
    const text = formatExposition([
      gauge('gdr_doctor_findings', [
        { labels: { severity: 'error', id: 'peermem.not-loaded' }, value: 1 },
        { labels: { id: 'peermem.not-loaded', severity: 'error' }, value: 2 },
      ]),
      gauge('gdr_doctor_empty', []),
    ]);
    assert.equal(text.match(/^gdr_doctor_findings\{/gm)?.length, 1);
    assert.match(text, /^gdr_doctor_findings\{severity="error",id="peermem.not-loaded"\} 1$/m);
    assert.doesNotMatch(text, /gdr_doctor_empty/);
    assert.equal(formatExposition([]), '');
  });

  it('escapes backslash, quote and newline in label values; other control characters become U+FFFD', () => {
    assert.equal(escapeLabelValue('a\\b"c\nd'), 'a\\\\b\\"c\\nd');
    // ESC, CR, TAB and C1 CSI from a host: no escape exists for them in the format, and a terminal must not get them.
    assert.equal(escapeLabelValue('x\x1b[2Jy\rz\tw\u009b'), 'x\ufffd[2Jy\ufffdz\ufffdw\ufffd');
    assert.equal(escapeLabelValue('GPU-b42dd28e-ffdd'), 'GPU-b42dd28e-ffdd');
  });

  it('cuts a long label value to a bound, and two values equal once cut are one series', () => {
    const long = 'm'.repeat(MAX_LABEL_VALUE * 4);
    assert.equal([...escapeLabelValue(long)].length, MAX_LABEL_VALUE);
    const text = formatExposition([
      gauge('gdr_doctor_up', [
        { labels: { host: `${long}a` }, value: 1 },
        { labels: { host: `${long}b` }, value: 0 },
      ]),
    ]);
    assert.equal(text.split('\n').filter((l) => l.startsWith('gdr_doctor_up{')).length, 1);
  });
});
