// What a connection may need to ask the user. The CLI answers on the terminal, VS Code with
// input boxes; tests answer programmatically. Answers are never logged.

export interface HostKeyQuestion {
  readonly host: string;
  readonly port: number;
  readonly keyType: string;
  readonly fingerprint: string;
  /** Where the key will be recorded if the user accepts. */
  readonly knownHostsFile: string;
}

/** A keyboard-interactive round's prompts, as the server sent them; `echo`: the answer may be shown. */
export type KeyboardPrompts = readonly { prompt: string; echo: boolean }[];

export interface SshPrompts {
  /** Unknown host key under StrictHostKeyChecking=ask: true records and continues. Default: No. */
  confirmHostKey(q: HostKeyQuestion): Promise<boolean>;
  /** Passphrase for an encrypted identity file; null gives up on that key. */
  passphrase(keyFile: string): Promise<string | null>;
  /** Password for user@host; null stops trying passwords. */
  password(user: string, host: string): Promise<string | null>;
  /** keyboard-interactive (2FA): the prompts exactly as the server sent them; null gives up. */
  keyboardInteractive(host: string, name: string, instructions: string, prompts: KeyboardPrompts): Promise<string[] | null>;
  /**
   * What ssh prints on stderr without asking anything (a changed host key let through by
   * StrictHostKeyChecking=no, an identity file it cannot use), in ssh's words, one line each.
   * Optional: where nobody would read it, it is dropped.
   */
  warn?(host: string, lines: readonly string[]): void;
}

/** For non-interactive use (CI, fleets): every question is answered No. */
export const noPrompts: SshPrompts = {
  confirmHostKey: async () => false,
  passphrase: async () => null,
  password: async () => null,
  keyboardInteractive: async () => null,
};
