// The demo host's "shell" for the quick fixes: it knows exactly the commands a fix plan sends (built
// here from the same constants, src/core/fixes/scripts.ts) and answers each as the real host would,
// changing the demo's state instead of a machine. Anything else is refused: nothing runs anywhere.
import {
  ETC_MODULES,
  MODULE_CONSTANTS,
  PersistTarget,
  READ_STATE_COMMAND,
  loadScript,
  persistScript,
  privilegedCommand,
  CONF_HEADER,
} from '../scripts';
import { linesNaming } from '../persistState';
import { contentAfter } from '../planChecks';
import { RemoteShell, ShellResult } from '../shell';
import { PeermemModule, Privilege } from '../types';
import { parseHeadedFiles } from '../../probe/headedFiles';
import { DemoHost } from '../../transport';
import { DEMO_TEXT } from './text';

/** sudo -n and root need no prompt marker; privilegedCommand checks one is well formed all the same. */
const UNUSED_MARKER = 'gdr-doctor-demo-unused';
const PRIVILEGES: readonly Privilege[] = ['root', 'sudo'];
/** The peer-memory module the demo host has (modinfo finds it; nv_peer_mem it does not). */
const DEMO_MODULE: PeermemModule = 'nvidia_peermem';
const TARGET: PersistTarget = 'modules-load.d';

export function demoShell(demo: DemoHost): RemoteShell {
  return {
    run: async (command) => {
      if (command === READ_STATE_COMMAND) return done(await readState(demo));
      if (PRIVILEGES.some((p) => command === privilegedCommand(loadScript(DEMO_MODULE), p, UNUSED_MARKER))) {
        demo.update({ ...demo.current, peermemLoaded: true });
        return done('');
      }
      if (PRIVILEGES.some((p) => command === privilegedCommand(persistScript(DEMO_MODULE, TARGET), p, UNUSED_MARKER)))
        return done(persist(demo));
      return {
        exitCode: 1,
        stdout: Buffer.alloc(0),
        stderr: Buffer.from(`${DEMO_TEXT.notAFixCommand()}\n`),
        connectionLost: false,
        timedOut: false,
      };
    },
  };
}

function done(stdout: string): ShellResult {
  return { exitCode: 0, stdout: Buffer.from(stdout), stderr: Buffer.alloc(0), connectionLost: false, timedOut: false };
}

/** What the persist script does and prints (scripts.ts persistScript): add the line unless one names the module. */
function persist(demo: DemoHost): string {
  const file = MODULE_CONSTANTS[DEMO_MODULE].confFile;
  const before = demo.current.written[file];
  if (before !== undefined && linesNaming(before, DEMO_MODULE).length > 0)
    return `gdr-doctor: ${file} already names ${MODULE_CONSTANTS[DEMO_MODULE].line}: not changed\n`;
  const after = contentAfter(before ?? null, DEMO_MODULE, TARGET, CONF_HEADER);
  demo.update({ ...demo.current, written: { ...demo.current.written, [file]: after } });
  return `gdr-doctor: wrote ${file}\n`;
}

/** READ_STATE_SCRIPT's answer on the demo host: modules-load.d is a directory; /etc/modules as recorded. */
async function readState(demo: DemoHost): Promise<string> {
  const recorded = await demo.recorded('etc-modules');
  const headed = parseHeadedFiles(recorded?.stdout.toString('utf8') ?? '', 'cat /etc/modules');
  const etcModules = headed.ok ? headed.value.find((f) => f.path === ETC_MODULES) : undefined;
  const files: Record<string, string | undefined> = {
    ...Object.fromEntries(Object.values(MODULE_CONSTANTS).map((c) => [c.confFile, demo.current.written[c.confFile]])),
    [ETC_MODULES]: etcModules ? `${etcModules.lines.join('\n')}\n` : undefined,
  };
  const entries = Object.entries(files).map(([p, content]) =>
    content === undefined ? `file ${p} absent\n` : `file ${p} regular ${Buffer.byteLength(content)}\n${content}\n`,
  );
  return `modules-load.d: directory\n${entries.join('')}end\n`;
}
