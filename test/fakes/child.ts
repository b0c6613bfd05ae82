// A watcher of a child process's output (stdout and stderr together): what it
// has printed so far, and a wait for a pattern that fails with that text if
// the pattern does not appear in time, so a timeout shows what the child said.
import type { ChildProcessWithoutNullStreams } from 'node:child_process';

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
