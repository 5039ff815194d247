// Every command, view and setting id in one place. package.json's `contributes` must match
// these (a unit test checks it), so renaming one is a single edit plus the manifest.

export const EXTENSION_ID = 'gdr-doctor.gdr-doctor';

export const ViewContainers = {
  main: 'gdrDoctor',
} as const;

export const Views = {
  hosts: 'gdrDoctor.hosts',
} as const;

export const Commands = {} as const;

export const Settings = {
  section: 'gdrDoctor',
} as const;

export const OUTPUT_CHANNEL_NAME = 'GPUDirect RDMA Doctor';
