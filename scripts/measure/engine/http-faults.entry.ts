// Runs on the device's engine: the device bundle's timers and socket ports
// and its HTTP client, over a stand-in for the Pico W's TCP driver (the model
// in test/fakes/kaluma/net.ts, which records what would hurt the board),
// through EXCHANGES exchanges against a server that answers, never answers,
// resets mid-reply, stalls, answers in bytes that are not UTF-8, refuses the
// connection and sends its FIN late, or after a reply the client refuses and
// closes first on (a late FIN the port's placeholders must take). Prints heap
// figures per window of 100.
import { createHttpClient } from '../../../src/net/http';
import type { HttpResult } from '../../../src/net/types';
import { kalumaSockets, placeholders } from '../../../src/ports/kaluma/sockets';
import { kalumaTimers } from '../../../src/ports/kaluma/time';
import { createKalumaNet, SLOTS } from '../../../test/fakes/kaluma/net';
import type { PeerConn } from '../../../test/fakes/kaluma/net';
import type { KalumaTimers } from '../../../test/fakes/kaluma/timers';

declare function print(s: string): void;
declare function setTimeout(cb: () => void, ms: number): number;
declare const process: { memoryUsage(): { heapTotal: number; heapUsed: number; heapPeak: number } };
declare const global: Record<string, unknown>;

const EXCHANGES = 1000;
const WINDOW = 100;
const mem = (): { heapTotal: number; heapUsed: number; heapPeak: number } => process.memoryUsage();
const atStart = mem();

const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 13\r\nDate: Sun, 22 Nov 2026 08:05:00 GMT\r\n\r\nValue updated';
const FAULTS = ['ok', 'silent', 'reset', 'stall', 'body-latin1', 'head-latin1', 'refuse', 'late-fin', 'garbage', 'chunked', 'huge-header', 'many-headers'];
// 7 KB of header lines, under the 8 KB reply bound: one long line, or 500 short repeated ones.
// Made once, as bytes, so that the stand-in allocates nothing per exchange for them.
const bytesOf = (s: string): Uint8Array => {
  const b = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) b[i] = s.charCodeAt(i) & 255;
  return b;
};
let pad = '';
for (let i = 0; i < 7000; i++) pad += 'a';
let many = '';
for (let i = 0; i < 500; i++) many += 'Via: 1.1 p' + (i % 10) + '\r\n';
const HUGE = bytesOf('HTTP/1.1 200 OK\r\nX-Pad: ' + pad + '\r\nContent-Length: 2\r\n\r\nok');
const MANY = bytesOf('HTTP/1.1 200 OK\r\n' + many + 'Content-Length: 2\r\n\r\nok');
pad = many = '';
let n = 0;
// Per-connection state lives on the connection, so the stand-in keeps nothing after it.
type Conn = PeerConn & { fault?: string; got?: string };

// The driver's events go through the engine's own timers (the stand-in's cost, not the agent's).
const driverTimers = { after: (ms: number, cb: () => void) => void setTimeout(cb, ms) } as unknown as KalumaTimers;
const net = createKalumaNet({
  timers: driverTimers,
  latencyMs: 1,
  peer: {
    connect(c: Conn) {
      const f = FAULTS[n++ % FAULTS.length] as string;
      c.fault = f;
      if (f === 'refuse') c.refuse();
      else c.accept();
    },
    data(c: Conn, bytes) {
      c.got = (c.got || '') + String.fromCharCode.apply(null, bytes as unknown as number[]);
      if (c.got.indexOf('\r\n\r\n') < 0) return;
      c.got = '';
      const f = c.fault;
      if (f === 'silent') return;
      if (f === 'reset') return (c.send(OK.slice(0, 40)), c.reset());
      if (f === 'stall') return c.send(OK.slice(0, 60));
      if (f === 'body-latin1') return (c.send('HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nd\xe9j\xe0\xf0A'), c.fin());
      if (f === 'head-latin1') return (c.send('HTTP/1.1 200 OK\r\nServer: \xe0\xf0A\r\nContent-Length: 2\r\n\r\nok'), c.fin());
      if (f === 'garbage') return (c.send('\x00\x01SSH-2.0 nothing like HTTP\r\n\r\n'), c.fin());
      if (f === 'huge-header') return (c.send(HUGE), c.fin());
      if (f === 'many-headers') return (c.send(MANY), c.fin());
      if (f === 'chunked') return (c.send('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nValue\r\n8\r\n updated\r\n0\r\n\r\n'), c.fin());
      c.send(OK);
      if (f === 'late-fin') setTimeout(() => c.fin(), 30);
      else c.fin();
    },
  },
});
global['__netdev'] = net.netdev;
const afterStandIn = mem();

const http = createHttpClient({ sockets: kalumaSockets, timers: kalumaTimers, connectTimeoutMs: 150, timeoutMs: 300 });
const outcomes: Record<string, number> = {};
let floor = Infinity;
let done = 0;
let freed = 0;
let writes = 0;
let largestWrite = 0;
const floors: number[] = [];

function next(): void {
  if (done === EXCHANGES) return finish();
  // The board restarts at 12 abandoned connections (ABANDONED_LIMIT); here the
  // stand-in releases their slots instead, so the run can go on in one heap.
  if (net.slotsInUse() >= 12) freed += net.releaseAbandoned();
  // The stand-in's own record of driver writes is counted, not kept.
  writes += net.driverWrites.length;
  for (const w of net.driverWrites) if (w > largestWrite) largestWrite = w;
  net.driverWrites.length = 0;
  void http.request({ method: 'GET', host: '10.0.0.5', port: 8080, path: '/api/updatedevicevalue/k3y/1/2/21.50' }).then(settled);
}

function settled(r: HttpResult): void {
  const k = r.kind === 'response' ? 'response ' + r.status : r.failure;
  outcomes[k] = (outcomes[k] || 0) + 1;
  done++;
  const u = mem().heapUsed;
  if (u < floor) floor = u;
  if (done % WINDOW === 0) {
    floors.push(floor);
    print('@WINDOW ' + done + ' floor=' + floor + ' used=' + u + ' peak=' + mem().heapPeak + '\n');
    floor = Infinity;
  }
  kalumaTimers.setTimeout(next, 0);
}

function finish(): void {
  // Let lingering sockets close before the last figures.
  kalumaTimers.setTimeout(() => {
    const m = mem();
    print('@RESULT ' + JSON.stringify({
      exchanges: done, outcomes, floors, heapTotal: m.heapTotal, heapPeak: m.heapPeak,
      startUsed: atStart.heapUsed, standInObjects: afterStandIn.heapUsed - atStart.heapUsed,
      abandoned: kalumaSockets.abandoned(), slotsReleasedByStandIn: freed, slotsInUse: net.slotsInUse(), slots: SLOTS,
      pcbsFree: net.pcbsFree(), violations: net.violations, placeholderFins: net.placeholderFins, placeholdersHeld: placeholders(),
      dnsLookups: net.dnsLookups, driverWrites: writes, largestDriverWrite: largestWrite,
    }) + '\n');
  }, 4000);
}

// First a 20-record JSON batch, as a drained backlog sends it: the driver must
// get it in several writes, none over what its C stack copy can hold.
const records: string[] = [];
for (let i = 0; i < 20; i++) records.push('{"seq":' + (1000 + i) + ',"uptime_ms":' + (60000 * i) + ',"temp":21.5,"soil":43.75,"door":1,"unit_temp":"C"}');
const batch = '[' + records.join(',') + ']';
print('@START used=' + atStart.heapUsed + ' peak=' + atStart.heapPeak + '\n');
n = 0; // the batch meets an answering server
void http.request({ method: 'POST', host: '10.0.0.5', port: 8080, path: '/api/updatedevicejson/k3y/2/2222', body: batch, contentType: 'application/json' }).then((r) => {
  print('@BATCH ' + batch.length + ' B body -> ' + (r.kind === 'response' ? 'response ' + r.status : r.failure) + ', driver writes ' + JSON.stringify(net.driverWrites) + '\n');
  net.driverWrites.length = 0;
  n = 0;
  next();
});
