// The serial half of flash.sh: talks to a board running Kaluma 1.2.1 over its
// USB serial port, with nothing but Node and `stty`.
//
//   1. Waits until the REPL answers (a Wi-Fi scan or join blocks it for up to
//      3.3 s or 30 s), then asks what runs: Kaluma version, board, agent.
//   2. If the agent is loaded and this is not a maintenance boot: types
//      maintenance() and waits for the board to come back (the USB serial port
//      goes away and comes back on a reboot) in a boot with neither agent nor
//      watchdog. Kaluma never stops the RP2040 watchdog on a soft reset or
//      .load, so every transfer happens in that boot.
//   3. --config: sends the file as base64 lines into /config.json.tmp, reads
//      back its size and checksum, and only then renames it to /config.json.
//   4. Sends the program with `.flash -w` (YMODEM, as the firmware answers it),
//      requires the firmware's own "Done" and `.flash -s` equal to the file
//      size, then `.load`s it and reads the agent's boot line and mode.
//
// Progress goes to stdout as "flash: ..." lines; a failure is one line
// "flash: error: ..." on stderr and exit status 1 (2 for bad arguments).
import { spawnSync } from 'node:child_process';
import { closeSync, constants, existsSync, openSync, readFileSync, writeSync } from 'node:fs';
import { isatty, ReadStream } from 'node:tty';

export class FlashError extends Error {}

// ---------------------------------------------------------------------------
// Serial port
// ---------------------------------------------------------------------------

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Why an open failed, as one line saying what to do. */
function openProblem(port: string, code: string | undefined): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return `no permission to use ${port}: on Linux run 'sudo usermod -aG dialout $USER' and log in again`;
    case 'EBUSY':
      return `${port} is in use by another program: close the other serial monitor or console, then retry`;
    case 'ENOENT':
    case 'ENXIO':
    case 'ENODEV':
    case 'EIO':
      return `could not open ${port}: replug the board and check the port name`;
    default:
      return `could not open ${port} (${code ?? 'unknown error'}): replug the board and retry`;
  }
}

export class Serial {
  private data = Buffer.alloc(0);
  private wake: (() => void) | undefined;
  private stream: ReadStream;
  closed = false;

  private constructor(readonly port: string, private fd: number) {
    this.stream = new ReadStream(fd);
    this.stream.on('data', (d: Buffer) => {
      this.data = Buffer.concat([this.data, d]);
      this.poke();
    });
    const gone = (): void => {
      this.closed = true;
      this.poke();
    };
    this.stream.on('end', gone);
    this.stream.on('close', gone);
    this.stream.on('error', gone);
  }

  /** Opens the port raw (no echo, no CR/LF translation: YMODEM is binary). */
  static open(port: string): Serial {
    let fd: number;
    try {
      fd = openSync(port, constants.O_RDWR | constants.O_NOCTTY | constants.O_NONBLOCK);
    } catch (e) {
      throw new FlashError(openProblem(port, (e as NodeJS.ErrnoException).code));
    }
    if (!isatty(fd)) {
      closeSync(fd);
      throw new FlashError(`${port} is not a serial port: pass the board's USB serial port (/dev/ttyACM* or /dev/cu.usbmodem*) to --port`);
    }
    // stty works on its standard input on Linux and macOS alike; the port's
    // settings hold while this descriptor stays open.
    const r = spawnSync('stty', ['raw', '-echo'], { stdio: [fd, 'ignore', 'pipe'] });
    if (r.status !== 0) {
      closeSync(fd);
      const why = r.error ? r.error.message : String(r.stderr).trim();
      throw new FlashError(`could not set ${port} to raw mode with stty (${why}): replug the board and retry`);
    }
    return new Serial(port, fd);
  }

  private poke(): void {
    const w = this.wake;
    this.wake = undefined;
    if (w) w();
  }

  /** Bytes received so far: a mark to read from. */
  mark(): number {
    return this.data.length;
  }

  bytes(from: number): Buffer {
    return this.data.subarray(from);
  }

  /** Text received since `from`, without the terminal escape sequences. */
  text(from: number): string {
    return plain(this.data.subarray(from).toString('latin1'));
  }

  async write(b: Buffer | string): Promise<void> {
    const buf = typeof b === 'string' ? Buffer.from(b, 'latin1') : b;
    let off = 0;
    let stalled = 0;
    while (off < buf.length) {
      if (this.closed) throw new PortGone();
      try {
        off += writeSync(this.fd, buf, off, Math.min(256, buf.length - off));
        stalled = 0;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code !== 'EAGAIN') throw new PortGone();
        // The board is not reading (busy): its USB buffer is full.
        if (++stalled > 3000) throw new FlashError(`the board stopped reading ${this.port} for 30 s: press reset and retry`);
        await sleep(10);
      }
    }
  }

  /**
   * Waits until `test` returns a value (checked now and on every arrival),
   * the port goes away (PortGone), or `ms` pass (undefined).
   */
  async until<T>(test: () => T | undefined, ms: number): Promise<T | undefined> {
    const end = Date.now() + ms;
    for (;;) {
      const v = test();
      if (v !== undefined) return v;
      if (this.closed) throw new PortGone();
      const left = end - Date.now();
      if (left <= 0) return undefined;
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
  }

  close(): void {
    if (!this.stream.destroyed) this.stream.destroy();
    this.closed = true;
  }
}

/** The port went away: the board reset (USB re-enumerates) or was unplugged. */
export class PortGone extends Error {}

/** Removes the REPL's colour, cursor and screen-size escapes. */
export function plain(s: string): string {
  // eslint-disable-next-line no-control-regex
  return s.replace(/\x1b\[[0-9;?]*[A-Za-z]|\x1b[78]/g, '');
}

// ---------------------------------------------------------------------------
// The REPL
// ---------------------------------------------------------------------------

/** Printed by the REPL after each line (with echo on): save cursor, "> ". */
const PROMPT = '\x1b7> ';

// Unique per run: a line queued by an earlier run that gave up (a busy board
// reads it later) must not answer for this one.
const tagBase = 'f' + Math.random().toString(36).slice(2, 6);
let tagCount = 0;

/**
 * One line of es2019 typed at the REPL, run in a function so that an error
 * comes back as text: runs `body`, then returns '@<tag>:' + value + '@'. The
 * echo of the line never matches, because in it the tag is followed by a quote.
 */
export function markedLine(body: string, value: string): { line: string; tag: string } {
  const tag = tagBase + (++tagCount).toString(36);
  const line = `(function(){try{${body}return '@${tag}:'+(${value})+'@'}catch(e){return '@${tag}!'+String(e).replace(/[@']/g,' ')+'@'}})()`;
  return { line, tag };
}

export function readMarked(text: string, tag: string): { ok: boolean; value: string; before: string } | undefined {
  const m = new RegExp(`@${tag}([:!])([^@']*)@`).exec(text);
  if (!m) return undefined;
  return { ok: m[1] === ':', value: m[2] ?? '', before: text.slice(0, m.index) };
}

export interface Timeouts {
  /** First answer of the REPL (a running agent may be blocked in a Wi-Fi join). */
  answerMs: number;
  /** Back after a reboot. */
  rebootMs: number;
  /** Any one step once the board talks. */
  stepMs: number;
  /** The firmware erases the whole program area before its first ACK. */
  eraseMs: number;
}

export class Repl {
  constructor(public s: Serial, private t: Timeouts) {}

  /**
   * Ends whatever sits in the REPL's line (a half-typed command) with Enter
   * and turns echo back on (an interrupted `kaluma put` leaves it off, and
   * without echo the REPL prints no prompt). Bytes already in the port's
   * buffer (old output) are let in first, so nothing old is taken for an answer.
   */
  async fresh(): Promise<void> {
    await sleep(150);
    await this.s.write('\r.echo on\r');
  }

  /**
   * Runs one marked line. On a timeout throws FlashError: `late` says what to
   * do, or the default names `what`.
   */
  async run(body: string, value: string, what: string, ms = this.t.stepMs, late?: string): Promise<{ ok: boolean; value: string; before: string }> {
    const { line, tag } = markedLine(body, value);
    if (line.length > 1000) throw new Error('REPL line too long: ' + line.length);
    const from = this.s.mark();
    await this.s.write(line + '\r');
    const r = await this.s.until(() => readMarked(this.s.text(from), tag), ms);
    if (!r) throw new FlashError(late ?? `the board stopped answering while ${what} (no reply within ${secs(ms)}): press reset and run ./flash.sh again`);
    return r;
  }

  /** `.flash -s`: the length of the stored program (strlen of the program area). */
  async storedSize(): Promise<number | undefined> {
    const from = this.s.mark();
    await this.s.write('.flash -s\r');
    const m = await this.s.until(() => {
      const x = /\.flash -s\r\n(\d+)\r\n/.exec(this.s.text(from));
      return x ? Number(x[1]) : undefined;
    }, this.t.stepMs);
    await this.s.until(() => (this.s.bytes(from).includes(PROMPT, 0, 'latin1') ? true : undefined), this.t.stepMs);
    return m;
  }
}

export const secs = (ms: number): string => `${Number((ms / 1000).toFixed(1))}s`;

// ---------------------------------------------------------------------------
// What runs on the board
// ---------------------------------------------------------------------------

export interface Probe {
  kaluma: string;
  board: string;
  /** The agent's console commands are there. */
  agent: boolean;
  /** This boot is a maintenance boot (agent and watchdog off). */
  maintenance: boolean;
  /** The agent's own words, e.g. 'running, boot 3'. */
  state: string;
}

/** Asks what runs on the board; the first answer may take up to `ms` (a busy board answers late). */
export async function probe(r: Repl, ms: number, late: string): Promise<Probe> {
  const a = await r.run('', "process.version+':'+board.name+':'+typeof maintenance+':'+typeof status", 'asking what runs on it', ms, late);
  if (!a.ok) throw new FlashError(`the board's REPL could not tell what runs on it (${a.value}): is it running Kaluma? Reinstall the Kaluma UF2 if not`);
  const [kaluma = '', board = '', m = '', st = ''] = a.value.split(':');
  const agent = m === 'function';
  let maintenance = false;
  let state = '';
  if (agent && st === 'function') {
    // status() prints the mode and, in a maintenance boot, says so.
    const b = await r.run('status();', "'ok'", 'asking the agent for its status');
    const said = b.before.slice(b.before.lastIndexOf('status();') + 1);
    maintenance = /maintenance boot/.test(said);
    const x = /agent\s+\S+, ([a-z-]+), boot (\d+)/.exec(said);
    if (x) state = `${x[1]}, boot ${x[2]}`;
  }
  return { kaluma, board, agent, maintenance, state };
}

// ---------------------------------------------------------------------------
// Maintenance boot
// ---------------------------------------------------------------------------

async function reopen(port: string, until: number): Promise<Serial> {
  let last: unknown;
  while (Date.now() < until) {
    if (existsSync(port)) {
      try {
        return Serial.open(port);
      } catch (e) {
        last = e;
      }
    }
    await sleep(100);
  }
  const why = last instanceof Error ? ` (last try: ${last.message})` : '';
  throw new FlashError(`the board did not come back on ${port} after the maintenance reboot${why}: replug it and run ./flash.sh again`);
}

/**
 * maintenance(): the board writes a flag file and resets; the next boot
 * starts neither the agent nor the watchdog and says "maintenance boot".
 */
export async function enterMaintenance(r: Repl, t: Timeouts, say: (l: string) => void): Promise<void> {
  const until = Date.now() + t.rebootMs;
  const from = r.s.mark();
  await r.s.write('maintenance()\r');
  let seen = false;
  try {
    // On a real board the port goes away; a board whose port stays (or a
    // reset faster than the host notices) shows the maintenance boot at once.
    const v = await r.s.until(() => {
      const text = r.s.text(from);
      // "maintenance: <error>; not rebooting" (the flag file could not be
      // written) or "maintenance(): <error>" (the command's code could not be
      // loaded): the agent stays as it was.
      const no = /(?:^|\n)\r*maintenance(?:\(\))?: ([^\r\n]*)\r?\n/.exec(text);
      if (no) return { refused: (no[1] ?? '').replace(/; not rebooting$/, '') };
      return afterReboot(text) ? { refused: undefined } : undefined;
    }, t.rebootMs);
    if (v === undefined) throw new FlashError(`the board did not reboot within ${secs(t.rebootMs)} after maintenance(): press reset and run ./flash.sh again`);
    if (v.refused !== undefined) {
      throw new FlashError(`the agent did not reboot into maintenance (it said: ${v.refused}); nothing was sent: press reset, or boot with GP22 tied to GND, then run ./flash.sh again`);
    }
    seen = true;
  } catch (e) {
    if (!(e instanceof PortGone)) throw e;
    r.s.close();
    say('board: rebooting into maintenance; waiting for its USB serial port to come back');
    r.s = await reopen(r.s.port, until);
  }
  // Ask in any case: the answer also shows the program's start has finished.
  await r.fresh();
  const late = `the board did not answer within ${secs(t.rebootMs)} of maintenance(): press reset and run ./flash.sh again`;
  const p = await probe(r, Math.max(1000, until - Date.now()), late);
  // The boot lines say it if the port came back before they were printed;
  // status() says it in any case.
  if (!seen && !p.maintenance && !/maintenance boot/.test(r.s.text(0))) {
    throw new FlashError('the board rebooted after maintenance() but not into a maintenance boot (the agent or its watchdog may be running): type maintenance() at the console, then run ./flash.sh again');
  }
}

/** Output that shows the board already went through its reset into maintenance. */
function afterReboot(text: string): boolean {
  const i = text.indexOf('rebooting into maintenance');
  return /maintenance boot/.test(i >= 0 ? text.slice(i + 10) : text);
}

// ---------------------------------------------------------------------------
// Config file
// ---------------------------------------------------------------------------

/** The checksum the board computes: h = h * 31 + byte, modulo 2^32. */
export function checksum(b: Uint8Array): number {
  let h = 0;
  for (const x of b) h = (h * 31 + x) >>> 0;
  return h;
}

const sumOf = (path: string): { body: string; value: string } => ({
  body: `var b=require('fs').readFile('${path}'),h=0;for(var i=0;i<b.length;i++)h=(h*31+b[i])>>>0;`,
  value: "b.length+':'+h",
});

/** Base64 characters per line: with the wrapper, well under the REPL's 1,024. */
const CHUNK = 640;

export async function putConfig(r: Repl, bytes: Uint8Array, dest: string, say: (l: string) => void): Promise<void> {
  const tmp = dest + '.tmp';
  const want = `${bytes.length}:${checksum(bytes)}`;
  const b64 = Buffer.from(bytes).toString('base64');
  const fail = (why: string): never => {
    throw new FlashError(`${why}; ${dest} on the board is unchanged: run ./flash.sh again`);
  };
  let x = await r.run('globalThis.__fc=[];', "'ok'", `sending ${dest}`);
  if (!x.ok) fail(`the board refused to start the config transfer (${x.value})`);
  for (let i = 0; i < b64.length; i += CHUNK) {
    x = await r.run(`__fc.push('${b64.slice(i, i + CHUNK)}');`, '__fc.length', `sending ${dest}`);
    if (!x.ok) fail(`the board refused part of the config (${x.value})`);
  }
  x = await r.run(`require('fs').writeFile('${tmp}',atob(__fc.join('')));delete globalThis.__fc;`, "'ok'", `writing ${tmp}`);
  if (!x.ok) fail(`could not write ${tmp} on the board (${x.value})`);
  const s = sumOf(tmp);
  x = await r.run(s.body, s.value, `reading back ${tmp}`);
  if (!x.ok || x.value !== want) {
    await r.run(`require('fs').unlink('${tmp}');`, "'ok'", `removing ${tmp}`).catch(() => undefined);
    const got = x.ok ? `${x.value.replace(':', ' bytes, checksum ')}` : x.value;
    fail(`${tmp} came back different from the file (board: ${got}; sent: ${want.replace(':', ' bytes, checksum ')}), so it was removed`);
  }
  x = await r.run(`require('fs').rename('${tmp}','${dest}');`, "'ok'", `renaming ${tmp}`);
  if (!x.ok) fail(`could not rename ${tmp} to ${dest} on the board (${x.value})`);
  const f = sumOf(dest);
  x = await r.run(f.body, f.value, `reading back ${dest}`);
  if (!x.ok || x.value !== want) {
    throw new FlashError(`${dest} reads back different from the file after the rename (${x.value}): run ./flash.sh again`);
  }
  say(`config: ${dest} written and read back: ${bytes.length} bytes, checksum ${want.split(':')[1]}`);
}

// ---------------------------------------------------------------------------
// Program: YMODEM to `.flash -w`
// ---------------------------------------------------------------------------

const STX = 0x02;
const EOT = 0x04;
const ACK = 0x06;
const NAK = 0x15;
const CA = 0x18;
const CRC = 0x43; // 'C'

/** CRC-16/XMODEM, as the firmware checks each packet. */
export function crc16(b: Uint8Array): number {
  let crc = 0;
  for (const x of b) {
    crc ^= x << 8;
    for (let k = 0; k < 8; k++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

export function packet(seq: number, payload: Uint8Array): Buffer {
  const p = Buffer.alloc(1029, 0);
  p[0] = STX;
  p[1] = seq & 0xff;
  p[2] = 0xff - (seq & 0xff);
  Buffer.from(payload).copy(p, 3);
  p.writeUInt16BE(crc16(p.subarray(3, 1027)), 1027);
  return p;
}

/** The firmware's last word after a transfer. */
const RESULTS = ['Done', 'The file size is too large', 'Verification failed', 'Aborted', 'Failed to receive'];

function resultIn(text: string): string | undefined {
  const m = new RegExp(`\\r\\n(${RESULTS.join('|')})\\r\\n`).exec(text);
  return m ? m[1] : undefined;
}

/** Reads the next control byte after `at` (skipping nothing else: the firmware sends only these). */
async function nextByte(s: Serial, at: { i: number }, ms: number): Promise<number | undefined> {
  return s.until(() => {
    const b = s.bytes(0);
    if (at.i < b.length) return b[at.i++];
    return undefined;
  }, ms);
}

export async function writeProgram(r: Repl, t: Timeouts, program: Uint8Array, name: string, say: (l: string) => void): Promise<void> {
  const s = r.s;
  const from = s.mark();
  await s.write('.flash -w\r');
  const ready = await s.until(() => {
    const txt = s.bytes(from).toString('latin1');
    const i = txt.indexOf('Transfer a file via YMODEM');
    if (i < 0) return undefined;
    const j = txt.indexOf('C', i + 26);
    return j >= 0 ? from + j + 1 : undefined;
  }, t.stepMs);
  if (ready === undefined) {
    throw new FlashError(`the board did not start the YMODEM transfer within ${secs(t.stepMs)} after .flash -w: press reset and run ./flash.sh again`);
  }
  const at = { i: ready };
  const total = program.length;
  const header = new Uint8Array(1024);
  header.set(Buffer.from(`usercode\0${total} `, 'latin1'));
  const packets: Buffer[] = [packet(0, header)];
  for (let off = 0, seq = 1; off < total; off += 1024, seq++) {
    const p = new Uint8Array(1024).fill(0xff);
    p.set(program.subarray(off, off + 1024));
    packets.push(packet(seq, p));
  }

  let sent = 0; // program bytes the board acknowledged
  let cancelled = false;
  const stop = async (): Promise<never> => {
    const word = await s.until(() => resultIn(s.text(from)), t.stepMs);
    await cleanUp(r);
    const said = word ? `it said "${word}"` : 'it said nothing';
    const hint = word === 'Verification failed' ? ': the program area is full or its flash failed' : '';
    const how = cancelled ? 'cancelled the upload' : 'stopped answering during the upload';
    throw new FlashError(`the board ${how} after ${sent} of ${total} bytes (${said}${hint}); its program area was erased: run ./flash.sh again`);
  };

  // 'C's sent while nothing came are old news once the header goes out.
  at.i = s.mark();
  for (let k = 0; k < packets.length; k++) {
    let tries = 0;
    send: for (;;) {
      await s.write(packets[k] as Buffer);
      // The first ACK comes after the firmware has erased the program area.
      let wait = k === 0 ? t.eraseMs : t.stepMs;
      let asked = false;
      for (;;) {
        const c = await nextByte(s, at, wait);
        if (c === ACK) break send;
        if (c === CA) {
          cancelled = true;
          return stop();
        }
        if (c === NAK || (c === undefined && asked)) {
          // A damaged packet (NAK), or the firmware timed out waiting and
          // nothing followed its 'C': send this packet again.
          if (++tries > 5) return stop();
          continue send;
        }
        if (c === CRC) {
          // The firmware timed out waiting; the packet may still be on its
          // way, so give its ACK a moment before sending it again.
          asked = true;
          wait = 1500;
          continue;
        }
        return stop();
      }
    }
    if (k === 0) {
      // After the header the firmware asks for data with 'C'.
      const c = await nextByte(s, at, t.stepMs);
      if (c !== CRC) return stop();
    } else {
      sent = Math.min(total, k * 1024);
    }
  }
  await s.write(Buffer.from([EOT]));
  if ((await nextByte(s, at, t.stepMs)) !== ACK) return stop();
  // An empty header ends the session; the firmware then adds the final NUL.
  await s.write(packet(0, new Uint8Array(1024)));
  if ((await nextByte(s, at, t.stepMs)) !== ACK) return stop();

  const word = await s.until(() => resultIn(s.text(from)), t.stepMs + 1000);
  if (word !== 'Done') {
    await cleanUp(r);
    throw new FlashError(`the board did not confirm the upload (${word ? `it said "${word}"` : 'no answer'}); its program area was erased: run ./flash.sh again`);
  }
  await s.until(() => (s.bytes(from).includes(PROMPT, 0, 'latin1') ? true : undefined), t.stepMs);
  const stored = await r.storedSize();
  if (stored !== total) {
    await cleanUp(r);
    const got = stored === undefined ? 'no answer to .flash -s' : `.flash -s says ${stored}`;
    throw new FlashError(`the board stored a program of the wrong size (${got}, ${name} has ${total} bytes); its program area was erased: run ./flash.sh again`);
  }
  say(`program: the board said "Done" and stores ${stored} bytes, the size of ${name}`);
}

/** A half-written program must not boot: erase it (best effort). */
async function cleanUp(r: Repl): Promise<void> {
  try {
    // Bytes sent after the firmware gave up land in the REPL's line: close
    // any escape sequence and end the line first.
    const from = r.s.mark();
    await r.s.write('\x1b[C\r');
    await r.s.until(() => (r.s.bytes(from).includes(PROMPT, 0, 'latin1') ? true : undefined), 2000);
    const e = r.s.mark();
    await r.s.write('.flash -e\r');
    await r.s.until(() => (/Flash has erased/.test(r.s.text(e)) ? true : undefined), 5000);
  } catch {
    /* the failure is reported anyway */
  }
}

// ---------------------------------------------------------------------------
// Start and boot line
// ---------------------------------------------------------------------------

export interface Boot {
  version: string;
  board: string;
  boot: number;
  mode: 'running' | 'console-only' | 'safe';
  why: string;
}

/**
 * The agent's first line: "pico-data-agent V on BOARD UID, boot N". The UID
 * is empty where the board has none (the device's runtime built for the PC).
 */
const BOOT_LINE = /pico-data-agent (\S+) on (\S+) ?(\S*), boot (\d+)\n/;

/** What `.load` has brought so far. */
export type Started =
  | { kind: 'boot'; boot: Boot }
  /** The boot line is in; the mode is not known yet. */
  | { kind: 'booting' }
  /** The program did not start: the top level threw, or the boot failed. */
  | { kind: 'failed'; said: string; bootLine: boolean };

/**
 * Reads the program's start. `text`: everything after the echo of `.load`,
 * without escapes, every \r\n or lone \r as \n; `topLevel`: the part of
 * it before the REPL's prompt, once the prompt has come; `settledAt`: where
 * in `text` the REPL answered a line typed after the boot line, if it has.
 *
 * Kaluma's `.load` runs the program's top level and then prints the prompt.
 * The agent's top level only schedules its boot (a timer, src/main.ts), so
 * the boot line and everything after it come after the prompt. The boot's
 * own lines come in one go: the boot line, maybe other lines, then
 * "agent: console only: WHY" or "agent: SAFE MODE: WHY" unless the agent
 * runs. A running agent says nothing more, so "running" is known only once
 * the REPL has answered a line typed after the boot line: the REPL reads
 * input only between the program's jobs, after the boot has run.
 */
export function readStart(text: string, topLevel: string | undefined, settledAt?: number): Started | undefined {
  const failed = /(?:^|\n)(?:> )?boot failed: ([^\n]*)\n/.exec(text);
  const m = BOOT_LINE.exec(text);
  if (failed && (!m || failed.index > m.index)) return { kind: 'failed', said: 'boot failed: ' + failed[1], bootLine: !!m };
  if (!m) {
    // An exception at the top level is printed with its stack before the
    // prompt, and the program is unloaded: nothing more will come.
    const thrown = topLevel === undefined ? null : /(?:^|\n)([^\n]*\S[^\n]*)\n[ \t]+at [^\n]*\n/.exec(topLevel);
    return thrown ? { kind: 'failed', said: (thrown[1] as string).trim(), bootLine: false } : undefined;
  }
  const base = { version: m[1] as string, board: m[2] as string, boot: Number(m[4]) };
  const rest = text.slice(m.index + m[0].length, settledAt === undefined ? text.length : Math.max(settledAt, m.index + m[0].length));
  const a = /(?:^|\n)(?:> )?agent: (SAFE MODE|console only): ([^\n]*)\n/.exec(rest);
  if (a) return { kind: 'boot', boot: { ...base, mode: a[1] === 'SAFE MODE' ? 'safe' : 'console-only', why: (a[2] ?? '').trim() } };
  if (settledAt !== undefined) return { kind: 'boot', boot: { ...base, mode: 'running', why: '' } };
  return { kind: 'booting' };
}

/** The first line that says something, for an error message. */
const firstLine = (text: string): string => text.split('\n').map((l) => l.trim()).find((l) => l !== '' && l !== '>') ?? 'nothing';

/**
 * `.load`s the stored program (as the board does at power-up) and reads the
 * agent's boot line and mode wherever they come, within the step timeout.
 */
export async function start(r: Repl, t: Timeouts): Promise<Boot> {
  const s = r.s;
  const from = s.mark();
  await s.write('.load\r');
  let tag: string | undefined;
  let said = '';
  const look = (): Started | undefined => {
    const raw = s.bytes(from).toString('latin1');
    const i = raw.indexOf('.load\r\n');
    if (i < 0) return undefined;
    const after = raw.slice(i + 7);
    const j = after.indexOf(PROMPT);
    // A log line starts with a carriage return (back over the prompt): a line start too.
    const topLevel = j < 0 ? undefined : plain(after.slice(0, j)).replace(/\r\n?/g, '\n');
    said = plain(after).replace(/\r\n?/g, '\n');
    const answer = tag === undefined ? undefined : readMarked(said, tag);
    return readStart(said, topLevel, answer ? answer.before.length : undefined);
  };
  const wait = async (ms: number): Promise<Started | undefined> => {
    try {
      return await s.until(() => {
        const v = look();
        return v && (v.kind !== 'booting' || tag === undefined) ? v : undefined;
      }, ms);
    } catch (e) {
      if (!(e instanceof PortGone)) throw e;
      const seen = BOOT_LINE.test(said) ? 'the agent printed its boot line, and then' : 'after .load,';
      throw new FlashError(`the program was written, but ${seen} the board reset before its start was done (it said: ${firstLine(said).slice(0, 160)}): open the console (npm run console) to see why`);
    }
  };
  let v = await wait(t.stepMs);
  if (v && v.kind === 'booting') {
    // The boot line is in but no mode line: ask the REPL something; once it
    // answers, the boot's own lines are all in. A running agent may be
    // joining Wi-Fi by then (the REPL waits up to 30 s): the first answer's timeout.
    const m = markedLine('', "'up'");
    tag = m.tag;
    await s.write(m.line + '\r');
    v = (await wait(t.answerMs)) ?? v;
  }
  if (!v || v.kind === 'booting') {
    if (v) throw new FlashError(`the agent printed its boot line but the board did not answer within ${secs(t.answerMs)} after it: open the console (npm run console) to see where it stops`);
    throw new FlashError(`the program was written but printed no boot line within ${secs(t.stepMs)} of .load (it said: ${firstLine(said).slice(0, 160)}): open the console (npm run console) to see why`);
  }
  if (v.kind === 'failed') {
    if (v.bootLine) throw new FlashError(`the program was written and verified, but the agent's start failed (it said: ${v.said.slice(0, 160)}): open the console (npm run console) to see why`);
    throw new FlashError(`the program was written but did not start (it said: ${v.said.slice(0, 160)}): fix it and run ./flash.sh again`);
  }
  return v.boot;
}

// ---------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------

interface Args {
  port: string;
  board: string;
  program: string;
  config: string | undefined;
}

function parse(argv: string[]): Args {
  const a: Partial<Args> = {};
  for (let i = 0; i < argv.length; i += 2) {
    const k = argv[i];
    const v = argv[i + 1];
    if (v === undefined) throw new UsageError(`${k ?? ''} needs a value`);
    if (k === '--port') a.port = v;
    else if (k === '--board') a.board = v;
    else if (k === '--program') a.program = v;
    else if (k === '--config') a.config = v;
    else throw new UsageError(`unknown argument '${k ?? ''}'`);
  }
  if (!a.port || !a.board || !a.program) throw new UsageError('--port, --board and --program are required');
  return { port: a.port, board: a.board, program: a.program, config: a.config };
}

class UsageError extends Error {}

function seconds(name: string, def: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return def * 1000;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new UsageError(`${name} must be a positive number of seconds, got '${raw}'`);
  return n * 1000;
}

export async function main(argv: string[]): Promise<number> {
  const say = (l: string): void => {
    process.stdout.write(`flash: ${l}\n`);
  };
  let r: Repl | undefined;
  try {
    const a = parse(argv);
    const t: Timeouts = {
      answerMs: seconds('FLASH_ANSWER_TIMEOUT', 40),
      rebootMs: seconds('FLASH_REBOOT_TIMEOUT', 30),
      stepMs: seconds('FLASH_STEP_TIMEOUT', 15),
      eraseMs: seconds('FLASH_ERASE_TIMEOUT', 60),
    };
    const program = readFileSync(a.program);
    const config = a.config === undefined ? undefined : readFileSync(a.config);

    r = new Repl(Serial.open(a.port), t);
    await r.fresh();
    const p = await probe(r, t.answerMs, `the board did not answer on ${a.port} within ${secs(t.answerMs)}: press reset (or boot with GP22 tied to GND if the program hangs at start) and retry`);
    if (p.board !== a.board) {
      throw new FlashError(`the board says it is ${p.board || 'unknown'}, not ${a.board}: run ./flash.sh --board ${p.board || 'NAME'} (nothing was sent)`);
    }
    const kaluma = `Kaluma ${p.kaluma} on ${p.board}`;
    if (p.kaluma !== '1.2.1') say(`board: warning: the agent is made for Kaluma 1.2.1; this board runs ${p.kaluma}`);
    if (p.maintenance) {
      say(`board: ${kaluma}, already in a maintenance boot (agent and watchdog off)`);
    } else if (p.agent) {
      say(`board: ${kaluma}, agent loaded${p.state ? ` (${p.state})` : ''}: sending maintenance() to reboot without agent and watchdog`);
      await enterMaintenance(r, t, say);
      say('board: maintenance boot reached (agent and watchdog off)');
    } else {
      say(`board: ${kaluma}, no agent loaded`);
    }
    if (config) await putConfig(r, config, '/config.json', say);
    say(`program: sending ${a.program} (${program.length} bytes) with .flash -w`);
    await writeProgram(r, t, program, a.program, say);
    const b = await start(r, t);
    if (b.board !== a.board) {
      throw new FlashError(`the agent says it runs on ${b.board}, but it was built for ${a.board}: run ./flash.sh --board ${b.board}`);
    }
    const line = `agent ${b.version} on ${b.board}, boot ${b.boot}, mode ${b.mode}`;
    if (b.mode === 'safe') {
      throw new FlashError(`the program was written and verified, but ${line} (${b.why}): open the console (npm run console) and type resume()`);
    }
    say(`done: ${line}${b.why ? ` (${b.why})` : ''}`);
    return 0;
  } catch (e) {
    if (e instanceof UsageError) {
      process.stderr.write(`flash: error: ${e.message}\n`);
      return 2;
    }
    const msg = e instanceof FlashError ? e.message
      : e instanceof PortGone ? `the board went away in the middle (reset or unplugged): replug it and run ./flash.sh again`
      : `unexpected: ${e instanceof Error ? e.message : String(e)}`;
    process.stderr.write(`flash: error: ${msg}\n`);
    return 1;
  } finally {
    if (r) r.s.close();
  }
}

if (process.argv[1] && /board\.ts$/.test(process.argv[1])) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
