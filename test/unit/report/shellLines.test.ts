// Every shell line gdr-doctor hands a user to copy or paste (the topology panel's Copy buttons, the
// exported Markdown report, the CLI's suggested environment) is quoted by src/core/shellText.ts. Checked
// with a real POSIX sh: each generated value, however hostile, comes back byte for byte and runs nothing,
// and NCCL_IB_HCA keeps its leading "=" (NCCL's exact-match prefix).
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { diagnose } from '../../../src/core/diagnosis';
import { DEMO_HOST_NAME, DemoHost } from '../../../src/core/transport/demo';
import { runProbe } from '../../../src/core/probe/runProbe';
import { formatMarkdownReport } from '../../../src/core/report/diagnosisReport';
import { shQuote, shellAssignment } from '../../../src/core/shellText';
import { labTopologyData } from '../vscode/labTopology';
import { DEMO_DIR } from '../../support/paths';

/** Values built from every character a shell gives a meaning to, each also doubled and at both ends. */
function hostileValues(): string[] {
  const specials = [...';|&$`\'"\\<>(){}[]*?~#!=,^% \t\n', '$(touch PWNED)', '`touch PWNED`', "'; touch PWNED; '"];
  return ['=mlx5_0:1', 'm;id>/tmp/pwn;:1', '', ...specials.flatMap((c) => [c, `${c}${c}`, `a${c}b`, `=${c}`])];
}

/** What `sh` holds in NAME after running each line (one sh for all), and whether anything was created. */
function shellReads(lines: readonly string[], name: string): { values: string[]; created: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gdr-shell-line-'));
  try {
    const script = lines.map((line) => `${line}\nprintf '%s\\0' "$${name}"`).join('\n');
    const out = execFileSync('sh', ['-c', script], { cwd: dir, encoding: 'utf8' });
    return { values: out.split('\0').slice(0, -1), created: fs.readdirSync(dir) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('shell lines for the user to copy', () => {
  it('shellAssignment: sh reads back every generated value exactly and runs nothing', () => {
    const values = hostileValues();
    assert.deepEqual(
      shellReads(
        values.map((v) => shellAssignment('NCCL_IB_HCA', v)),
        'NCCL_IB_HCA',
      ),
      { values, created: [] },
    );
  });

  it('shQuote: one word, read literally', () => {
    const values = hostileValues();
    assert.deepEqual(
      shellReads(
        values.map((v) => `X=${shQuote(v)}`),
        'X',
      ),
      { values, created: [] },
    );
  });

  it('refuses a variable name that is not one', () => {
    for (const name of ['', '1X', 'A B', 'X;touch PWNED', 'X='])
      assert.throws(() => shellAssignment(name, 'v'), /not a shell variable name/);
  });

  it("the exported report's suggested environment is quoted and keeps NCCL_IB_HCA's '='", async () => {
    const report = await runProbe(new DemoHost(DEMO_DIR).runner(), { host: DEMO_HOST_NAME });
    const diagnosis = diagnose(report);
    const hca = diagnosis.suggestedEnv.env.NCCL_IB_HCA;
    assert.match(hca, /^=mlx5_/);
    const md = formatMarkdownReport(report, diagnosis);
    const line = md.split('\n').find((l) => l.startsWith('NCCL_IB_HCA'));
    assert.equal(line, shellAssignment('NCCL_IB_HCA', hca));
    assert.deepEqual(shellReads([line ?? ''], 'NCCL_IB_HCA').values, [hca]);
  });

  it("the topology panel copies the whole host's environment as a quoted assignment", async () => {
    const data = await labTopologyData('pxn-port-down');
    assert.ok(data.env.length > 0);
    for (const e of data.env) {
      assert.equal(e.shell, shellAssignment(e.name, e.value));
      assert.deepEqual(shellReads([e.shell], e.name).values, [e.value]);
    }
    assert.match(data.env.find((e) => e.name === 'NCCL_IB_HCA')?.shell ?? '', /^NCCL_IB_HCA='=mlx5_/);
  });
});
