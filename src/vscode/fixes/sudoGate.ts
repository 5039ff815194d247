// One wrong sudo password costs one sudo attempt, however many hosts a group fix reaches. Sites
// check sudo passwords against a central directory (LDAP, AD) that locks an account after a few
// failures, so a typo sent to 32 hosts at once could lock the user out. For a group, every password
// (the one typed once for the group, or a host's remembered one) passes this gate before it is
// sent: a password not yet tried goes to ONE host while the others that would send it wait; once
// sudo took it there, it goes to the rest; once sudo refused it anywhere, no host is sent it again.
// The first refusal also stops the fan-out of the typed password: a host that asks after it gets no
// password and runs nothing. No VS Code import: unit-tested, and the lab test drives it through
// applyToGroup.
import { createHash } from 'node:crypto';

export type SudoVerdict = 'accepted' | 'refused' | 'unknown';

type State = 'trying' | 'accepted' | 'refused';

export class SudoPasswordGate {
  // Keyed by a hash: the gate keeps no password of its own.
  private readonly states = new Map<string, State>();
  private readonly turns = new Map<string, { done: Promise<void>; end: () => void }>();
  private firstRefusal?: string;

  /**
   * Whether `password` may be sent to sudo now: true when sudo took it on another host, or when
   * nobody tried it yet (the caller then tries it and must call settle); false once it was refused.
   * While another host tries it, this waits for that host's verdict.
   */
  async mayTry(password: string): Promise<boolean> {
    const key = hash(password);
    for (;;) {
      const state = this.states.get(key);
      if (state === 'trying') {
        await this.turns.get(key)?.done;
        continue;
      }
      if (state === 'refused') return false;
      if (state === undefined) this.startTurn(key);
      return true;
    }
  }

  /** What sudo made of `password` on `host`; 'unknown' (nothing ran, the connection went) lets another host try it. */
  settle(password: string, verdict: SudoVerdict, host: string): void {
    const key = hash(password);
    const state = this.states.get(key);
    if (verdict === 'refused') {
      this.states.set(key, 'refused');
      this.firstRefusal ??= host;
    } else if (verdict === 'accepted' && state !== 'refused') {
      this.states.set(key, 'accepted');
    } else if (verdict === 'unknown' && state === 'trying') {
      this.states.delete(key);
    }
    if (state === 'trying') this.endTurn(key);
  }

  /** The host where sudo first refused a password, if it did. */
  refusedOn(): string | undefined {
    return this.firstRefusal;
  }

  private startTurn(key: string): void {
    let end!: () => void;
    const done = new Promise<void>((resolve) => {
      end = resolve;
    });
    this.states.set(key, 'trying');
    this.turns.set(key, { done, end });
  }

  private endTurn(key: string): void {
    this.turns.get(key)?.end();
    this.turns.delete(key);
  }
}

function hash(password: string): string {
  return createHash('sha256').update(password).digest('hex');
}
