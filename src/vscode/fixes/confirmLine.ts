// A fix's confirmation in one line: what will run, and where ("Run `sudo modprobe nvidia_peermem` on
// gpu01?"), "simulated" said once for the demo. The plan itself (every command exactly as sent, the file
// diff) is one click away, unabridged: planPrompts.ts. No VS Code import.
import type { FixPlan, FixStep } from '../../core/fixes';
import { t } from '../../core/l10n';

export function confirmLine(plan: FixPlan): string {
  const sudo = plan.privilege === 'root' ? '' : 'sudo ';
  const what = plan.steps.map((s) => stepWords(s, plan, sudo));
  const question =
    what.length === 1 && plan.steps[0].kind === 'load' && plan.module
      ? t('Run `{0}` on {1}?', `${sudo}modprobe ${plan.module}`, plan.host)
      : t('On {0}: {1}?', plan.host, what.join(t(', then ')));
  if (!plan.simulated) return question;
  // After full-width punctuation (Chinese "？") no space, as Chinese text is set; after "?" one.
  const gap = /[\u3000-\u303f\uff00-\uffef]$/.test(question) ? '' : ' ';
  return `${question}${gap}${t('Simulated: nothing runs on any machine.')}`;
}

/** A step as a person would say it: the command a person would type for a module load, else its title. */
function stepWords(s: FixStep, plan: FixPlan, sudo: string): string {
  if (s.kind === 'load' && plan.module) return t('run `{0}`', `${sudo}modprobe ${plan.module}`);
  // Titles end with how it is done in brackets ("(temp file in the same directory, then rename)", Chinese ones
  // in full-width brackets): the plan says it.
  return s.title.replace(/\s*[(（][^()（）]*[)）]$/, '');
}
