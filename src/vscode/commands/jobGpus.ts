// "Set the Job's GPUs…": which GPUs of each host the user's jobs run on (gdrDoctor.jobGpus), picked from the
// GPUs the diagnosed hosts have; nothing picked means every GPU of the host. Changing it recomputes the kept
// diagnoses without reconnecting (settingsWatcher.ts).
import * as vscode from 'vscode';
import { Settings } from '../../constants';
import { readJobGpus } from '../../core/diagnosis';
import { Ctx } from '../context';

/** Hosts of eight GPUs are the common case; a diagnosed host with more widens the list. */
const DEFAULT_GPU_COUNT = 8;

export async function setJobGpusCommand(ctx: Ctx): Promise<void> {
  const c = vscode.workspace.getConfiguration(Settings.section);
  const current = readJobGpus(c.get<string>(Settings.jobGpus, ''), undefined);
  const chosen = Array.isArray(current) ? current : [];
  const count = Math.max(DEFAULT_GPU_COUNT, ...ctx.model.diagnosedGpuCounts(), ...chosen.map((g) => g + 1));
  const items = Array.from({ length: count }, (_, g) => ({ label: `GPU${g}`, index: g, picked: chosen.includes(g) }));
  const picked = await vscode.window.showQuickPick(items, {
    canPickMany: true,
    title: vscode.l10n.t('The GPUs of your job on each host (none picked: every GPU)'),
    placeHolder: vscode.l10n.t("NCCL's topology holds only the job's GPUs: PXN and the one-GPU read rule follow them"),
  });
  if (picked === undefined) return;
  const value = picked.map((p) => p.index).join(',');
  await c.update(Settings.jobGpus, value, vscode.ConfigurationTarget.Global);
}
