// What follows a settings change: the host list and fleets are read again, problems with the settings
// are logged, and when the NCCL release or environment changed every kept diagnosis is recomputed from
// the reports already collected (no host is contacted again).
import * as vscode from 'vscode';
import { diagnose } from '../core/diagnosis';
import { onSettingsChanged, readSettings } from './config';
import { FleetModel } from './fleet/fleetModel';
import { HostModel } from './hosts/hostModel';

export function watchSettings(model: HostModel, fleets: FleetModel, log: vscode.LogOutputChannel): vscode.Disposable {
  return onSettingsChanged((ncclChanged) => {
    model.invalidate();
    fleets.invalidate();
    const settings = readSettings();
    for (const problem of settings.fleetProblems) log.warn(problem);
    if (settings.ncclProblem) log.warn(`gdrDoctor.ncclVersion/ncclEnv not used: ${settings.ncclProblem}`);
    if (!ncclChanged) return;
    model.rediagnose((report) => diagnose(report, settings.nccl));
    fleets.rediagnose((report) => diagnose(report, settings.nccl));
  });
}
