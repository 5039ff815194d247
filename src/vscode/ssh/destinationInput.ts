// Checks an SSH destination while it is typed in an input box (Add Host, a fleet's login node), with
// the parser every connection uses, so what the box accepts is what connects, and says how it reads
// what was typed (user, host, port) before it is added. No VS Code import.
import { errorText } from '../../core/errorText';
import { Destination, DestinationError, DestinationProblem, parseDestination } from '../../core/ssh/destination';
import { t } from '../../core/l10n';

/** undefined when `typed` reads as a destination (or is empty and `optional`), else what is wrong. */
export function destinationProblem(typed: string, optional = false): string | undefined {
  const check = checkDestination(typed, optional);
  return check.ok ? undefined : check.message;
}

export type DestinationCheck =
  { readonly ok: true; readonly message: string | undefined } | { readonly ok: false; readonly message: string };

/** What the box shows as the user types: the problem, or how the destination is read. */
export function checkDestination(typed: string, optional = false): DestinationCheck {
  if (typed.trim() === '') return optional ? { ok: true, message: undefined } : { ok: false, message: t('Type a host name or user@host.') };
  try {
    return { ok: true, message: readAs(parseDestination(typed.trim())) };
  } catch (e) {
    return { ok: false, message: e instanceof DestinationError ? problemText(e.problem, e.input) : errorText(e) };
  }
}

/** The parser's reason in the user's language; the typed text quoted as typed. */
function problemText(problem: DestinationProblem, input: string): string {
  const quoted = JSON.stringify(input);
  switch (problem) {
    case 'no-host':
      return t('{0} names no host: type one after the @ (user@host or user@host:port).', quoted);
    case 'no-user':
      return t('{0} names no user before the @: drop the @ or type a user.', quoted);
    case 'option-like':
      return t('A host or user name cannot start with "-": ssh would read {0} as an option, and refuses it.', quoted);
    case 'shell-characters':
      return t('{0} holds characters a shell would interpret (quotes, $, ;, |, …): ssh refuses such names.', quoted);
    case 'port-range':
      return t('port out of range in {0}', quoted);
    case 'bad-uri':
      return t('not an ssh:// address: {0}', quoted);
    case 'not-a-host':
      return t('not a host: {0}', quoted);
  }
}

/** "host gpu01, port 2222, user root; resolved through your SSH config". */
function readAs(d: Destination): string {
  const parts = [
    t('host {0}', d.host),
    d.port !== null ? t('port {0}', d.port) : undefined,
    d.user !== null ? t('user {0}', d.user) : undefined,
  ];
  // A bare IPv6 address cannot carry a port: its last group would be read as part of the address.
  const v6 = d.port === null && d.host.split(':').length > 2 ? t(' (an IPv6 address: write [address]:port for a port)') : '';
  return t('Reads as {0}{1}; the rest comes from your SSH config.', parts.filter((p) => p !== undefined).join(', '), v6);
}
