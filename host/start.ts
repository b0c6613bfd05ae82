// `npm start`: the whole product on one machine, no board needed.
//  1. a local Device Data Service on 127.0.0.1 (or --url for another one),
//  2. an account, an API key and one device of each format, created through
//     the agent's own provisioning path (key generation, device creation);
//     the account's password never on the command line (host/account.ts),
//  3. the agent (the same core code as on the board) on simulated sensors,
//     with the board's console commands on stdin: cold code, loaded from a
//     device build of the program through the board's own loader,
//  4. one line per delivered write, and one per change of a pin the board
//     drives: the relay on GP16 follows the stored value of the Value device
//     sim_control (set it from the dashboard's form). The dashboard's
//     "Simulated board" panel lists the driven pins.
//  5. One Ctrl-C stops the agent and the service, says so, and exits 0. In a
//     terminal the console's line editor puts it in raw mode: Ctrl-C is then
//     a keystroke, not a signal, and reaches the line editor alone (with no
//     listener there, it only paused the console). Outside raw mode (input not
//     a terminal, or a Ctrl-C during the start-up) it is a SIGINT to the whole
//     process group.
//     A stop of either kind is recorded as the boot's end, so the next start's
//     health report names it instead of calling it a crash.
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import type { Interface } from 'node:readline';
import { parseArgs } from 'node:util';
import { provisionDevice } from '../src/agent/provision';
import { createColdLoader } from '../src/cold';
import { exposeCommands } from '../src/console/stubs';
import { sharedTable } from '../src/shared';
import { createConfigStore } from '../src/config/store';
import type { ConfigCodec } from '../src/config/store';
import type { AgentConfig, OutputConfig } from '../src/config/types';
import { validateConfig } from '../src/config/validate';
import type { DataFormat } from '../src/model';
import { createHttpClient } from '../src/net/http';
import { boot } from '../src/runtime';
import type { Runtime } from '../src/runtime';
import { createServiceOps } from '../src/service/reads';
import { buildBundle } from '../scripts/build/build';
import { createHostPlatform } from './platform';
import type { HostPlatform } from './platform';
import { createFileProgram } from './ports/program';
import { startService } from './service/server';
import type { RunningService } from './service/server';
import type { BoardPanel } from './service/dashboard';
import { boardPanel, outputLine } from './sim-board';
import { simFault } from './sim-faults';
import { documentOf } from '../src/console/cmd-service';
import { PASSWORD_OPTION_REFUSED, simAccount, urlPassword } from './account';

const USAGE = `usage: npm start [-- options]
  --port N          local service port (default 8080; a free one if taken)
  --data DIR        data directory (default .data)
  --interval-ms N   sampling period of the simulated sensors (default 5000)
  --url URL         use this Device Data Service instead of a local one
  --email E         account for --url (key generation, device creation); its
                    password from PDA_PASSWORD, or asked in a terminal (never
                    an option: a command line is seen by other users)
  --fresh           forget the simulated board's config and outbox first
  --help`;

const SSID = 'sim-net';
const DEVICES: { name: string; format: DataFormat; sensors: string }[] = [
  { name: 'sim_value', format: 'Value', sensors: 'temp' },
  { name: 'sim_json', format: 'JSON', sensors: 'temp,air,leaf,light,door' },
  { name: 'sim_xml', format: 'XML', sensors: 'ldr,door' },
];

// The control device and the output it drives. The simulated sensors use
// pins 30 (internal temperature), 26 (an LDR) and 15 (door), and I2C bus 0
// on GP4/GP5 (air: a BME280, leaf: an SHT4x, light: a BH1750); GP16 is a free
// header GPIO (22 is the boot-skip pin, 23-25 and 29 belong to the radio).
const CONTROL = 'sim_control';
/** The simulated board's configuration device (remote.id): the dashboard's configuration card edits its document. */
const REMOTE = 'sim_config';
const RELAY = { name: 'relay', pin: 16, pollMs: 5000 };

/** A stop is under way: what the start-up was doing when it came may fail now, and says nothing. */
let stopping = false;

function clock(): string {
  return new Date().toISOString().slice(11, 19);
}

async function startLocal(port: number, dataDir: string, board: () => BoardPanel | undefined): Promise<RunningService> {
  try {
    return await startService({ port, dataDir, log: () => undefined, board });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw e;
    console.log(`port ${port} is taken; using a free one`);
    return startService({ port: 0, dataDir, log: () => undefined, board });
  }
}

/** The service's operations at `url`, through the agent's own HTTP client on Node's sockets. */
async function hostOps(url: string): Promise<ReturnType<typeof createServiceOps>> {
  const http = createHttpClient({ sockets: (await import('./ports/sockets')).createNodeSockets(), timers: { setTimeout, clearTimeout: (id) => clearTimeout(id as NodeJS.Timeout) } });
  return createServiceOps({ http, baseUrl: url });
}

async function provisionAll(url: string, email: string, password: string): Promise<Record<string, unknown>[] | string> {
  const made = await hostOps(url);
  if (!made.ok) return made.error;
  const out: Record<string, unknown>[] = [];
  let apiKey: string | undefined;
  for (const d of DEVICES) {
    const r = await provisionDevice({ client: made.client, email, password, deviceName: d.name, format: d.format, apiKey });
    if (!r.ok) return r.error;
    apiKey = r.apiKey;
    out.push({ name: d.name, id: r.deviceId, pin: r.devicePin, format: d.format, sensors: d.sensors, apiKey });
    console.log(`provisioned ${d.format} device ${d.name}: DeviceID ${r.deviceId}`);
  }
  // The board's own health goes to a JSON device of its own (health.id / health.pin).
  const h = await provisionDevice({ client: made.client, email, password, deviceName: 'sim_health', format: 'JSON', apiKey });
  if (!h.ok) return h.error;
  out.push({ name: 'health', id: h.deviceId, pin: h.devicePin });
  console.log(`provisioned JSON device sim_health for the board's health reports: DeviceID ${h.deviceId}`);
  // The board's configuration device (remote.id / remote.pin): its document is written once the config is saved.
  const r = await provisionDevice({ client: made.client, email, password, deviceName: REMOTE, format: 'JSON', apiKey });
  if (!r.ok) return r.error;
  out.push({ name: 'remote', id: r.deviceId, pin: r.devicePin });
  console.log(`provisioned JSON device ${REMOTE} for the board's configuration (edit it on the dashboard): DeviceID ${r.deviceId}`);
  // The relay's source: a Value device holding 0 until someone sets it (the dashboard's form).
  const c = await provisionDevice({ client: made.client, email, password, deviceName: CONTROL, format: 'Value', apiKey });
  if (!c.ok) return c.error;
  const w = await made.client.writeValue({ apiKey: c.apiKey, deviceId: c.deviceId, devicePin: c.devicePin }, '0');
  if (w.kind !== 'ok') return `write 0 to ${CONTROL}: ${w.reason}`;
  out.push({ name: 'control', id: c.deviceId, pin: c.devicePin });
  console.log(`provisioned Value device ${CONTROL} (stored value 0) for the ${RELAY.name} on GP${RELAY.pin}: DeviceID ${c.deviceId}`);
  return out;
}

/**
 * The configuration device's first document: the board's saved
 * configuration without what a board never takes from the service (wifi.*,
 * service.*, remote.*), as provision(..., 'remote', 'JSON') writes it on a
 * board. '' once written, else why not.
 */
async function firstDocument(url: string, cfg: AgentConfig, files: { read(path: string): Uint8Array | undefined }): Promise<string> {
  const remote = cfg.remote;
  const bytes = files.read('config.json');
  if (!remote || !remote.id || !bytes) return 'no configuration device or no config.json';
  const made = await hostOps(url);
  if (!made.ok) return made.error;
  const w = await made.client.writeJson({ apiKey: cfg.service.apiKey, deviceId: remote.id, devicePin: remote.pin }, documentOf(new TextDecoder().decode(bytes)));
  return w.kind === 'ok' ? '' : w.reason;
}

function simConfig(url: string, devices: Record<string, unknown>[], intervalMs: number): AgentConfig | string {
  const apiKey = devices[0]?.apiKey as string;
  const health = devices.find((d) => d.name === 'health');
  const control = devices.find((d) => d.name === 'control');
  const remote = devices.find((d) => d.name === 'remote');
  const raw = {
    board: 'pico-w',
    wifi: { ssid: SSID, password: 'sim-password' },
    service: { url, apiKey },
    sensors: [
      { name: 'temp', kind: 'temperature', intervalMs, filters: 'median:3' },
      { name: 'ldr', kind: 'analog', pin: 26, intervalMs, unit: 'lux', scale: 30000, filters: 'ewma:0.5' },
      { name: 'door', kind: 'digital', pin: 15, intervalMs, pull: 'up' },
      // The simulated board's I2C chips (host/ports/i2c-chips.ts), on bus 0's default pins and addresses.
      { name: 'air', kind: 'bme280', bus: 0, intervalMs },
      { name: 'leaf', kind: 'sht4x', bus: 0, intervalMs },
      { name: 'light', kind: 'bh1750', bus: 0, intervalMs },
    ],
    devices: devices.filter((d) => d.name !== 'health' && d.name !== 'control' && d.name !== 'remote').map((d) => ({ name: d.name, deviceId: d.id, devicePin: d.pin, format: d.format, sensors: d.sensors })),
    // Every minute here, so the dashboard's health table fills while you watch (a board's default is 15 min).
    health: health ? { id: health.id, pin: health.pin, intervalMs: 60000 } : undefined,
    // Its configuration device, read every minute (the shortest a board takes; the default is 15 min).
    remote: remote ? { id: remote.id, pin: remote.pin, pollMs: 60000 } : undefined,
    // A relay that follows sim_control's stored value, read every 5 s; off until the first good read.
    outputs: control
      ? [{ name: RELAY.name, kind: 'digital', pin: RELAY.pin, sourceId: control.id, sourcePin: control.pin, field: '', pollMs: RELAY.pollMs, safe: 0 }]
      : [],
  };
  const v = validateConfig(raw);
  return v.ok ? v.config : v.errors.join('\n');
}

async function main(): Promise<void> {
  const { values: a } = parseArgs({
    options: {
      port: { type: 'string', default: '8080' },
      data: { type: 'string', default: '.data' },
      'interval-ms': { type: 'string', default: '5000' },
      url: { type: 'string' },
      email: { type: 'string' },
      password: { type: 'string' },
      fresh: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
  });
  if (a.help) return void console.log(USAGE);
  if (a.password !== undefined) throw new Error(PASSWORD_OPTION_REFUSED);
  const intervalMs = Number(a['interval-ms']);
  if (!Number.isInteger(intervalMs) || intervalMs < 1000) throw new Error('--interval-ms: a whole number of at least 1000');
  const simDir = join(a.data, 'sim');
  if (a.fresh) rmSync(simDir, { recursive: true, force: true });

  // What the board drives, for the dashboard's panel: named after the running config's outputs.
  // Both set below; the service (started first) asks for the panel through them.
  const sim: { hp?: HostPlatform } = {};
  let rt: Runtime | undefined;
  const outputsNow = (): OutputConfig[] => {
    try {
      return rt ? (rt.config().outputs ?? []) : [];
    } catch {
      return [];
    }
  };
  const panel = (): BoardPanel | undefined => {
    const hp = sim.hp;
    if (!hp) return undefined;
    // The devices it writes its readings to: the dashboard offers no Set form on them.
    let writes: number[] = [];
    try {
      writes = rt ? rt.config().devices.map((d) => d.deviceId) : [];
    } catch {
      writes = [];
    }
    return { ...boardPanel(hp.pins, outputsNow(), `pico-w ${hp.system.boardUid()}, simulated by npm start`), writes };
  };

  let svc: RunningService | undefined;
  // The console's line editor, once it reads lines: closed first, so the terminal leaves raw mode.
  const con: { rl?: Interface } = {};
  const stop = async (how: string): Promise<void> => {
    if (stopping) return;
    stopping = true;
    const what = svc ? 'the agent and the local service' : 'the agent';
    console.log(`${how}: stopping ${what}`);
    con.rl?.close();
    if (rt) {
      // An end someone asked for, as reboot() is: the next boot's health report names it.
      rt.state.restartAsked('stop: ' + how + ' in npm start');
      rt.stop();
    }
    if (svc) await svc.close();
    console.log(svc ? 'agent and local service stopped' : 'agent stopped');
    process.exit(0);
  };
  // From the start: a Ctrl-C while the program is built or the devices are made stops too.
  process.on('SIGINT', () => void stop('Ctrl-C (SIGINT)'));
  process.on('SIGTERM', () => void stop('SIGTERM'));

  let url = a.url;
  // The account the devices are made under; its password only when they are made.
  let email: string;
  let password: () => Promise<string>;
  if (!url) {
    const account = simAccount(a.data, join(a.data, 'service'));
    if (account.made) console.log(`simulated account ${account.email}: its password, random, is in ${account.file} (yours alone to read)`);
    email = a.email ?? account.email;
    password = () => Promise.resolve(account.password);
    svc = await startLocal(Number(a.port), join(a.data, 'service'), panel);
    url = svc.url;
    console.log(`Device Data Service (local) at ${url}/api/   dashboard: ${url}/`);
  } else {
    if (!a.email) throw new Error('--url needs --email: the agent generates its API key and creates its devices there');
    const to = a.email;
    let asked: Promise<string> | undefined;
    password = () => (asked ??= urlPassword(to, process.env, process.stdin.isTTY ? { input: process.stdin, output: process.stdout } : undefined));
    email = to;
    // No board yet: asked now, before the build, not halfway through the start.
    if (!existsSync(join(simDir, 'files', 'config.json'))) await password();
  }

  // The console's commands come from the program's cold section, as on the
  // board: build it, then read it back through the loader.
  const programFile = join(a.data, 'program.js');
  const built = await buildBundle({ outfile: programFile });
  const hp = createHostPlatform({
    dataDir: simDir,
    ssid: SSID,
    print: (l) => console.log(`${clock()}  ${l}`),
    program: createFileProgram(programFile),
    onOutput: (out, change, from) => {
      // Named after the config: looked up once the boot that opens the pin has returned.
      const at = clock();
      const now = { ...out };
      setImmediate(() => console.log(`${at}  ${outputLine(now, change, from, outputsNow().find((o) => o.pin === now.pin)?.name ?? '')}`));
    },
  });
  sim.hp = hp;
  const cold = createColdLoader({ program: hp.program, build: built.build, shared: sharedTable });
  // The config checker is cold code too, loaded as the board loads it.
  const codec = (): ConfigCodec | string => {
    const m = cold.load<ConfigCodec>('check');
    return m.ok ? m.value : m.error;
  };
  const store = createConfigStore({ codec, checker: built.checker, files: hp.files });
  const saved = existsSync(join(simDir, 'files', 'config.json')) ? store.load() : undefined;
  if (saved && !saved.errors.length && saved.source === 'file') {
    // A restart resumes: same key and devices, the outbox as it was left.
    if (saved.config.service.url !== url) {
      saved.config.service.url = url;
      store.save(saved.config);
    }
    console.log('resuming the simulated board from ' + join(simDir, 'files'));
    if (!(saved.config.outputs ?? []).length) {
      console.log(`(its config drives no outputs: start with --fresh for the ${RELAY.name} on GP${RELAY.pin} that follows ${CONTROL})`);
    }
  } else {
    const devices = await provisionAll(url, email, await password());
    if (typeof devices === 'string') throw new Error('provisioning failed: ' + devices);
    const cfg = simConfig(url, devices, intervalMs);
    if (typeof cfg === 'string') throw new Error('simulator config invalid: ' + cfg);
    const e = store.save(cfg);
    if (e) throw new Error(e);
    const doc = await firstDocument(url, cfg, hp.files);
    if (doc) console.log(`${REMOTE}: its first document was not written (${doc}); the board reads it again every minute`);
  }

  const start = (): void => {
    const booted = boot(hp, {
      codec,
      checker: built.checker,
      // The health report and the outputs (the relay on GP16) are the board's cold modules too.
      load: cold.load,
      onDelivered: (d) => {
        const body = d.count > 1 ? `${d.count} readings` : d.body || '';
        console.log(`${clock()}  delivered  ${d.device.padEnd(9)} seq ${String(d.lastSeq).padStart(4)}  HTTP ${d.status}  ${body.slice(0, 90)}`);
      },
    });
    rt = booted;
    exposeCommands(booted, cold);
    // npm start's own: a failing simulated I2C part, to watch the agent meet it.
    hp.console.expose('simFault', (bus, addr, fault, on) => console.log(simFault(hp.i2c, bus, addr, fault, on)));
  };
  hp.onReboot = () => {
    rt?.stop();
    console.log('--- simulated reboot ---');
    start();
  };
  start();
  console.log("console: type help() for the commands, status() for the state, simFault(0, 0x44, 'nack') to unplug the simulated SHT4x (simFault(0, 0x44, 'nack', false) plugs it in again); Ctrl-C stops");

  // In a terminal the line editor echoes what is typed (it owns the terminal's input in raw mode).
  const rl = createInterface({ input: process.stdin, output: process.stdin.isTTY ? process.stdout : undefined, terminal: process.stdin.isTTY });
  con.rl = rl;
  // In raw mode the terminal's Ctrl-C arrives here, not as a signal.
  rl.on('SIGINT', () => void stop('Ctrl-C'));
  rl.on('line', (line) => {
    const src = line.trim();
    if (!src) return;
    try {
      const commands = hp.commands;
      const names = [...commands.keys()];
      // The board's REPL evaluates the line as JavaScript with the commands as globals; so does this.
      // eslint-disable-next-line @typescript-eslint/no-implied-eval
      const result: unknown = new Function(...names, `"use strict"; return (${src});`)(...names.map((n) => commands.get(n)));
      if (result !== undefined) console.log(result);
    } catch (e) {
      console.log(String(e));
    }
  });

  rl.on('close', () => {
    // stdin closed (piped input ended): keep running until a signal, like the board.
  });
}

main().catch((e: unknown) => {
  if (stopping) return;
  console.error(`npm start: ${e instanceof Error ? e.message : String(e)}`);
  process.exit(1);
});
