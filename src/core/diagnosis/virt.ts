// Whether the host is a virtual machine, or hands devices to virtual machines — the two places where
// PCIe isolation (ACS, IOMMU translation) is required rather than a cost, as rdma-core's
// kernel-boot/rdma_topo treats them (`compute_acs(virt)`: the kernel's ACS defaults and ATS on the NIC
// when "virtualization will be used on this system"). Read from lscpu's "Hypervisor vendor" (CPUID's
// hypervisor leaf), nvidia-smi -q's "Virtualization Mode", DMI's maker, /sys/hypervisor, and the IOMMU
// groups VFIO holds.
import { ProbeReport } from '../probe/runProbe';
import { factOf, labelOf } from './evidence';
import { Finding, SOURCES } from './finding';
import { t } from '../l10n';

export interface VirtState {
  /** Why this host is a guest (evidence lines); [] on bare metal or when nothing says so. */
  readonly guest: string[];
  /** Why this host runs guests with devices passed through (VFIO groups, vGPU host mode); [] otherwise. */
  readonly hostsGuests: string[];
  /** IOMMU groups bound to VFIO (`/dev/vfio/<n>`). */
  readonly vfioGroups: number[];
}

/** DMI makers and models that only virtual machines report (QEMU/KVM, VMware, Hyper-V, Xen, VirtualBox, GCE, OpenStack). */
const VM_DMI = /^(QEMU|VMware, Inc\.|Xen|innotek GmbH|Google|OpenStack Foundation|Red Hat|Parallels)|^Microsoft Corporation$/;
const VM_PRODUCT = /^(Virtual Machine|KVM|Standard PC \(|VMware|HVM domU|VirtualBox|Google Compute Engine|OpenStack Nova)/;

export function virtState(report: ProbeReport): VirtState {
  const guest: string[] = [];
  const hypervisor = factOf(report, 'lscpu')?.fields['Hypervisor vendor'];
  if (hypervisor) guest.push(`lscpu: Hypervisor vendor: ${hypervisor}`);
  const dmi = factOf(report, 'dmi');
  if (
    dmi?.sysVendor &&
    VM_DMI.test(dmi.sysVendor) &&
    (dmi.sysVendor !== 'Microsoft Corporation' || VM_PRODUCT.test(dmi.productName ?? ''))
  ) {
    guest.push(`${labelOf(report, 'dmi')}: sys_vendor ${dmi.sysVendor}${dmi.productName ? `, product_name ${dmi.productName}` : ''}`);
  } else if (dmi?.productName && VM_PRODUCT.test(dmi.productName)) guest.push(`${labelOf(report, 'dmi')}: product_name ${dmi.productName}`);
  if (dmi?.hypervisorType) guest.push(`/sys/hypervisor/type: ${dmi.hypervisorType}`);
  const modes = new Set((factOf(report, 'smi-q')?.gpus ?? []).map((g) => g.virtualizationMode ?? '').filter((m) => m !== ''));
  const hostsGuests: string[] = [];
  for (const mode of modes) {
    if (/^(Pass-Through|VGPU|vGPU)$/i.test(mode)) guest.push(`nvidia-smi -q: Virtualization Mode: ${mode}`);
    if (/^Host VGPU$/i.test(mode)) hostsGuests.push(`nvidia-smi -q: Virtualization Mode: ${mode}`);
  }
  const vfioGroups = (factOf(report, 'iommu-groups')?.groups ?? []).filter((g) => g.vfio).map((g) => g.id);
  if (vfioGroups.length > 0)
    hostsGuests.push(
      `/dev/vfio: IOMMU group${vfioGroups.length > 1 ? 's' : ''} ${vfioGroups.join(', ')} held by VFIO (devices passed through)`,
    );
  return { guest, hostsGuests, vfioGroups };
}

/** A host where ACS must stay: a guest, or a host passing devices to guests. */
export function isolationRequired(v: VirtState): boolean {
  return v.guest.length > 0 || v.hostsGuests.length > 0;
}

/**
 * `platform.virtual-machine`: inside a guest the PCI tree, and so nvidia-smi topo -m and NCCL's own
 * detection, show the hypervisor's emulated topology, not the physical one (NCCL Troubleshooting,
 * "Virtual Machines"; cloud images ship the real one as an XML file for NCCL_TOPO_FILE, read by
 * src/graph/topo.cc ncclTopoGetSystem). ATS on the NIC is what GPUDirect RDMA needs there (rdma_topo).
 */
/** What lspci says of one NIC's Address Translation Service (quoted evidence: not translated). */
function atsWords(ats: { readonly enabled: boolean | null } | null | undefined): string {
  if (!ats) return 'no ATS capability visible';
  return `ATS ${ats.enabled === true ? 'enabled' : ats.enabled === false ? 'present, disabled' : 'present'}`;
}

export function vmFindings(report: ProbeReport, virt: VirtState, nicBdfs: readonly string[]): Finding[] {
  if (virt.guest.length === 0) return [];
  const acs = factOf(report, 'pci-acs');
  const nics = nicBdfs.map((b) => ({ bdf: b, lspci: acs?.devices.get(b) ?? null })).filter((n) => n.lspci !== null);
  const ats = nics.map((n) => `${n.bdf}: ${atsWords(n.lspci?.ats)}`);
  const atsText =
    acs === undefined || acs.via === 'none' || acs.via === 'missing' || nics.length === 0
      ? t('Whether the NICs expose ATS could not be read here (lspci -vvv as root shows "Address Translation Service (ATS)").')
      : t('ATS as the guest sees it: {0}.', ats.join('; '));
  return [
    {
      id: 'platform.virtual-machine',
      severity: 'info',
      title: t("Virtual machine: the PCIe topology shown is the hypervisor's, not the hardware's"),
      detail: t(
        "{0}. Inside a VM, nvidia-smi topo -m and NCCL see the emulated PCI tree (often every GPU and NIC on its own root port, PHB or SYS between them), not the physical switches: GPUDirect RDMA distances and NIC choices made from it can be wrong. Give NCCL the physical topology with NCCL_TOPO_FILE=<the provider's topology XML> (cloud GPU images ship one; NCCL reads it in ncclTopoGetSystem, src/graph/topo.cc). ACS and the IOMMU are required in a guest: GPUDirect RDMA needs ATS on the NIC instead. {1}",
        virt.guest.join('; '),
        atsText,
      ),
      evidence: [...virt.guest.slice(0, 3), ...ats.slice(0, 2).map((a) => `lspci -vvv -s ${a}`)],
      fixes: [],
      source: [
        SOURCES.ncclTroubleshooting,
        'NVIDIA/nccl src/graph/topo.cc ncclTopoGetSystem (NCCL_TOPO_FILE); rdma-core kernel-boot/rdma_topo (ATS with virt)',
      ].join('; '),
    },
  ];
}
