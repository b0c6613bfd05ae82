// Runs on the device's engine: what one HTTP write costs on the heap, at
// three levels over the same stand-in for the Pico W's TCP driver (the model
// in test/fakes/kaluma/net.ts) and the same server, which reads the request
// and answers as the service answers a write, then sends its FIN:
//   driver  - the stand-in alone, driven by a few lines of its own
//             (socket, connect, one write of the finished request, close);
//             this is the stand-in's own cost, not the agent's;
//   socket  - Kaluma's own net.Socket (net.js, stream.js, events.js) over the
//             stand-in, writing through the driver as the socket port does:
//             what the board's runtime costs whoever connects;
//   agent   - the device bundle's HTTP client (src/net/http.ts) over its
//             timers and socket ports (src/ports/kaluma).
// Two writes: a value (GET) and a one-record JSON batch (POST).
//
// Per exchange and level, after a collection (the floor before it):
//   alloc - everything the exchange allocated, garbage included, from the
//           request until all is quiet again (the server's FIN handled, the
//           ports' timers idle): heapUsed is read before and after every
//           event of the stand-in, and the rises between reads are added
//           up. A rise is only whole when no collection ran inside it; on
//           this engine one runs when heapUsed reaches a multiple of STEP
//           (min(heap / 32, 8 KB): 5,760 B on the Pico W's heap, 8,192 B on
//           the 1 MB one), so after each read a kept ballast puts heapUsed
//           just past such a multiple, and a collection (or a bigger rise)
//           can only come between a read and the ballast. A round where
//           heapUsed fell between reads anyway is not counted. The reads'
//           own objects are taken off;
//   live  - in a second pass, a collection is forced at every event of the
//           stand-in (before and after it): the highest live set seen minus
//           the floor, i.e. what the exchange holds at once;
//   kept  - the floor after all rounds minus the floor after warm-up.
// The figures are medians over the counted rounds of ROUNDS after WARM
// warm-up rounds.
import { createHttpClient } from '../../../src/net/http';
import type { HttpRequest } from '../../../src/net/types';
import { kalumaSockets } from '../../../src/ports/kaluma/sockets';
import { kalumaTimers } from '../../../src/ports/kaluma/time';
import { createKalumaNet, type PeerConn } from '../../../test/fakes/kaluma/net';
import type { KalumaTimers } from '../../../test/fakes/kaluma/timers';
import { floor, used } from './heap-probe';

declare function print(s: string): void;
declare function setTimeout(cb: () => void, ms: number): number;
declare const process: { memoryUsage(): { heapTotal: number; heapUsed: number; heapPeak: number } };
declare const global: Record<string, unknown>;

const WARM = 5;
const ROUNDS = 25;
const QUIET_MS = 40;

const HOST = '10.0.0.5';
const PORT = 8080;
const KEY = 'k3y0123456789abcdef0123456789abcd';
const VALUE_PATH = '/api/updatedevicevalue/' + KEY + '/4/4444/21.50';
const JSON_PATH = '/api/updatedevicejson/' + KEY + '/4/4444';
const JSON_BODY = '{"seq":1000,"uptime_ms":60000,"temp":21.5,"soil":43.75,"door":1,"unit_temp":"C"}';
const HEAD = ' HTTP/1.0\r\nHost: ' + HOST + ':' + PORT + '\r\n';
/** The requests exactly as the client sends them (the server checks every byte). */
const VALUE_REQ = 'GET ' + VALUE_PATH + HEAD + '\r\n';
const JSON_REQ = 'POST ' + JSON_PATH + HEAD + 'Content-Type: application/json\r\nContent-Length: ' + JSON_BODY.length + '\r\n\r\n' + JSON_BODY;
const REPLY_TEXT = 'HTTP/1.1 200 OK\r\nDate: Sun, 22 Nov 2026 08:05:00 GMT\r\nContent-Length: 13\r\n\r\nValue updated';
const REPLY = new Uint8Array(REPLY_TEXT.length);
for (let i = 0; i < REPLY_TEXT.length; i++) REPLY[i] = REPLY_TEXT.charCodeAt(i);
const VALUE: HttpRequest = { method: 'GET', host: HOST, port: PORT, path: VALUE_PATH };
const JSON_WRITE: HttpRequest = { method: 'POST', host: HOST, port: PORT, path: JSON_PATH, body: JSON_BODY, contentType: 'application/json' };


const STEP = Math.min(8192, Math.floor((process.memoryUsage().heapTotal + 8) / 32));
/** Kept while an exchange is measured: they put heapUsed just past a multiple of STEP. */
const ballast: Uint8Array[] = [];
/** Room for the next rise: heapUsed just past a multiple of STEP, unless it is already close past one. */
function makeRoom(): void {
  const u = used();
  const next = (Math.floor(u / STEP) + 1) * STEP;
  if (next - u < STEP - 512) ballast.push(new Uint8Array(next - u + 64));
}

/** What one used() leaves on the heap (its result object), measured with room to spare. */
let readCost = 0;
{
  floor();
  makeRoom();
  const u0 = used();
  for (let i = 0; i < 40; i++) used();
  readCost = (used() - u0) / 41;
  ballast.length = 0;
}

// The request the server expects now, and whether every one matched.
let expected = VALUE_REQ;
let mismatches = 0;
/** In the live pass, a collection before and after every event of the stand-in. */
let probing = false;
let liveHigh = 0;
const probe = (): void => {
  const f = floor();
  if (f > liveHigh) liveHigh = f;
};
/** In the alloc pass, heapUsed read at every event of the stand-in: the rises added up. */
let rises = 0;
let reads = 0;
let last = 0;
let dropped = false;
/** The biggest rise between two reads in this level's rounds. */
let biggest = 0;
const read = (): void => {
  const u = used();
  if (u < last) dropped = true;
  if (u - last > biggest) biggest = u - last;
  rises += u - last;
  reads++;
  makeRoom();
  last = used();
};
type Conn = PeerConn & { at?: number };
const driverTimers = {
  after: (ms: number, cb: () => void) =>
    void setTimeout(() => {
      if (probing) probe();
      else read();
      cb();
      if (probing) probe();
      else read();
    }, ms),
} as unknown as KalumaTimers;
const net = createKalumaNet({
  timers: driverTimers,
  latencyMs: 1,
  peer: {
    connect: (c) => c.accept(),
    // Compares byte by byte as the request comes, keeping nothing but a position.
    data(c: Conn, bytes) {
      let at = c.at || 0;
      for (let i = 0; i < bytes.length; i++, at++) if (bytes[i] !== expected.charCodeAt(at)) mismatches++;
      c.at = at;
      if (at < expected.length) return;
      c.send(REPLY);
      c.fin();
    },
  },
});
global['__netdev'] = net.netdev;
const netdev = net.netdev as unknown as {
  socket(d: string, p: string): number;
  get(fd: number): Record<string, unknown>;
  connect(fd: number, host: string, port: number): void;
  write(fd: number, data: string): void;
};

type Level = 'driver' | 'socket' | 'agent';
const noop = (): void => undefined;

/** The stand-in alone: what the socket port asks of the driver, with no socket object. */
function viaDriver(req: string, done: () => void): void {
  const fd = netdev.socket('AF_INET', 'STREAM');
  const o = netdev.get(fd);
  o['connect_cb'] = () => netdev.write(fd, req);
  o['read_cb'] = noop;
  o['close_cb'] = done;
  netdev.connect(fd, HOST, PORT);
}

interface KSocket {
  _fd: number;
  on(ev: string, cb: () => void): KSocket;
  connect(o: { host: string; port: number }, cb: () => void): KSocket;
}
/** Kaluma's net.Socket over the stand-in, written to through the driver as the socket port does. */
function viaSocket(req: string, done: () => void): void {
  const S = (global['require'] as (id: string) => { Socket: new () => KSocket })('net').Socket;
  const s = new S();
  s.on('data', noop);
  s.on('close', done);
  s.connect({ host: HOST, port: PORT }, () => netdev.write(s._fd, req));
}

const http = createHttpClient({ sockets: kalumaSockets, timers: kalumaTimers });
function viaAgent(req: HttpRequest, done: () => void): void {
  void http.request(req).then((r) => {
    if (r.kind !== 'response' || r.status !== 200 || r.body !== 'Value updated') mismatches++;
    done();
  });
}

export interface Figures {
  /** Median; -1 when no round could be counted. */
  alloc: number;
  /**
   * The biggest rise between two reads. A rise that came near STEP may have
   * had a collection inside it that the figure cannot see.
   */
  biggest: number;
  /** Rounds counted for alloc. */
  counted: number;
  live: number;
  kept: number;
}
const median = (a: number[]): number => (a.length ? (a.slice().sort((x, y) => x - y)[a.length >> 1] as number) : -1);

function measure(level: Level, json: boolean, then: (f: Figures) => void): void {
  const req = json ? JSON_REQ : VALUE_REQ;
  // Filled in place, so that the figures' own arrays do not grow while the floor is watched.
  const allocs: number[] = [];
  const lives: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    allocs.push(0);
    lives.push(0);
  }
  let nAllocs = 0;
  let nLives = 0;
  let round = 0;
  let f0 = 0;
  let warmFloor = 0;
  expected = req;
  const one = (done: () => void): void => {
    if (level === 'driver') viaDriver(req, done);
    else if (level === 'socket') viaSocket(req, done);
    else viaAgent(json ? JSON_WRITE : VALUE, done);
  };
  const quiet = (): void => {
    const wasProbing = probing;
    probing = false;
    if (!wasProbing) read();
    ballast.length = 0;
    if (round >= WARM) {
      if (!wasProbing && !dropped) allocs[nAllocs++] = Math.round(rises - reads * readCost);
      if (wasProbing) lives[nLives++] = liveHigh - f0;
    }
    round++;
    if (round === WARM) warmFloor = floor();
    if (round < WARM + 2 * ROUNDS) return void setTimeout(start, 1);
    then({ alloc: median(allocs.slice(0, nAllocs)), biggest, counted: nAllocs, live: median(lives.slice(0, nLives)), kept: floor() - warmFloor });
  };
  // Even rounds measure what is allocated, odd ones the live set.
  const start = (): void => {
    // Warm-up rounds require modules and fill caches: not their rises.
    if (round <= WARM) biggest = 0;
    f0 = floor();
    liveHigh = f0;
    probing = round % 2 === 1;
    // The stand-in's record of driver writes would grow by one per exchange.
    net.driverWrites.length = 0;
    rises = reads = 0;
    dropped = false;
    if (!probing) {
      makeRoom();
      last = used();
    }
    one(() => void setTimeout(quiet, QUIET_MS));
  };
  start();
}

const results: Record<string, Figures> = {};
const plan: [Level, boolean][] = [
  ['driver', false], ['socket', false], ['agent', false],
  ['driver', true], ['socket', true], ['agent', true],
];
// A 20-record batch, as a drained backlog sends it: two pieces for the driver.
const records: string[] = [];
for (let i = 0; i < 20; i++) records.push('{"seq":' + (1000 + i) + ',"uptime_ms":' + 60000 * i + ',"temp":21.5,"soil":43.75,"door":1,"unit_temp":"C"}');
const BATCH = '[' + records.join(',') + ']';
const BATCH_REQ = 'POST ' + JSON_PATH + HEAD + 'Content-Type: application/json\r\nContent-Length: ' + BATCH.length + '\r\n\r\n' + BATCH;
records.length = 0;

/**
 * The highest heapUsed while the socket port writes `req` to the driver,
 * above heapUsed before it: a kept ballast first makes heapUsed a new
 * heapPeak, so that heapPeak afterwards is the write's own peak (what
 * apply() and the pieces' strings take for a moment, which no collection
 * ever sees).
 */
function writePeak(req: string, then: (rise: number) => void): void {
  // As the HTTP client hands it over: an ASCII request is its own string (Socket.write).
  const bytes = req;
  expected = req;
  let rise = -1;
  const sock = kalumaSockets.connect(HOST, PORT, {
    onConnect: () => {
      floor();
      const m = process.memoryUsage();
      ballast.push(new Uint8Array(m.heapPeak - m.heapUsed + 64));
      const u0 = used();
      sock.write(bytes);
      rise = process.memoryUsage().heapPeak - u0;
      ballast.length = 0;
      sock.release();
    },
    onData: noop,
    onClose: () => void setTimeout(() => then(rise), QUIET_MS),
  });
}

const peaks: Record<string, number> = {};
let step = 0;
function next(): void {
  const p = plan[step++];
  if (!p) {
    writePeak(VALUE_REQ, (value) =>
      writePeak(JSON_REQ, (json) =>
        writePeak(BATCH_REQ, (batch) => {
          peaks['value'] = value;
          peaks['json'] = json;
          peaks['batch'] = batch;
          const m = process.memoryUsage();
          print('@RESULT ' + JSON.stringify({ results, peaks, mismatches, violations: net.violations, heapTotal: m.heapTotal, heapPeak: m.heapPeak, step: STEP, readCost, valueBytes: VALUE_REQ.length, jsonBytes: JSON_REQ.length, batchBytes: BATCH_REQ.length }) + '\n');
        }),
      ),
    );
    return;
  }
  measure(p[0], p[1], (f) => {
    results[p[0] + (p[1] ? ' json' : ' value')] = f;
    setTimeout(next, 1);
  });
}
print('@START used=' + used() + ' peak=' + process.memoryUsage().heapPeak + '\n');
next();
