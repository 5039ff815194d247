import * as assert from 'assert';
import {
  activeMtu,
  activeSpeedGbps,
  activeWidthLanes,
  fieldLines,
  fieldText,
  linkLayer,
  maxMtu,
  parseIbvDevinfo,
  physPortCount,
  physState,
  portRateGbps,
  portState,
} from '../../../src/core/parsers/ibvDevinfo';
import { splitField } from '../../../src/core/parsers/ibvDevinfoBlocks';
import { checksFor, firstLines, readFixture } from '../../support/parsing';
import { summarizeIbvDevinfo } from '../../../src/cli/summary/ibvDevinfo';

const fixture = (name: string): string => readFixture('ibv', name);
const { parsed, failure } = checksFor(parseIbvDevinfo);

const TF_ROCE = 'mlx4-connectx3-roce-2port-device-ports.txt';
const CX3_IB = 'mlx4-connectx3-ib-2dev-2port-port2-down.txt';
const CX3_V = 'mlx4-connectx3-mlnx-ofed4-verbose-single-port-i2.txt';
const CX6_VV = 'mlx5-connectx6-ib-verbose-vv-2dev-port-down.txt';
const MTHCA = 'mthca-infinihost-2010-no-transport-no-link-layer.txt';
const NO_DEV = 'no-ib-devices-found-libibverbs-warnings.txt';
const VF_SPACES = 'mlx4-connectx3-vf-spaces-failed-to-open-device.txt';
const RXE = 'rxe-softroce-2016-no-link-layer-tab4-spaces.txt';
const CHRYSALIS_V = 'mlx5-chrysalis-cx6-ib-2x-cx5-roce-verbose-3dev.txt';

describe('parseIbvDevinfo: real outputs', () => {
  it('ConnectX-3 RoCE, two ports under "Device ports:" (tensorflow gdr README)', () => {
    const v = parsed(fixture(TF_ROCE));
    assert.strictEqual(v.devices.length, 1);
    const d = v.devices[0];
    assert.strictEqual(d.hca_id, 'mlx4_0');
    assert.strictEqual(d.transport, 'InfiniBand (0)');
    assert.strictEqual(d.fw_ver, '2.40.7000');
    assert.strictEqual(d.node_guid, '248a:0703:00f6:3370');
    assert.strictEqual(d.vendor_id, '0x02c9');
    assert.strictEqual(d.vendor_part_id, '4099');
    assert.strictEqual(d.board_id, 'MT_1090110023');
    assert.strictEqual(d.phys_port_cnt, '2');
    assert.strictEqual(d['Device ports'], undefined, 'the heading carries no data');
    assert.deepStrictEqual(
      d.ports.map((p) => p.port),
      [1, 2],
    );
    assert.deepStrictEqual(d.ports[1], {
      port: 2,
      state: 'PORT_ACTIVE (4)',
      max_mtu: '4096 (5)',
      active_mtu: '1024 (3)',
      sm_lid: '0',
      port_lid: '0',
      port_lmc: '0x00',
      link_layer: 'Ethernet',
    });
    assert.deepStrictEqual(v.messages, []);
  });

  it('two ConnectX-3 InfiniBand HCAs, port 2 down on each', () => {
    const v = parsed(fixture(CX3_IB));
    assert.deepStrictEqual(
      v.devices.map((d) => d.hca_id),
      ['mlx4_1', 'mlx4_0'],
    );
    const [a, b] = v.devices;
    assert.strictEqual(a.sys_image_guid, '7cfe:9003:00a5:95c3');
    assert.strictEqual(b.node_guid, 'e41d:2d03:00e0:c740');
    assert.deepStrictEqual(
      a.ports.map((p) => [p.state, p.port_lid]),
      [
        ['PORT_ACTIVE (4)', '22'],
        ['PORT_DOWN (1)', '0'],
      ],
    );
    assert.deepStrictEqual(
      b.ports.map((p) => [p.sm_lid, p.port_lid]),
      [
        ['18', '32'],
        ['0', '0'],
      ],
    );
    assert.strictEqual(b.ports[1].link_layer, 'InfiniBand');
  });

  it('rdma-core -vv on two ConnectX-6: flag lists, nested caps, repeated key, GIDs (openucx/ucx#9908)', () => {
    const v = parsed(fixture(CX6_VV));
    assert.deepStrictEqual(
      v.devices.map((d) => d.hca_id),
      ['mlx5_0', 'mlx5_1'],
    );
    const d = v.devices[0];
    assert.strictEqual(d.max_mr_size, '0xffffffffffffffff');
    assert.strictEqual(d.max_qp_wr, '32768');
    assert.deepStrictEqual(d.device_cap_flags, {
      value: '0x21361c36',
      lines: [
        'BAD_PKEY_CNTR',
        'BAD_QKEY_CNTR',
        'AUTO_PATH_MIG',
        'CHANGE_PHY_PORT',
        'PORT_ACTIVE_EVENT',
        'SYS_IMAGE_GUID',
        'RC_RNR_NAK_GEN',
        'MEM_WINDOW',
        'UD_IP_CSUM',
        'XRC',
        'MEM_MGT_EXTENSIONS',
        'MEM_WINDOW_TYPE_2B',
        'MANAGED_FLOW_STEERING',
      ],
    });
    assert.deepStrictEqual(d.uc_odp_caps, { value: '', lines: ['NO SUPPORT'] });
    assert.deepStrictEqual(d.rss_caps, {
      value: '',
      lines: [
        'max_rwq_indirection_tables:\t\t\t0',
        'max_rwq_indirection_table_size:\t\t\t0',
        'rx_hash_function:\t\t\t\t0x0',
        'rx_hash_fields_mask:\t\t\t\t0x0',
      ],
    });
    assert.deepStrictEqual(d['cq moderation caps'], { value: '', lines: ['max_cq_count:\t65535', 'max_cq_period:\t4095 us'] });
    assert.strictEqual(d['completion timestamp_mask'], '0x7fffffffffffffff');
    assert.strictEqual(d.max_sge, '30', 'the first max_sge (line 29) keeps the name');
    assert.strictEqual(d['max_sge#2'], '1', 'the tag-matching max_sge (line 94)');
    assert.strictEqual(d['maximum available device memory'], '131072Bytes', 'blank lines inside the block are skipped');
    assert.strictEqual(d.num_comp_vectors, '63');
    const p = d.ports[0];
    assert.strictEqual(p.active_width, '4X (2)');
    assert.strictEqual(p.active_speed, '50.0 Gbps (64)');
    assert.strictEqual(p.phys_state, 'LINK_UP (5)');
    assert.deepStrictEqual(p.GID, [{ index: 0, gid: 'fe80:0000:0000:0000:88e9:a4ff:ff25:a462', type: null }]);
    const down = v.devices[1].ports[0];
    assert.deepStrictEqual(
      [down.state, down.port_lid, down.active_speed, down.phys_state],
      ['PORT_DOWN (1)', '65535', 'invalid speed (0)', 'DISABLED (3)'],
    );
  });

  it('-v on three mlx5 HCAs: ConnectX-6 InfiniBand + two ConnectX-5 RoCE ports (E3SM-Project/scorpio, Chrysalis)', () => {
    const v = parsed(fixture(CHRYSALIS_V));
    assert.deepStrictEqual(
      v.devices.map((d) => [d.hca_id, d.fw_ver, d.vendor_part_id, d.board_id]),
      [
        ['mlx5_0', '20.29.2002', '4123', 'MT_0000000223'],
        ['mlx5_1', '16.27.2008', '4119', 'MT_0000000012'],
        ['mlx5_2', '16.27.2008', '4119', 'MT_0000000012'],
      ],
    );
    const [ib, roce1, roce2] = v.devices;
    assert.strictEqual(roce2.sys_image_guid, '0c42:a103:002b:07a4', 'the two ConnectX-5 ports share one card');
    assert.strictEqual(ib.hca_core_clock, '156250kHZ');
    assert.strictEqual(ib.max_sge, '30');
    assert.strictEqual(ib['max_sge#2'], '1', 'tag-matching max_sge');
    assert.deepStrictEqual(ib.flags, { value: '', lines: ['IBV_TM_CAP_RC'] });
    assert.strictEqual(roce1['tag matching not supported'], '');
    assert.deepStrictEqual(fieldLines(roce1, 'raw packet caps'), [
      'C-VLAN stripping offload',
      'Scatter FCS offload',
      'IP csum offload',
      'Delay drop',
    ]);
    assert.deepStrictEqual(
      v.devices.map((d) => d.num_comp_vectors),
      ['63', '63', '63'],
    );
    const ports = v.devices.map((d) => d.ports[0]);
    assert.deepStrictEqual(
      ports.map((p) => [p.port, portState(p), physState(p), linkLayer(p), activeMtu(p), portRateGbps(p)]),
      [
        [1, 'ACTIVE', 'LINK_UP', 'InfiniBand', 4096, 200],
        [1, 'ACTIVE', 'LINK_UP', 'Ethernet', 1024, 100],
        [1, 'ACTIVE', 'LINK_UP', 'Ethernet', 1024, 100],
      ],
    );
    assert.deepStrictEqual([ports[0].sm_lid, ports[0].port_lid, ports[0].gid_tbl_len], ['3', '62', '8']);
    assert.deepStrictEqual(ports[0].GID, [{ index: 0, gid: 'fe80:0000:0000:0000:0c42:a103:0065:d6b6', type: null }]);
    assert.deepStrictEqual(
      (ports[2].GID ?? []).map((g) => [g.index, g.gid, g.type]),
      [
        [0, 'fe80:0000:0000:0000:0e42:a1ff:fe2b:07a5', 'RoCE v1'],
        [1, 'fe80::e42:a1ff:fe2b:7a5', 'RoCE v2'],
        [2, '0000:0000:0000:0000:0000:ffff:0a3c:200b', 'RoCE v1'],
        [3, '::ffff:10.60.32.11', 'RoCE v2'],
      ],
    );
    assert.deepStrictEqual(v.messages, []);
  });

  it('MLNX_OFED 4 -v for port 2 only (-i 2): colon-less lines, legacy caps', () => {
    const d = parsed(fixture(CX3_V)).devices[0];
    assert.strictEqual(d.phys_port_cnt, '2');
    assert.deepStrictEqual(
      d.ports.map((p) => p.port),
      [2],
    );
    assert.deepStrictEqual(fieldLines(d, 'device_cap_flags').slice(-1), ['Unknown flags: 0x056e8000']);
    assert.strictEqual(fieldText(d, 'device_cap_exp_flags'), '0x5000401600000000');
    assert.strictEqual(d['log atomic arg sizes (mask)'], '0x8');
    assert.strictEqual(d['max fetch and add bit boundary'], '64');
    assert.strictEqual(d.ooo_rc_caps, '0x0');
    assert.strictEqual(d['Multi-Packet RQ is not supported'], '');
    assert.strictEqual(d['tag matching not supported'], '');
    assert.strictEqual(d.general_odp_caps, '', 'its next line is not indented deeper');
    assert.strictEqual(d.max_size, '0x0');
    const p = d.ports[0];
    assert.strictEqual(p.phys_state, 'POLLING (2)');
    assert.deepStrictEqual(p.GID, [{ index: 0, gid: 'fe80:0000:0000:0000:7cfe:9003:00a5:95c2', type: null }]);
  });

  it('OFED of 2010 (InfiniHost mthca0): no transport, no board_id, no link_layer, lowercase states', () => {
    const d = parsed(fixture(MTHCA)).devices[0];
    assert.strictEqual(d.hca_id, 'mthca0');
    assert.strictEqual(d.transport, undefined);
    assert.strictEqual(d.board_id, undefined);
    assert.strictEqual(d.hw_ver, '0xA1');
    assert.deepStrictEqual(
      d.ports.map((p) => [p.port, p.state, p.active_mtu]),
      [
        [1, 'active (4)', '2048 (4)'],
        [2, 'down (1)', '512 (2)'],
      ],
    );
    assert.strictEqual(d.ports[0].link_layer, undefined);
  });

  it('"No IB devices found" after libibverbs warnings (nminoru/pib#2)', () => {
    const v = parsed(fixture(NO_DEV));
    assert.deepStrictEqual(v.devices, []);
    assert.strictEqual(v.messages.length, 3);
    assert.strictEqual(v.messages[2], 'No IB devices found');
    assert.ok(v.messages[0].startsWith('libibverbs: Warning: no userspace device-specific driver found'));
  });

  it('tab-expanded copy with "Failed to open device" around the block (ConnectX-3 VF in a container)', () => {
    const v = parsed(fixture(VF_SPACES));
    assert.strictEqual(v.devices.length, 1);
    const d = v.devices[0];
    assert.deepStrictEqual([d.hca_id, d.vendor_part_id, d.sys_image_guid], ['mlx4_2', '4100', '248a:0703:00e5:3d43']);
    assert.deepStrictEqual(
      d.ports.map((p) => [p.port, p.state, p.sm_lid, p.port_lid]),
      [[1, 'PORT_ACTIVE (4)', '2', '1']],
    );
    assert.deepStrictEqual(v.messages, Array(8).fill('Failed to open device'));
  });

  it('Soft-RoCE of 2016, tabs expanded at width 4, no link_layer (SoftRoCE/rxe-dev#46)', () => {
    const d = parsed(fixture(RXE)).devices[0];
    assert.deepStrictEqual([d.hca_id, d.fw_ver, d.sys_image_guid, d.vendor_id], ['rxe0', '0.0.0', '0000:0000:0000:0000', '0x0000']);
    assert.deepStrictEqual(
      d.ports.map((p) => [p.port, p.max_mtu, p.active_mtu]),
      [[1, '4096 (5)', '1024 (3)']],
    );
    assert.strictEqual(linkLayer(d.ports[0]), null);
  });

  it('reads CRLF copies and whole-block indentation the same', () => {
    const text = fixture(CX3_IB);
    assert.deepStrictEqual(parsed(text.replace(/\n/g, '\r\n')), parsed(text));
    const indented = text
      .split('\n')
      .map((l) => (l === '' ? l : `    ${l}`))
      .join('\n');
    assert.deepStrictEqual(parsed(indented), parsed(text));
  });
});

describe('parseIbvDevinfo: rejected input', () => {
  it('empty and blank input', () => {
    assert.strictEqual(failure('').line, 1);
    failure('\n\n  \n', 1, /empty/);
  });

  it('garbage and other commands point at their first line', () => {
    assert.strictEqual(failure('hello world\nhca_id:\tmlx5_0\n').line, 1);
    assert.strictEqual(failure('\nArchitecture:            x86_64\n').line, 2);
    assert.match(failure("CA 'mlx5_0'\n\tCA type: MT4123\n").message, /ibstat/);
    assert.match(failure('    device          \t   node GUID\n    ------          \t----------------\n').message, /ibv_devices/);
    assert.match(failure('2 HCAs found:\n\tmlx4_1\n\tmlx4_0\n\n').message, /-l/);
    assert.match(failure('\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n').message, /expected "hca_id/);
  });

  it('binary input', () => {
    assert.match(failure('hca_id:\tmlx5_0\n\u0000\u0001').message, /binary/);
  });

  it('cut after port 1 of a two-port device: error at the last line read', () => {
    failure(firstLines(fixture(TF_ROCE), 20), 19, /phys_port_cnt 2 but ports printed: 1;.*cut off/);
  });

  it('cut inside a port, before port_lmc', () => {
    failure(firstLines(fixture(TF_ROCE), 26), 26, /port 2 of mlx4_0 ends before its "port_lmc:"/);
  });

  it('cut before the ports (`ibv_devinfo | head`) and before phys_port_cnt', () => {
    assert.strictEqual(failure(firstLines(fixture(CX6_VV), 104)).line, 104);
    failure(firstLines(fixture(MTHCA), 7), 7, /before its "phys_port_cnt:"/);
  });

  it('cut in the first device of two: the error is at that device', () => {
    const text = fixture(CX3_IB).split('\n');
    text.splice(20, 9); // drop port 2 of mlx4_1 (lines 21-29)
    failure(text.join('\n'), 19, /mlx4_1/);
  });

  it('a port printed twice, a bad phys_port_cnt, an hca_id without a name', () => {
    const twice = fixture(TF_ROCE).replace('\t\tport:\t2', '\t\tport:\t1');
    assert.strictEqual(failure(twice).line, 21);
    const bad = fixture(TF_ROCE).replace('phys_port_cnt:\t\t\t2', 'phys_port_cnt:\t\t\ttwo');
    assert.strictEqual(failure(bad).line, 10);
    assert.strictEqual(failure('hca_id:\n').line, 1);
  });

  it('libibverbs warnings with nothing after them are a cut-off output', () => {
    const warnings = fixture(NO_DEV).split('\n').slice(0, 2).join('\n');
    failure(warnings, 2, /cut off/);
  });

  // How fast is measured in bench/parsers.bench.ts, against a linear baseline.
  it('reads long repetitive input, and refuses a long line at its line', () => {
    const head = firstLines(fixture(TF_ROCE), 10);
    const repeated = parsed(head + '\tmax_sge:\t\t\t30\n'.repeat(50000) + fixture(TF_ROCE).split('\n').slice(11).join('\n'));
    assert.strictEqual(repeated.devices.length, parsed(fixture(TF_ROCE)).devices.length);
    assert.strictEqual(failure(`hca_id:\tx\n\ta${' '.repeat(200000)}\n`).line, 2);
  });
});

describe('ibv_devinfo accessors', () => {
  it('port state from the printed code, old and new spellings alike', () => {
    const [a] = parsed(fixture(CX3_IB)).devices;
    assert.deepStrictEqual(a.ports.map(portState), ['ACTIVE', 'DOWN']);
    assert.deepStrictEqual(parsed(fixture(MTHCA)).devices[0].ports.map(portState), ['ACTIVE', 'DOWN']);
  });

  it('physical state, width, speed and rate (-v only)', () => {
    const [up, down] = parsed(fixture(CX6_VV)).devices.map((d) => d.ports[0]);
    assert.deepStrictEqual([physState(up), activeWidthLanes(up), activeSpeedGbps(up), portRateGbps(up)], ['LINK_UP', 4, 50, 200]);
    assert.deepStrictEqual([physState(down), activeSpeedGbps(down), portRateGbps(down)], ['DISABLED', null, null]);
    const plain = parsed(fixture(TF_ROCE)).devices[0].ports[0];
    assert.deepStrictEqual([physState(plain), portRateGbps(plain)], [null, null]);
    assert.strictEqual(physState(parsed(fixture(CX3_V)).devices[0].ports[0]), 'POLLING');
  });

  it('link layer, MTUs, port count', () => {
    const d = parsed(fixture(TF_ROCE)).devices[0];
    assert.deepStrictEqual([linkLayer(d.ports[0]), activeMtu(d.ports[0]), maxMtu(d.ports[0])], ['Ethernet', 1024, 4096]);
    assert.strictEqual(linkLayer(parsed(fixture(CX3_IB)).devices[0].ports[0]), 'InfiniBand');
    assert.strictEqual(linkLayer(parsed(fixture(MTHCA)).devices[0].ports[0]), null);
    assert.strictEqual(physPortCount(d), 2);
  });

  it('fieldText and fieldLines on plain and multi-line fields', () => {
    const d = parsed(fixture(CX6_VV)).devices[0];
    assert.strictEqual(fieldText(d, 'device_cap_flags'), '0x21361c36');
    assert.strictEqual(fieldText(d, 'fw_ver'), '20.37.1700');
    assert.strictEqual(fieldText(d, 'absent'), null);
    assert.deepStrictEqual(fieldLines(d, 'general_odp_caps'), ['ODP_SUPPORT', 'ODP_SUPPORT_IMPLICIT']);
    assert.deepStrictEqual(fieldLines(d, 'fw_ver'), []);
  });

  it('splitField handles colon, "=", tab-run and bare sentences', () => {
    assert.deepStrictEqual(splitField('fw_ver:\t\t\t\t20.37.1700'), ['fw_ver', '20.37.1700']);
    assert.deepStrictEqual(splitField('ooo_xrc_caps = 0x0'), ['ooo_xrc_caps', '0x0']);
    assert.deepStrictEqual(splitField('log max atomic inline\t\t3'), ['log max atomic inline', '3']);
    assert.deepStrictEqual(splitField('tag matching not supported'), ['tag matching not supported', '']);
  });

  it('RoCE GID types are split off the GID', () => {
    const text = `${firstLines(fixture(TF_ROCE), 19)}\t\t\tGID[  0]:\t\tfe80::ac0:ebff:fef0:28b2, RoCE v2\n\t\t\tGID[  3]:\t\t::ffff:27.105.179.3, RoCE v2\n`;
    const port = parsed(text.replace('phys_port_cnt:\t\t\t2', 'phys_port_cnt:\t\t\t1')).devices[0].ports[0];
    assert.deepStrictEqual(port.GID, [
      { index: 0, gid: 'fe80::ac0:ebff:fef0:28b2', type: 'RoCE v2' },
      { index: 3, gid: '::ffff:27.105.179.3', type: 'RoCE v2' },
    ]);
  });
});

describe('summarizeIbvDevinfo', () => {
  it('one line per device and per port', () => {
    const s = summarizeIbvDevinfo(parsed(fixture(CX6_VV)));
    assert.match(s, /^ibv_devinfo: 2 RDMA device\(s\)/);
    assert.match(s, /mlx5_0, fw 20\.37\.1700, board MT_0000000594, transport InfiniBand \(0\)/);
    assert.match(s, /port 1: ACTIVE \(LINK_UP\), 200 Gb\/s \(4X × 50 Gb\/s\), InfiniBand, MTU 4096 active \/ 4096 max/);
    assert.match(s, /port 1: DOWN \(DISABLED\), rate unknown/);
    assert.ok(!s.endsWith('\n'));
  });

  it('old outputs, RoCE and messages', () => {
    assert.match(summarizeIbvDevinfo(parsed(fixture(MTHCA))), /transport \(not printed\)[\s\S]*link layer not printed/);
    assert.match(summarizeIbvDevinfo(parsed(fixture(TF_ROCE))), /Ethernet \(RoCE\), MTU 1024 active/);
    assert.match(summarizeIbvDevinfo(parsed(fixture(VF_SPACES))), /said \(8×\): Failed to open device/);
    const none = summarizeIbvDevinfo(parsed(fixture(NO_DEV)));
    assert.match(none, /no RDMA device listed[\s\S]*said: No IB devices found$/);
  });
});
