// A watcher of a child process's output (stdout and stderr together): what it
// has printed so far, and a wait for a pattern that fails with that text if
// the pattern does not appear in time, so a timeout shows what the child said.
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { realpathSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

export interface OutputWatch {
  /** Everything printed so far. */
  out: () => string;
  /** Resolves with the first match of `re` in the output, now or once it is printed. */
  waitFor: (re: RegExp, ms?: number) => Promise<RegExpMatchArray>;
}

export function watchOutput(proc: ChildProcessWithoutNullStreams, timeoutMs = 20000): OutputWatch {
  let text = '';
  const waiters: (() => void)[] = [];
  const feed = (b: Buffer): void => {
    text += b.toString();
    for (const w of waiters.splice(0)) w();
  };
  proc.stdout.on('data', feed);
  proc.stderr.on('data', feed);
  const waitFor = (re: RegExp, ms = timeoutMs): Promise<RegExpMatchArray> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`timed out waiting for ${String(re)} in:\n${text}`)), ms);
      const check = (): void => {
        const m = re.exec(text);
        if (m) {
          clearTimeout(timer);
          resolve(m);
        } else waiters.push(check);
      };
      check();
    });
  return { out: () => text, waitFor };
}

const TSX_LOADER = pathToFileURL(join(dirname(realpathSync('node_modules/.bin/tsx')), 'loader.mjs')).href;

/** `npm start` as a person runs it (host/start.ts through tsx) on its own port and data directory `data`, with `extra` options: the child and its output. */
export function npmStart(data: string, extra: string[] = []): OutputWatch & { proc: ChildProcessWithoutNullStreams } {
  const proc = spawn(process.execPath, ['--import', TSX_LOADER, 'host/start.ts', '--port', '0', '--data', data, ...extra], { stdio: 'pipe' });
  return { proc, ...watchOutput(proc) };
}

/** A Ctrl-C (SIGINT) to a child that is still running: its exit code once it is gone (its own when it had already exited). */
export function interrupt(proc: ChildProcessWithoutNullStreams): Promise<number | null> {
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve(proc.exitCode);
  const gone = new Promise<number | null>((r) => proc.once('exit', (code) => r(code)));
  proc.kill('SIGINT');
  return gone;
}
