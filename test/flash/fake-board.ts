// A Pico W running Kaluma 1.2.1 and the agent, as flash.sh sees it through
// the USB serial port: a pseudo-terminal (test/flash/pty-relay.py) whose far
// end is played here.
//
// What it models, after Kaluma's src/repl.c, src/ymodem.c and src/prog.c:
// - the REPL: echo, "\r\n" on Enter, a result printed in colour, the prompt
//   with its cursor-save and screen-size escapes, the 1,024-byte line buffer,
//   dot-commands (.flash -w/-e/-s, .load, .echo, .reset); each JS line is
//   parsed as es2019 and run (strict) against a Kaluma-like fs
//   (test/fakes/kaluma-fs.ts) and the agent's console globals;
// - `.flash -w`: the firmware's YMODEM receiver: 'C' every timeout while
//   idle, CRC-16 and sequence checks (NAK, 'C'), the header erases the whole
//   program area first, data trimmed to the header's size, the quota check
//   (CA CA + "Verification failed"), 'a' as a packet start (CA CA +
//   "Aborted"), the final NUL, the 500 ms pause before the answer;
// - the program area (strlen for .flash -s; what `.load` starts);
// - the agent's boot: its top level returns at once and the boot runs in a
//   timer after the REPL's prompt (src/main.ts), so `.load` prints the
//   prompt first and the boot lines after it; the REPL reads no input until
//   the boot has run. A config.json written behind the agent's back (not the
//   one config.ok was made from) is checked after the boot, and a complete
//   one restarts the board into the agent;
// - the agent's boot lines and modes, maintenance() (flag file + reset),
//   the watchdog (armed by a running agent, kept by .load, cleared by a reset)
//   and a reset's USB re-enumeration (the port goes away and comes back);
// - a board busy before it reads (a Wi-Fi scan), one that never reads.
// Anything the firmware would not survive (an upload or a config write with
// the agent's watchdog armed, a REPL line overflow, a line the engine cannot
// parse) is recorded in `violations`.
import { spawn } from 'node:child_process';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import vm from 'node:vm';
import { parse } from 'acorn';
import { createKalumaFs } from '../fakes/kaluma-fs';
import type { KalumaFsFake } from '../fakes/kaluma-fs';

const RELAY = fileURLToPath(new URL('./pty-relay.py', import.meta.url));
const UID = 'E6616407E3A1B2C3';
const NORMAL = '\x1b[0m';
const PROMPT_TAIL = '\x1b[H\x1b[900C\x1b[6n\x1b8\x1b[2C';

export interface BoardSetup {
  /** Path of the port (a symlink the relay points at the pty). */
  link: string;
  name?: 'pico-w' | 'pico2-w';
  /** The program area's content at the start ('' = erased). */
  program?: string;
  /** Files on LittleFS at the start. */
  files?: Record<string, string>;
  /** How a stored program boots normally. 'crash': it throws on its first line. */
  agent?: 'running' | 'console-only' | 'safe' | 'crash';
  /** The state when the test starts: the stored program booted as `agent` says, or a maintenance boot. */
  start?: 'booted' | 'maintenance';
  /** The board's unique id ('' on the device's runtime built for the PC). */
  uid?: string;
  /**
   * Blocked (a Wi-Fi scan or join) for this long from the first byte it is
   * sent: input waits. Counted from then, not from the plug, so a slow start
   * of the test's own processes (a loaded CI machine) cannot use it up.
   */
  busyMs?: number;
  /** A running agent blocks this long right after its boot (a Wi-Fi join): input waits. */
  busyAfterBootMs?: number;
  /** Never reads its console. */
  silent?: boolean;
  /** Takes the start of data packet N+1 for an 'a' (the firmware's abort key). */
  abortAfterPackets?: number;
  /** Size of the program area (Pico W: 512 KB). */
  programBytes?: number;
  /** The flash page holding this offset of the program reads back as zeros. */
  badPageAt?: number;
  /** The agent's commands are cold code that cannot be loaded: they say so and do nothing. */
  coldBroken?: boolean;
  /** An agent too old to have maintenance(). */
  noMaintenance?: boolean;
  /** Every fs write lands with its last byte changed (a failing flash). */
  corruptWrites?: boolean;
  /** After a reset the boot lines are printed before the host reopens the port, and lost. */
  lostBootLines?: boolean;
  /** REPL echo at the start (an interrupted `kaluma put` leaves it off). */
  echo?: boolean;
  /** A running agent prints a log line this often (ms); 0 = quiet. */
  chatterMs?: number;
  /** From the boot with a new config.json to the restart its check makes (ms). */
  checkMs?: number;
  /** The firmware's receive timeout (1 s on the board). */
  ymodemMs?: number;
  /** The pause before the firmware's answer (500 ms on the board). */
  answerMs?: number;
  eraseMs?: number;
  /** How long the port is gone on a reset. */
  unplugMs?: number;
}

type Mode = 'running' | 'console-only' | 'safe';

/** Thrown out of maintenance() to stop the line: the board resets. */
class Reset extends Error {}

export class FakeBoard {
  readonly files = new Map<string, Uint8Array>();
  readonly fs: KalumaFsFake;
  readonly area: Uint8Array;
  readonly violations: string[] = [];
  /** Everything that happened, in order: resets, commands, answers. */
  readonly events: string[] = [];
  /** Every JS line the REPL ran. */
  readonly lines: string[] = [];
  boots = 0;
  watchdog = false;
  mode: Mode | 'none' = 'none';
  why = '';

  private relay: ChildProcessWithoutNullStreams;
  private fromRelay = Buffer.alloc(0);
  private inbox = Buffer.alloc(0);
  private line = '';
  private echo: boolean;
  private esc: string | undefined;
  private ctx: vm.Context = vm.createContext({});
  private busyUntil: number | undefined;
  private away = true;
  private state: 'repl' | 'ymodem' | 'wait' = 'repl';
  private y = { buf: Buffer.alloc(0), packets: 0, begun: false, errors: 0, remained: 0, written: 0, dataPackets: 0, timer: undefined as NodeJS.Timeout | undefined };
  private timers = new Set<NodeJS.Timeout>();
  private chatter: NodeJS.Timeout | undefined;
  private ready: Promise<void>;
  private plugged: (() => void) | undefined;
  private quiet = false;
  /** The agent's boot is scheduled and has not run: the REPL reads nothing meanwhile. */
  private booting = false;
  /** Called once the scheduled boot has run. */
  private booted: (() => void)[] = [];
  /** The config.json that config.ok holds the checked form of. */
  private checked: Uint8Array | undefined;

  constructor(readonly o: BoardSetup) {
    for (const [k, v] of Object.entries(o.files ?? {})) this.files.set(k, Buffer.from(v));
    this.fs = createKalumaFs({ files: this.files });
    this.area = new Uint8Array(o.programBytes ?? 524288).fill(0xff);
    if (o.program) this.area.set(Buffer.from(o.program + '\0'));
    this.echo = o.echo ?? true;
    this.relay = spawn('python3', [RELAY, o.link], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.relay.stdout.on('data', (d: Buffer) => this.onRelay(d));
    this.relay.stderr.on('data', (d: Buffer) => this.events.push('relay: ' + d.toString()));
    this.ready = new Promise((resolve) => {
      this.plugged = resolve;
    });
    if (o.start === 'maintenance') this.files.set('/maintenance', new Uint8Array([49]));
    this.checked = this.files.get('/config.json');
  }

  /** Resolves once the port exists and the board has booted. */
  async started(): Promise<void> {
    await this.ready;
  }

  // -------------------------------------------------------------------------
  // Relay

  private send(kind: string, payload: Buffer): void {
    const h = Buffer.alloc(5);
    h.write(kind, 0, 'latin1');
    h.writeUInt32BE(payload.length, 1);
    this.relay.stdin.write(Buffer.concat([h, payload]));
  }

  private onRelay(d: Buffer): void {
    this.fromRelay = Buffer.concat([this.fromRelay, d]);
    while (this.fromRelay.length >= 5) {
      const n = this.fromRelay.readUInt32BE(1);
      if (this.fromRelay.length < 5 + n) return;
      const kind = String.fromCharCode(this.fromRelay[0] as number);
      const payload = this.fromRelay.subarray(5, 5 + n);
      this.fromRelay = this.fromRelay.subarray(5 + n);
      if (kind === 'O') this.onPlugged();
      else if (kind === 'D' && !this.away) this.onInput(Buffer.from(payload));
    }
  }

  private out(s: string | Buffer | number[]): void {
    if (this.away || this.quiet) return;
    this.send('D', typeof s === 'string' ? Buffer.from(s, 'latin1') : Buffer.from(s));
  }

  private later(ms: number, f: () => void): NodeJS.Timeout {
    const t = setTimeout(() => {
      this.timers.delete(t);
      f();
    }, ms);
    this.timers.add(t);
    return t;
  }

  // -------------------------------------------------------------------------
  // Power, resets, boot

  private onPlugged(): void {
    this.away = false;
    this.events.push('port up');
    this.boot('reset');
    const p = this.plugged;
    this.plugged = undefined;
    if (p && this.booting) this.booted.push(p);
    else if (p) p();
  }

  /** A hardware reset: the USB port goes away and comes back. */
  private hardReset(why: string): void {
    this.events.push('reset: ' + why);
    this.away = true;
    this.stopChatter();
    // Nothing of the old boot runs on: its timers, a scheduled boot, a transfer.
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    if (this.y.timer) clearTimeout(this.y.timer);
    this.booting = false;
    this.state = 'repl';
    this.inbox = Buffer.alloc(0);
    this.line = '';
    this.esc = undefined;
    this.echo = true;
    this.send('U', Buffer.from(String(this.o.unplugMs ?? 150)));
  }

  private strlen(): number {
    if (this.area[0] === 0xff) return 0;
    const i = this.area.indexOf(0);
    return i < 0 ? this.area.length : i;
  }

  /** The stored program's text (up to its NUL). */
  program(): string {
    return Buffer.from(this.area.subarray(0, this.strlen())).toString('latin1');
  }

  private log(l: string): void {
    this.out('\x1b[2K\r' + NORMAL + l + '\r\n');
  }

  /**
   * Kaluma's runtime start: a fresh global scope, then the stored program's
   * top level, then the prompt. The agent's top level only schedules its
   * boot (src/main.ts: a timer of 0 ms), so every line of the boot comes
   * after the prompt, and the REPL reads no input until that timer has run.
   */
  private boot(kind: 'reset' | 'load'): void {
    if (kind === 'reset') this.watchdog = false;
    this.stopChatter();
    this.mode = 'none';
    this.why = '';
    this.newContext();
    const program = this.program();
    const quiet = kind === 'reset' && !!this.o.lostBootLines;
    this.quiet = quiet;
    if (program && this.o.agent === 'crash') {
      // An exception at the top level: printed with its stack, the program unloaded.
      this.out('\x1b[31mReferenceError: agentMain is not defined\r\n\x1b[0m\x1b[31m  at <anonymous>:2\r\n\x1b[0m');
    } else if (program) {
      this.booting = true;
      this.later(0, () => {
        this.booting = false;
        this.quiet = quiet;
        this.agentBoot(kind);
        this.quiet = false;
        for (const f of this.booted.splice(0)) f();
        this.pump();
      });
    }
    if (!this.booting) this.events.push(`boot (${kind}): ${this.mode}`);
    // After .load the REPL prints the prompt itself once the command returns.
    if (kind === 'reset') this.prompt();
    this.quiet = false;
  }

  /** The agent's boot (src/runtime.ts): its lines, its mode, its console commands. */
  private agentBoot(kind: 'reset' | 'load'): void {
    if (this.away) return;
    this.boots++;
    const flag = this.files.get('/maintenance');
    const maintenance = !!flag && flag.length === 1 && flag[0] === 49;
    this.files.delete('/maintenance');
    const saved = this.files.get('/config.json');
    // config.ok is bound to the exact bytes of config.json: a file written
    // behind the agent's back (flash.sh --config) is checked once, after the
    // boot, and a complete one restarts the board into the agent.
    const unchecked = saved !== undefined && (this.checked === undefined || Buffer.compare(Buffer.from(saved), Buffer.from(this.checked)) !== 0);
    this.log(`pico-data-agent 0.1.0 on ${this.o.name ?? 'pico-w'} ${this.o.uid ?? UID}, boot ${this.boots}`);
    if (maintenance) {
      this.mode = 'console-only';
      this.why = 'maintenance boot: agent and watchdog off until the next reboot; flash or copy files now';
    } else if (this.o.agent === 'safe') {
      this.mode = 'safe';
      this.why = '5 rapid reboots in a row (last state: uplink: sending)';
    } else if (unchecked) {
      this.mode = 'console-only';
      this.why = 'checking the saved configuration; the agent starts after a restart';
      this.later(this.o.checkMs ?? 30, () => this.checkConfig());
    } else if (this.o.agent === 'console-only') {
      this.mode = 'console-only';
      this.why = 'not configured: set wifi.ssid, service.url, service.apiKey, device.<name>';
    } else {
      this.mode = 'running';
    }
    if (this.mode === 'running') {
      // The agent arms the watchdog once its link is up; for flashing
      // that is the same as at once.
      this.watchdog = true;
      if (this.o.busyAfterBootMs) this.busyUntil = Date.now() + this.o.busyAfterBootMs;
      if (this.o.chatterMs) this.chatter = setInterval(() => this.log('09:05:20  delivered  sim_value seq 4  HTTP 200  20.92'), this.o.chatterMs);
    } else {
      this.log('agent: ' + (this.mode === 'safe' ? 'SAFE MODE: ' : 'console only: ') + this.why);
      this.log("type help() for the commands, e.g. set('wifi.ssid', 'my-net')");
    }
    this.installAgent();
    this.events.push(`boot (${kind}): ${this.mode}`);
  }

  /** The check after a boot with a new config.json: a complete one restarts into the agent. */
  private checkConfig(): void {
    if (this.away || this.mode === 'none') return;
    this.checked = this.files.get('/config.json');
    if (this.o.agent === 'running') {
      this.hardReset('restart after the config check');
      return;
    }
    this.why = 'not configured: set wifi.ssid, service.url, service.apiKey, device.<name>';
    this.log('agent: console only: ' + this.why);
  }

  private stopChatter(): void {
    if (this.chatter) clearInterval(this.chatter);
    this.chatter = undefined;
  }

  private newContext(): void {
    const fs = this.fsApi();
    this.ctx = vm.createContext({
      require: (n: string) => {
        if (n === 'fs') return fs;
        throw new Error('Failed to load module: ' + n);
      },
      atob: (s: string) => new Uint8Array(Buffer.from(String(s), 'base64')),
      board: { name: this.o.name ?? 'pico-w', uid: this.o.uid ?? UID },
      process: { version: '1.2.1' },
      console: { log: (...a: unknown[]) => this.log(a.map(String).join(' ')), error: (...a: unknown[]) => this.log(a.map(String).join(' ')) },
    });
  }

  /** fs as the REPL sees it: writes land corrupted when asked, and are checked against a running agent. */
  private fsApi(): KalumaFsFake {
    const check = (what: string): void => {
      if (this.watchdog) this.violations.push(`${what} while the agent and its watchdog run`);
    };
    const damage = (b: Uint8Array): Uint8Array => {
      if (!this.o.corruptWrites || b.length === 0) return b;
      const c = new Uint8Array(b);
      c[c.length - 1] = (c[c.length - 1] as number) ^ 0x20;
      return c;
    };
    return {
      ...this.fs,
      write: (fd, buf, offset, length, position) => {
        check('fs.write');
        return this.fs.write(fd, damage(buf), offset, length, position);
      },
      writeFile: (path, data) => {
        check('fs.writeFile ' + path);
        this.fs.writeFile(path, damage(data));
      },
      rename: (a, b) => {
        check('fs.rename');
        this.fs.rename(a, b);
      },
    };
  }

  /** The agent's console commands that flash.sh uses. */
  private installAgent(): void {
    if (!this.o.noMaintenance) this.ctx.maintenance = () => {
      if (this.o.coldBroken) {
        this.log('maintenance(): cold module state: checksum mismatch');
        return;
      }
      this.log('rebooting into maintenance: the agent and the watchdog stay off until the next reboot');
      this.files.set('/maintenance', new Uint8Array([49]));
      throw new Reset();
    };
    Object.assign(this.ctx, {
      status: () => {
        if (this.o.coldBroken) {
          this.log('status(): cold module state: checksum mismatch');
          return;
        }
        this.log(`agent     0.1.0, ${this.mode}, boot ${this.boots}, up 5 s`);
        if (this.why) this.log('why       ' + this.why);
      },
      help: () => this.log('help()                 this list'),
    });
  }

  // -------------------------------------------------------------------------
  // Console input

  private onInput(b: Buffer): void {
    if (this.busyUntil === undefined) this.busyUntil = Date.now() + (this.o.busyMs ?? 0);
    this.inbox = Buffer.concat([this.inbox, b]);
    this.pump();
  }

  private pump(): void {
    if (this.o.silent || this.away) return;
    const wait = (this.busyUntil ?? 0) - Date.now();
    if (wait > 0) {
      this.later(wait, () => this.pump());
      return;
    }
    while (this.inbox.length && !this.away) {
      if (this.state === 'wait' || this.booting) return;
      if (this.state === 'ymodem') {
        this.ymodemFeed();
        return;
      }
      const ch = this.inbox[0] as number;
      this.inbox = this.inbox.subarray(1);
      this.replChar(ch);
    }
  }

  private prompt(): void {
    this.out(NORMAL + (this.echo ? '\r\x1b7> ' + this.line + PROMPT_TAIL : ''));
  }

  private replChar(ch: number): void {
    if (this.esc !== undefined) {
      this.esc += String.fromCharCode(ch);
      if (/[A-Za-z~]$/.test(this.esc)) this.esc = undefined;
      return;
    }
    if (ch === 0x0d) {
      if (this.echo) this.out('\r\n');
      const l = this.line;
      this.line = '';
      const next = l.charAt(0) === '.' ? this.command(l) : this.evaluate(l);
      if (next === 'prompt') this.prompt();
      return;
    }
    if (ch === 0x1b) {
      this.esc = '';
      return;
    }
    if (ch === 0x7f || ch === 0x08) {
      this.line = this.line.slice(0, -1);
      return;
    }
    if (ch === 0x03 || ch === 0x04 || ch === 0x01 || ch === 0x05) {
      this.events.push('control key 0x0' + ch.toString(16));
      return;
    }
    if (this.line.length < 1023) {
      this.line += String.fromCharCode(ch);
      if (this.echo) this.out([ch]);
    } else {
      this.violations.push('REPL buffer overflow');
      this.out('\x1b[31mREPL buffer overflow\r\n' + NORMAL);
    }
  }

  private command(l: string): 'prompt' | 'later' {
    const [cmd, arg] = l.split(' ').filter((x) => x !== '');
    this.events.push('command: ' + l);
    if (cmd === '.flash' && arg === '-s') this.out(`${this.strlen()}\r\n`);
    else if (cmd === '.flash' && arg === '-e') {
      this.area.fill(0xff);
      this.out('Flash has erased\r\n');
    } else if (cmd === '.flash' && arg === '-w') {
      this.startYmodem();
      return 'later';
    } else if (cmd === '.load') this.boot('load');
    else if (cmd === '.echo') this.echo = arg === 'on' ? true : arg === 'off' ? false : this.echo;
    else if (cmd === '.reset') {
      this.stopChatter();
      this.mode = 'none';
      this.newContext();
      this.out('\r\nsoft reset\r\n');
    } else this.out(`\x1b[31mUnknown command: ${cmd ?? ''}\r\n${NORMAL}`);
    return 'prompt';
  }

  private evaluate(l: string): 'prompt' | 'later' {
    if (l === '') return 'prompt';
    this.lines.push(l);
    try {
      parse(l, { ecmaVersion: 2019, sourceType: 'script' });
    } catch (e) {
      this.violations.push(`not es2019: ${(e as Error).message}: ${l.slice(0, 60)}`);
      this.out(`\x1b[31mSyntaxError: ${(e as Error).message}${NORMAL}\r\n`);
      return 'prompt';
    }
    try {
      const v: unknown = vm.runInContext('"use strict";' + l, this.ctx, { timeout: 2000 });
      this.out(pretty(v) + '\r\n');
    } catch (e) {
      if (e instanceof Reset) {
        this.hardReset('maintenance()');
        return 'later';
      }
      const err = e as Error;
      this.out(`\x1b[31m${err.name}: ${err.message}${NORMAL}\r\n`);
    }
    return 'prompt';
  }

  // -------------------------------------------------------------------------
  // .flash -w

  private startYmodem(): void {
    this.out("Transfer a file via YMODEM... (press 'a' to abort)\r\n");
    this.events.push('ymodem: start');
    this.state = 'ymodem';
    this.y = { buf: Buffer.alloc(0), packets: 0, begun: false, errors: 0, remained: 0, written: 0, dataPackets: 0, timer: undefined };
    if (this.watchdog) this.violations.push('.flash -w while the agent and its watchdog run');
    this.armYmodem();
  }

  /** receive_packet's timeout: nothing whole arrived in time. */
  private armYmodem(): void {
    if (this.y.timer) clearTimeout(this.y.timer);
    this.y.timer = this.later(this.o.ymodemMs ?? 1000, () => {
      if (this.state !== 'ymodem' || this.away) return;
      this.y.buf = Buffer.alloc(0);
      if (this.y.begun) this.y.errors++;
      this.out(this.y.errors > 5 ? [0x18, 0x18] : 'C');
      this.armYmodem();
    });
  }

  private ymodemFeed(): void {
    this.y.buf = Buffer.concat([this.y.buf, this.inbox]);
    this.inbox = Buffer.alloc(0);
    while (this.state === 'ymodem' && this.y.buf.length) {
      const b = this.y.buf;
      const first = b[0] as number;
      if (first === 0x02 || first === 0x01) {
        const size = first === 0x02 ? 1024 : 128;
        if (this.o.abortAfterPackets !== undefined && this.y.dataPackets === this.o.abortAfterPackets && this.y.packets > 0) {
          // Read as 'a': the rest of this packet reaches the REPL as typing.
          this.inbox = Buffer.from(b.subarray(1));
          this.y.buf = Buffer.alloc(0);
          this.out([0x18, 0x18]);
          this.finishYmodem('Aborted');
          return;
        }
        if (b.length < size + 5) return;
        this.y.buf = b.subarray(size + 5);
        this.armYmodem();
        this.onPacket(b.subarray(0, size + 5), size);
      } else if (first === 0x04) {
        this.y.buf = b.subarray(1);
        this.out([0x06]);
        this.y.packets = 0; // next file (or the closing empty header)
        this.armYmodem();
      } else if (first === 0x18) {
        if (b.length < 2) return;
        this.y.buf = b.subarray(2);
        if (b[1] === 0x18) {
          this.out([0x06]);
          this.finishYmodem('Aborted');
        } else this.packetError();
      } else if (first === 0x41 || first === 0x61) {
        this.y.buf = b.subarray(1);
        this.out([0x18, 0x18]);
        this.finishYmodem('Aborted');
      } else {
        this.y.buf = b.subarray(1);
        this.packetError();
      }
    }
  }

  private packetError(): void {
    if (this.y.begun) this.y.errors++;
    this.out(this.y.errors > 5 ? [0x18, 0x18] : 'C');
  }

  private onPacket(p: Buffer, size: number): void {
    const seq = p[1] as number;
    if (seq !== ((p[2] as number) ^ 0xff) || crc16(p.subarray(3, 3 + size)) !== p.readUInt16BE(3 + size)) {
      this.packetError();
      return;
    }
    this.y.errors = 0;
    if (seq !== (this.y.packets & 0xff)) {
      this.out([0x15]);
      return;
    }
    const data = p.subarray(3, 3 + size);
    if (this.y.packets === 0) {
      if (data[0] === 0) {
        // Empty header: end of session; the firmware appends the NUL (and
        // says "Done" even when that push fails).
        this.out([0x06]);
        this.push(0);
        this.finishYmodem('Done');
        return;
      }
      const text = data.toString('latin1');
      const name = text.slice(0, text.indexOf('\0'));
      const rest = text.slice(name.length + 1);
      const total = parseInt(rest.slice(0, rest.indexOf(' ')), 10);
      this.events.push(`ymodem: header ${name} ${total}`);
      // header_cb: the whole program area is erased before the ACK.
      this.area.fill(0xff);
      this.y.remained = total;
      this.y.written = 0;
      this.y.packets = 1;
      this.y.begun = true;
      this.state = 'wait';
      if (this.y.timer) clearTimeout(this.y.timer);
      this.later(this.o.eraseMs ?? 20, () => {
        if (this.away) return;
        this.state = 'ymodem';
        this.out([0x06, 0x43]);
        this.armYmodem();
        this.pump();
      });
      return;
    }
    let len = size;
    if (this.y.remained < len) {
      len = this.y.remained;
      this.y.remained = 0;
    } else this.y.remained -= len;
    for (let i = 0; i < len; i++) {
      if (!this.push(data[i] as number)) {
        this.out([0x18, 0x18]);
        this.finishYmodem('Verification failed');
        return;
      }
    }
    this.y.packets++;
    this.y.dataPackets++;
    this.out([0x06]);
    if (this.watchdog && this.y.dataPackets === 2) {
      // The agent's watchdog is not fed while the upload blocks the loop.
      this.hardReset('watchdog during .flash -w');
    }
  }

  /** prog.c page_buffer_push: the quota check counts the byte just written. */
  private push(byte: number): boolean {
    const bad = this.o.badPageAt !== undefined && this.y.written >> 8 === this.o.badPageAt >> 8;
    if (this.y.written < this.area.length) this.area[this.y.written] = bad ? 0 : byte;
    this.y.written++;
    return this.y.written < this.area.length;
  }

  private finishYmodem(word: string): void {
    if (this.y.timer) clearTimeout(this.y.timer);
    this.events.push('ymodem: ' + word);
    this.state = 'wait';
    this.later(this.o.answerMs ?? 500, () => {
      if (this.away) return;
      this.out(`\r\n${word}\r\n`);
      this.state = 'repl';
      this.prompt();
      this.pump();
    });
  }

  async stop(): Promise<void> {
    this.stopChatter();
    for (const t of this.timers) clearTimeout(t);
    if (this.y.timer) clearTimeout(this.y.timer);
    if (this.relay.exitCode !== null) return;
    const gone = new Promise<void>((resolve) => this.relay.once('exit', () => resolve()));
    this.send('Q', Buffer.alloc(0));
    this.relay.stdin.end();
    const t = setTimeout(() => this.relay.kill(), 2000);
    await gone;
    clearTimeout(t);
  }
}

function pretty(v: unknown): string {
  if (typeof v === 'string') return `\x1b[93m'${v}'${NORMAL}`;
  if (typeof v === 'number' || typeof v === 'boolean') return `\x1b[95m${String(v)}${NORMAL}`;
  if (v === undefined) return `\x1b[90mundefined${NORMAL}`;
  if (v === null) return `\x1b[90mnull${NORMAL}`;
  if (typeof v === 'function') return `\x1b[96m[Function]${NORMAL}`;
  return `\x1b[96m[Object]${NORMAL}`;
}

/** CRC-16/XMODEM (polynomial 0x1021, initial 0, not reflected): what the firmware's receiver checks. */
function crc16(b: Uint8Array): number {
  let crc = 0;
  for (const x of b) {
    crc ^= x << 8;
    for (let k = 0; k < 8; k++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}
