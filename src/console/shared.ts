// What every console command shares: output that fits an 80-column
// terminal, one-line errors remembered for status(), and the config editor
// made anew for each command on the runtime's pending changes.
import { createConfigEditor } from '../config/edit';
import type { ConfigEditor } from '../config/edit';
import type { Runtime } from '../runtime';

export type Command = (...a: unknown[]) => unknown;
export type Commands = Record<string, Command>;

/** What every command reaches: the platform, and the console's last error line (status() shows it). */
export type ConsoleRt = Pick<Runtime, 'p' | 'consoleError'>;
/** What edit() reaches: the running configuration and the console's unsaved changes to it. */
export type Editing = Pick<Runtime, 'config' | 'pending' | 'setPending'>;

/** A command table's context: `rt` is as narrow as the table says (each names the members it uses). */
export interface Ctx<R extends ConsoleRt = ConsoleRt> {
  rt: R;
  out: (line: string) => void;
  /** Errors stay on one line, whole: they name the key and the rule. */
  fail: (line: string) => void;
}

/** Lines longer than an 80-column terminal continue on indented lines, cut at a space. */
export function wrap(s: string, print: (l: string) => void): void {
  let rest = s;
  while (rest.length > 79) {
    let cut = rest.lastIndexOf(' ', 79);
    if (cut < 20) cut = 79;
    print(rest.slice(0, cut));
    rest = '  ' + rest.slice(cut).replace(/^ +/, '');
  }
  print(rest);
}

export function context<R extends ConsoleRt>(rt: R): Ctx<R> {
  return {
    rt,
    out: (l) => wrap(l, (x) => rt.p.log.info(x)),
    fail: (l) => {
      rt.consoleError = l;
      rt.p.log.error(l);
    },
  };
}

/** Runs `change` on an editor over the pending changes and keeps what it left. */
export function edit(rt: Editing, change: (ed: ConfigEditor) => string | undefined): string | undefined {
  const ed = createConfigEditor({ current: rt.config(), pending: rt.pending() });
  const e = change(ed);
  rt.setPending(ed.dirty() ? ed.pending() : undefined);
  return e;
}
