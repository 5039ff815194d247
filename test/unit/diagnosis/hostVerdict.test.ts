// The verdict in a few words that the Hosts view, the status bar and the badge show, on the same hosts
// the diagnosis tests use (hosts.ts: assembled from real outputs).
import * as assert from 'node:assert/strict';
import { Diagnosis, diagnose } from '../../../src/core/diagnosis';
import { findingWords, hostVerdict, shortWords } from '../../../src/core/diagnosis/hostVerdict';
import { LABEL_COLUMNS, findingLabel } from '../../../src/core/diagnosis/findingLabel';
import { displayWidth } from '../../../src/core/columns';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { useBundle } from '../../../src/core/l10n';
import { REPO_ROOT } from '../../support/paths';
import { hostReport } from './hostReport';
import { HEALTHY, NO_PEERMEM } from './hosts';

describe('hostVerdict: a host in a few words', () => {
  let healthy: Diagnosis;
  before(async () => {
    healthy = diagnose(await hostReport(HEALTHY));
  });

  it('a healthy host: how many GPUs NCCL uses GPUDirect RDMA for, and ok', () => {
    assert.deepEqual(hostVerdict(healthy), { text: 'GDR 8/8 GPUs', tone: 'ok', errors: 0, warnings: 0 });
  });

  it('peer memory not loaded: the error names it, not the GPU count', async () => {
    const v = hostVerdict(diagnose(await hostReport(NO_PEERMEM)));
    assert.deepEqual(v, { text: 'peermem not loaded', tone: 'error', errors: 1, warnings: 1 });
  });

  it('GPUs without GDR or a warning make it a warning, still counted', () => {
    const pairs = healthy.pairs.map((p, i) => (i < 2 ? { ...p, gdr: false } : p));
    assert.deepEqual(hostVerdict({ ...healthy, pairs }), { text: 'GDR 6/8 GPUs', tone: 'warning', errors: 0, warnings: 0 });
    const warned = {
      ...healthy,
      findings: [...healthy.findings, { ...healthy.findings[0], id: 'iommu.enabled', severity: 'warning' as const }],
    };
    assert.equal(hostVerdict(warned).tone, 'warning');
    assert.equal(hostVerdict(warned).text, 'GDR 8/8 GPUs · 1 warning');
  });

  it('several errors: the first one, and how many more', () => {
    const error = (id: string) => ({ ...healthy.findings[0], id, severity: 'error' as const });
    const v = hostVerdict({ ...healthy, findings: [error('rdma.none'), error('peermem.not-loaded')] });
    assert.equal(v.text, 'no RDMA NIC +1');
    assert.equal(v.errors, 2);
  });

  it('no GPU↔NIC verdict and no error: says the GPUs were not read', () => {
    const v = hostVerdict({ ...healthy, pairs: [] });
    assert.deepEqual(v, { text: 'GPUs not read', tone: 'warning', errors: 0, warnings: 0 });
  });

  it('a finding without short words shows its title, cut to fit a sidebar', () => {
    assert.equal(findingWords('peermem.not-loaded', 'nvidia_peermem is not loaded'), 'peermem not loaded');
    assert.equal(findingWords('some.other-rule', 'Short title'), 'Short title');
    const cut = findingWords('some.future-rule', 'A rather long title that would not fit beside a host name');
    assert.ok(cut.length <= 28 && cut.endsWith('…'), cut);
  });

  it('a finding row: the title where it fits in 25 columns, else the short words; never longer', () => {
    assert.equal(findingLabel({ id: 'peermem.not-loaded', title: 'nvidia_peermem is not loaded' }), 'peermem not loaded');
    assert.equal(findingLabel({ id: 'peermem.not-persistent', title: 'nvidia_peermem is not loaded at boot' }), 'peermem not at boot');
    assert.equal(findingLabel({ id: 'rdma.port-down', title: 'No active port on mlx5_1' }), 'No active port on mlx5_1');
    const cut = findingLabel({ id: 'some.future-rule', title: 'A rather long title that would not fit beside a host name' });
    assert.ok(displayWidth(cut) <= LABEL_COLUMNS && cut.endsWith('…'), cut);
    // Chinese takes two columns a character.
    assert.equal(displayWidth('nvidia_peermem 未加载'), 21);
    assert.equal(findingLabel({ id: 'peermem.not-loaded', title: 'nvidia_peermem 未在启动时加载，重启后丢失' }), 'peermem not loaded');
  });

  it('every short word fits 25 columns, in English and in Chinese', () => {
    const check = () => {
      for (const [id, words] of Object.entries(shortWords())) assert.ok(displayWidth(words) <= LABEL_COLUMNS, `${id}: ${words}`);
    };
    check();
    const zh = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'l10n/bundle.l10n.zh-cn.json'), 'utf8'));
    try {
      useBundle(zh);
      assert.equal(shortWords()['peermem.not-loaded'], zh['peermem not loaded']);
      check();
    } finally {
      useBundle({});
    }
  });
});
