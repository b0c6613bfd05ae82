// The account npm start provisions under, and never on its command line.
//  - Local service: the simulated account of a data directory, its password
//    random, made once and kept in <data>/sim-account.json (0600): no two
//    data directories share credentials, and nobody knows them by heart.
//  - --url: the password from PDA_PASSWORD, or asked in a terminal without
//    echo. A --password option is refused: a command line is seen by every
//    local user (ps, /proc) and kept in the shell's history.
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import type { ReadStream } from 'node:tty';

export const PASSWORD_ENV = 'PDA_PASSWORD';
export const ACCOUNT_FILE = 'sim-account.json';
const EMAIL = 'sim@example.com';

/** What --password gets: one line, the option's value not in it. */
export const PASSWORD_OPTION_REFUSED =
  `--password: refused, a password on the command line is seen by other users and kept in the shell's history; ` +
  `set ${PASSWORD_ENV} in the environment, or run in a terminal to be asked`;

export interface SimAccount {
  email: string;
  password: string;
  file: string;
  /** Made by this call (not read from the file). */
  made: boolean;
}

/** A directory holding anything (a service's data from before the account file). */
function holdsData(dir: string): boolean {
  try {
    return readdirSync(dir).length > 0;
  } catch {
    return false;
  }
}

/**
 * The simulated account of `dataDir`: read from its file, or made and saved
 * there (0600, the directory made 0700). A new file over a service directory
 * that already holds data names a new e-mail address: that service may have
 * sim@example.com under an older password.
 */
export function simAccount(dataDir: string, serviceDir: string): SimAccount {
  const file = join(dataDir, ACCOUNT_FILE);
  if (existsSync(file)) {
    let v: unknown;
    try {
      v = JSON.parse(readFileSync(file, 'utf8'));
    } catch {
      v = undefined;
    }
    const o = v as { email?: unknown; password?: unknown } | undefined;
    if (!o || typeof o.email !== 'string' || !o.email.includes('@') || typeof o.password !== 'string' || o.password.length < 16) {
      throw new Error(`${file}: not the simulated account (email, and a password of 16 characters or more); move it away to make a new one`);
    }
    // Made by hand, or copied: the file holds a password.
    chmodSync(file, 0o600);
    return { email: o.email, password: o.password, file, made: false };
  }
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const email = holdsData(serviceDir) ? `sim-${randomBytes(4).toString('hex')}@example.com` : EMAIL;
  // 144 random bits, in characters a URL path carries as they are.
  const password = randomBytes(18).toString('base64url');
  // 'wx': never over a file another start has just made.
  const fd = openSync(file, 'wx', 0o600);
  try {
    writeSync(fd, JSON.stringify({ email, password }, null, 2) + '\n');
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return { email, password, file, made: true };
}

/** A terminal to ask on: the input in raw mode while the password is typed. */
export interface Terminal {
  input: ReadStream;
  output: NodeJS.WritableStream;
}

/**
 * The account's password for --url: PDA_PASSWORD when set, else typed in a
 * terminal without echo; with neither, an error saying how to give it.
 */
export async function urlPassword(email: string, env: NodeJS.ProcessEnv, tty: Terminal | undefined): Promise<string> {
  const given = env[PASSWORD_ENV];
  if (given) return given;
  if (!tty) {
    throw new Error(`--url: the password of ${email} is needed to provision: set ${PASSWORD_ENV} in the environment, or run in a terminal to be asked`);
  }
  const typed = await askHidden(`password of ${email} (not shown): `, tty);
  if (!typed) throw new Error(`--url: no password typed for ${email}; nothing provisioned`);
  return typed;
}

/**
 * One line read from a terminal in raw mode, nothing of it echoed. Backspace
 * takes back a character; Ctrl-C is the interrupt it would have been; Ctrl-D
 * or Enter ends. What was typed after Enter goes back to the input.
 */
export function askHidden(prompt: string, t: Terminal): Promise<string> {
  const input = t.input;
  return new Promise((resolve) => {
    // Raw mode (no echo) before the prompt shows: a password typed as soon as
    // the prompt appears must never reach a terminal still echoing (a loaded
    // machine let the test's typing in between, and the terminal echoed it).
    const wasRaw = input.isRaw;
    input.setRawMode(true);
    t.output.write(prompt);
    const got: string[] = [];
    const finish = (rest: string): void => {
      input.removeListener('data', onData);
      input.setRawMode(wasRaw);
      input.pause();
      t.output.write('\n');
      if (rest) input.unshift(Buffer.from(rest, 'utf8'));
      resolve(got.join(''));
    };
    const onData = (chunk: Buffer | string): void => {
      const chars = [...chunk.toString()];
      for (let i = 0; i < chars.length; i++) {
        const c = chars[i] as string;
        if (c === '\r' || c === '\n' || c === '\u0004') return finish(chars.slice(i + 1).join('').replace(/^\n/, ''));
        if (c === '\u0003') {
          // The terminal's interrupt, as it would have been outside raw mode:
          // the stop it starts ends the program, the question stays unanswered.
          input.removeListener('data', onData);
          input.setRawMode(wasRaw);
          t.output.write('\n');
          process.kill(process.pid, 'SIGINT');
          return;
        }
        if (c === '\u007f' || c === '\b') got.pop();
        else if (c >= ' ') got.push(c);
      }
    };
    input.on('data', onData);
    input.resume();
  });
}
