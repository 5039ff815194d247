// The Kubernetes settings (gdrDoctor.kube.*): kubectl's own --kubeconfig and --context, the kubectl binary
// (empty: kubectl on PATH, as the Kubernetes extension finds it), and the image a node debug pod may use
// (empty: nodes without a GPU Operator driver pod are not reached).
import * as vscode from 'vscode';
import * as os from 'node:os';
import { Settings } from '../../constants';
import type { KubeAccess } from '../../core/transport';

export interface KubeSettings {
  readonly kubeconfig?: string;
  /** Only this context is listed; undefined: every context of the kubeconfig. */
  readonly context?: string;
  readonly kubectl?: string;
  readonly debugImage?: string;
}

export function readKubeSettings(): KubeSettings {
  const c = vscode.workspace.getConfiguration(Settings.section);
  const text = (key: string) => {
    const v = c.get<string>(key, '').trim();
    return v === '' ? undefined : v.replace(/^~(?=$|\/)/, os.homedir());
  };
  return {
    kubeconfig: text(Settings.kubeconfig),
    context: text(Settings.kubeContext),
    kubectl: text(Settings.kubectlPath),
    debugImage: text(Settings.kubeDebugImage),
  };
}

/** kubectl for one context of the configured kubeconfig. */
export function accessFor(settings: KubeSettings, context?: string): KubeAccess {
  return { kubectl: settings.kubectl, kubeconfig: settings.kubeconfig, context };
}
