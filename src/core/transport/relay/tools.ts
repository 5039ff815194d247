// The tools a login node may run the probe on its compute nodes with, in the order one is chosen when
// the user names none (Slurm's srun, then pdsh, then clush): the one table every list, check and
// message about them is made from.

import { t } from '../../l10n';

/** Each tool as the user names it (`--with`, a fleet's "with"), with the command it runs and its name in prose. */
const TOOLS = {
  slurm: { command: 'srun', prose: 'Slurm' },
  pdsh: { command: 'pdsh', prose: 'pdsh' },
  clush: { command: 'clush', prose: 'clush' },
} as const;

export type RelayTool = keyof typeof TOOLS;

/** In the order of preference: the table's. */
export const RELAY_TOOLS: readonly RelayTool[] = Object.keys(TOOLS) as RelayTool[];

/** The command a login node must have for the tool (Slurm: srun). */
export function relayCommand(tool: RelayTool): string {
  return TOOLS[tool].command;
}

export function isRelayTool(name: string): name is RelayTool {
  return (RELAY_TOOLS as readonly string[]).includes(name);
}

/** The tool used when the user names none: the first of RELAY_TOOLS the login node has. */
export function preferredRelayTool(found: readonly RelayTool[]): RelayTool | undefined {
  return RELAY_TOOLS.find((t) => found.includes(t));
}

/** "a, b or c": in English (`localized` false: logs and errors), or in the user's language. */
function orList(items: readonly string[], localized: boolean): string {
  const [head, last] = [items.slice(0, -1).join(', '), items[items.length - 1]];
  return localized ? t('{0} or {1}', head, last) : `${head} or ${last}`;
}

/** "slurm, pdsh or clush": what --with and a fleet's "with" take (English, for logs and errors). */
export const RELAY_TOOL_CHOICES = orList(RELAY_TOOLS, false);

/** RELAY_TOOL_CHOICES in the user's language, for the CLI's messages. */
export function relayToolChoices(): string {
  return orList(RELAY_TOOLS, true);
}

/** "slurm (srun), pdsh or clush", in the user's language: the names, each with the command it runs where that differs. */
export function relayToolsWithCommands(): string {
  return orList(
    RELAY_TOOLS.map((tool) => (TOOLS[tool].command === tool ? tool : `${tool} (${TOOLS[tool].command})`)),
    true,
  );
}

/** "srun, pdsh, clush": the commands looked for on a login node. */
export const RELAY_COMMANDS = RELAY_TOOLS.map(relayCommand).join(', ');

/** "Slurm, else pdsh, else clush": which one is used when the user names none. */
export const RELAY_PREFERENCE = RELAY_TOOLS.map((t) => TOOLS[t].prose).join(', else ');
