import { strict as assert } from 'assert';
import { DEFAULT_GPU_QUERY_FIELDS, parseGpuQuery } from '../../../src/core/parsers/gpuQuery';
import { checksFor, expectOk, readFixture } from '../../support/parsing';
import { summarizeGpuQuery } from '../../../src/cli/summary/gpuQuery';

const parsed = (text: string, fields?: readonly string[]) => expectOk(parseGpuQuery(text, fields));
const { failure: errorOf } = checksFor(parseGpuQuery);

const MIXED = 'geforce-rtx5060ti-rtx5060-csv-header-crlf.txt';

describe('parseGpuQuery', () => {
  describe('real fixtures (--format=csv with header, CRLF)', () => {
    it('reads hxs-4: RTX 5060 Ti and RTX 5060, header decides the five columns', () => {
      const value = parsed(readFixture('gpus', MIXED));
      assert.equal(value.status, 'ok');
      assert.equal(value.hadHeader, true);
      assert.deepEqual(value.columns, ['index', 'name', 'pci.bus_id', 'driver_version', 'memory.total']);
      assert.equal(value.gpus.length, 2);
      const [first, second] = value.gpus;
      assert.equal(first.index, 0);
      assert.equal(first.name, 'NVIDIA GeForce RTX 5060 Ti');
      assert.equal(first.pciBusId, '00000000:01:00.0');
      assert.equal(first.driverVersion, '580.173.02');
      assert.equal(first.fields['memory.total'], '16311 MiB');
      assert.equal(first.line, 2);
      assert.equal(second.index, 1);
      assert.equal(second.name, 'NVIDIA GeForce RTX 5060');
      assert.equal(second.pciBusId, '00000000:07:00.0');
      assert.equal(second.fields['memory.total'], '8151 MiB');
      assert.equal(second.line, 3);
    });

    it('reads hxs-1: two RTX 4070 Ti SUPER on buses 02 and 81', () => {
      const value = parsed(readFixture('gpus', 'geforce-rtx4070tisuper-x2-csv-header-crlf.txt'));
      assert.deepEqual(
        value.gpus.map((g) => [g.index, g.name, g.pciBusId, g.driverVersion, g.fields['memory.total']]),
        [
          [0, 'NVIDIA GeForce RTX 4070 Ti SUPER', '00000000:02:00.0', '580.173.02', '16376 MiB'],
          [1, 'NVIDIA GeForce RTX 4070 Ti SUPER', '00000000:81:00.0', '580.173.02', '16376 MiB'],
        ],
      );
    });

    it('reads hxs-2: two RTX 5060 Ti on buses 02 and 03', () => {
      const value = parsed(readFixture('gpus', 'geforce-rtx5060ti-x2-csv-header-crlf.txt'));
      assert.deepEqual(
        value.gpus.map((g) => g.pciBusId),
        ['00000000:02:00.0', '00000000:03:00.0'],
      );
      assert.deepEqual(
        value.gpus.map((g) => g.name),
        ['NVIDIA GeForce RTX 5060 Ti', 'NVIDIA GeForce RTX 5060 Ti'],
      );
    });

    it('lets the header win over the field list passed in', () => {
      const value = parsed(readFixture('gpus', MIXED), ['uuid']);
      assert.deepEqual(value.columns, ['index', 'name', 'pci.bus_id', 'driver_version', 'memory.total']);
      assert.equal(value.gpus[1].name, 'NVIDIA GeForce RTX 5060');
    });
  });

  describe('noheader variant (the header line of a real fixture removed)', () => {
    const noHeader = readFixture('gpus', MIXED).split(/\r?\n/).slice(1).join('\r\n');

    it('uses the field list it is given', () => {
      const value = parsed(noHeader, ['index', 'name', 'pci.bus_id', 'driver_version', 'memory.total']);
      assert.equal(value.hadHeader, false);
      assert.equal(value.gpus[0].pciBusId, '00000000:01:00.0');
      assert.equal(value.gpus[1].fields['memory.total'], '8151 MiB');
    });

    it('maps query aliases to the names nvidia-smi prints (gpu_name, gpu_bus_id)', () => {
      const value = parsed(noHeader, ['index', 'gpu_name', 'gpu_bus_id', 'driver_version', 'memory.total']);
      assert.equal(value.gpus[1].name, 'NVIDIA GeForce RTX 5060');
      assert.equal(value.gpus[1].pciBusId, '00000000:07:00.0');
    });

    it('fails at line 1 when the default four fields do not match the five printed', () => {
      assert.deepEqual(DEFAULT_GPU_QUERY_FIELDS, ['index', 'name', 'pci.bus_id', 'driver_version']);
      errorOf(noHeader, 1, /expected 4 comma-separated fields .* found 5/);
    });

    it('reads the default four fields', () => {
      const fourFields = '0, NVIDIA A100-SXM4-80GB, 00000000:07:00.0, 535.129.03\n';
      const value = parsed(fourFields);
      assert.deepEqual(value.gpus[0], {
        line: 1,
        index: 0,
        name: 'NVIDIA A100-SXM4-80GB',
        pciBusId: '00000000:07:00.0',
        driverVersion: '535.129.03',
        fields: { index: '0', name: 'NVIDIA A100-SXM4-80GB', 'pci.bus_id': '00000000:07:00.0', driver_version: '535.129.03' },
      });
    });

    it('keeps [N/A] and [Not Supported] as printed', () => {
      const text = noHeader.replace('16311 MiB', '[N/A]').replace('8151 MiB', '[Not Supported]');
      const value = parsed(text, ['index', 'name', 'pci.bus_id', 'driver_version', 'memory.total']);
      assert.equal(value.gpus[0].fields['memory.total'], '[N/A]');
      assert.equal(value.gpus[1].fields['memory.total'], '[Not Supported]');
    });
  });

  describe("nvidia-smi's own errors are typed results, not ParseErrors", () => {
    it('driver not loaded → driver-unreachable', () => {
      const value = parsed(readFixture('gpus', 'driver-not-loaded-couldnt-communicate.txt'));
      assert.equal(value.status, 'driver-unreachable');
      assert.equal(value.gpus.length, 0);
      assert.equal(value.smiError?.line, 1);
      assert.match(value.smiError?.message ?? '', /^NVIDIA-SMI has failed because it couldn't communicate/);
    });

    it('no GPU visible → no-devices', () => {
      const value = parsed(readFixture('gpus', 'no-devices-found.txt'));
      assert.equal(value.status, 'no-devices');
      assert.equal(value.smiError?.message, 'No devices were found');
    });

    it('NVML version mismatch → nvml-init-failed', () => {
      const value = parsed('Failed to initialize NVML: Driver/library version mismatch\n');
      assert.equal(value.status, 'nvml-init-failed');
    });
  });

  describe('malformed input gives a located ParseError', () => {
    it('empty input → line 1', () => {
      assert.equal(errorOf('').line, 1);
      assert.equal(errorOf('\n\n  \n').line, 1);
    });

    it('garbage text → line 1', () => {
      errorOf('hello world\n', 1, /expected 4 comma-separated fields/);
    });

    it('a real output cut in the middle of its last row → line 3', () => {
      const text = readFixture('gpus', MIXED);
      const cut = text.slice(0, text.indexOf('00000000:07:00.0') + 'fffffff'.length);
      errorOf(cut, 3, /expected 5 comma-separated fields .* found 3/);
    });

    it('a real output cut right after its header → line 1', () => {
      const headerOnly = readFixture('gpus', MIXED).split(/\r?\n/)[0] + '\r\n';
      errorOf(headerOnly, 1, /not followed by any GPU row/);
    });

    it("the wrong command's output (nvidia-smi -q) → line 2, the banner", () => {
      errorOf(readFixture('smi-q', 'geforce-rtx3090-x2-bar1-256mib-driver560.txt'), 2, /NVSMI LOG/);
    });

    it('a non-numeric index → that line', () => {
      const text = readFixture('gpus', MIXED).replace('\r\n1, ', '\r\nx, ');
      errorOf(text, 3, /GPU index/);
    });

    it('a malformed bus id → that line', () => {
      const text = readFixture('gpus', MIXED).replace('00000000:01:00.0', '01:00');
      assert.equal(errorOf(text).line, 2);
    });

    it('a blank line between rows → that line', () => {
      const text = readFixture('gpus', MIXED).replace('16311 MiB\r\n', '16311 MiB\r\n\r\n');
      assert.equal(errorOf(text).line, 3);
    });

    it('nvidia-smi rejecting a field name → line 1', () => {
      errorOf('Field "pci.bus" is not a valid field to query.\n\n', 1, /rejected the field list/);
    });

    it('binary input → ParseError', () => {
      assert.equal(parseGpuQuery('0, a\u0000b').ok, false);
    });
  });

  describe('summarizeGpuQuery', () => {
    it('lists each GPU with its bus id, driver and extra fields', () => {
      const text = summarizeGpuQuery(parsed(readFixture('gpus', MIXED)));
      assert.equal(
        text,
        [
          '2 GPU(s):',
          '  GPU 0  NVIDIA GeForce RTX 5060 Ti  00000000:01:00.0  driver 580.173.02  memory.total=16311 MiB',
          '  GPU 1  NVIDIA GeForce RTX 5060  00000000:07:00.0  driver 580.173.02  memory.total=8151 MiB',
        ].join('\n'),
      );
    });

    it('explains a driver that is not loaded', () => {
      const text = summarizeGpuQuery(parsed(readFixture('gpus', 'driver-not-loaded-couldnt-communicate.txt')));
      assert.match(text, /kernel driver is not loaded/);
      assert.ok(!text.endsWith('\n'));
    });
  });
});
