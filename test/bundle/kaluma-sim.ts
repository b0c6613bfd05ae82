// A stand-in for Kaluma 1.2.1 around the real device bundle: a fresh vm
// context with only the globals and built-in modules the platform reference
// lists, with Kaluma's quirks (console.log/error only, numeric timer ids,
// clearTimeout(undefined) throws, fs flags where only 'w' creates, connect()
// throwing while Wi-Fi is down) and without what the engine lacks. Any
// exception in a timer or driver callback is recorded: on the board it
// would kill that timer silently.
import vm from 'node:vm';

export interface Request {
  method: string;
  path: string;
  body: string;
}

export interface KalumaSim {
  ctx: vm.Context;
  out: string[];
  errors: string[];
  callbackErrors: string[];
  requests: Request[];
  files: Map<string, Uint8Array>;
  wifi: { ap: boolean; up: boolean };
  run(code: string): unknown;
  advance(ms: number): Promise<void>;
}

const REPLY = 'HTTP/1.1 200 OK\r\nContent-Length: 13\r\nDate: Sun, 22 Nov 2026 08:05:00 GMT\r\n\r\nValue updated';

export function createKalumaSim(o: { files?: Map<string, Uint8Array>; ssid?: string } = {}): KalumaSim {
  let now = 0;
  let nextId = 1;
  const timers = new Map<number, { at: number; cb: () => void }>();
  const files = o.files ?? new Map<string, Uint8Array>();
  const fds = new Map<number, { path: string }>();
  const storage = new Map<string, string>();
  const wifi = { ap: true, up: false };
  const sim = { out: [] as string[], errors: [] as string[], callbackErrors: [] as string[], requests: [] as Request[] };
  const guard = (what: string, f: () => void): void => {
    try {
      f();
    } catch (e) {
      sim.callbackErrors.push(what + ': ' + String(e));
    }
  };
  const str = (a: unknown[]): string => a.map((x) => (typeof x === 'string' ? x : JSON.stringify(x))).join(' ');
  const sysErr = (m: string): Error => Object.assign(new Error(m), { errno: -2 });

  const fs = {
    open(path: string, flags = 'r') {
      if (flags === 'w') files.set(path, new Uint8Array(0));
      else if (flags.startsWith('a')) throw sysErr('append mode is broken in this build');
      else if (!files.has(path)) throw sysErr('ENOENT ' + path);
      const fd = nextId++;
      fds.set(fd, { path });
      return fd;
    },
    read(fd: number, buf: Uint8Array, offset: number, length: number, position: number) {
      const f = files.get(fds.get(fd)!.path)!;
      const part = f.subarray(position, position + length);
      buf.set(part, offset);
      return part.length;
    },
    write(fd: number, buf: Uint8Array, offset: number, length: number, position: number) {
      if (!ArrayBuffer.isView(buf)) throw new TypeError('typed array expected');
      const path = fds.get(fd)!.path;
      const f = files.get(path)!;
      const end = Math.max(f.length, position + length);
      const g = new Uint8Array(end);
      g.set(f);
      g.set(buf.subarray(offset, offset + length), position);
      files.set(path, g);
      return length;
    },
    close(fd: number) {
      fds.delete(fd);
    },
    readFile(path: string) {
      const f = files.get(path);
      if (!f) throw sysErr('ENOENT ' + path);
      return new Uint8Array(f);
    },
    writeFile(path: string, data: Uint8Array) {
      if (!ArrayBuffer.isView(data)) throw new TypeError('typed array expected');
      files.set(path, new Uint8Array(data));
    },
    unlink(path: string) {
      if (!files.delete(path)) throw sysErr('ENOENT ' + path);
    },
    rename(from: string, to: string) {
      const f = files.get(from);
      if (!f) throw sysErr('ENOENT ' + from);
      files.delete(from);
      files.set(to, f);
    },
    exists: (path: string) => files.has(path) || [...files.keys()].some((k) => k.startsWith(path + '/')) || path === '/',
    stat(path: string) {
      const f = files.get(path);
      if (!f) throw sysErr('ENOENT ' + path);
      return { size: f.length, isFile: () => true, isDirectory: () => false };
    },
    mkdir: () => undefined,
    readdir: (dir: string) => [...files.keys()].filter((k) => k.startsWith(dir + '/')).map((k) => k.slice(dir.length + 1)).filter((k) => !k.includes('/')),
  };

  class WiFi {
    connect(info: { ssid?: string }, cb: (err: unknown) => void): void {
      wifi.up = wifi.ap && info.ssid === (o.ssid ?? 'field-net');
      guard('wifi.connect callback', () => cb(0));
    }
    getConnection(cb: (err: unknown, info?: unknown) => void): void {
      guard('getConnection callback', () => cb(0, wifi.up ? { ssid: o.ssid ?? 'field-net' } : undefined));
    }
    scan(cb: (err: unknown, list?: unknown[]) => void): void {
      guard('scan callback', () => cb(0, wifi.ap ? [{ ssid: o.ssid ?? 'field-net', bssid: '', security: 'WPA2_PSK', rssi: -50, channel: 6 }] : []));
    }
    disconnect(cb: (err: unknown) => void): void {
      wifi.up = false;
      guard('disconnect callback', () => cb(0));
    }
    reset(cb: (err: unknown) => void): void {
      wifi.up = false;
      guard('reset callback', () => cb(0));
    }
  }

  class Socket {
    private handlers: Record<string, ((d?: unknown) => void)[]> = {};
    private req = '';
    private open = false;
    on(ev: string, cb: (d?: unknown) => void): this {
      (this.handlers[ev] = this.handlers[ev] ?? []).push(cb);
      return this;
    }
    private emit(ev: string, d?: unknown): void {
      for (const h of this.handlers[ev] ?? []) guard('socket ' + ev + ' handler', () => h(d));
    }
    connect(_o: { host: string; port: number }, cb: () => void): this {
      if (!wifi.up) throw new Error('WiFi is not connected.');
      this.open = true;
      later(1, () => guard('socket connect callback', cb));
      return this;
    }
    write(d: Uint8Array | string): boolean {
      this.req += typeof d === 'string' ? d : Buffer.from(d).toString('latin1');
      const head = this.req.indexOf('\r\n\r\n');
      if (head < 0) return true;
      const len = /\r\ncontent-length: (\d+)/i.exec(this.req.slice(0, head));
      const body = this.req.slice(head + 4);
      if (body.length < (len ? Number(len[1]) : 0)) return true;
      const [method, path] = this.req.split(' ');
      sim.requests.push({ method: method!, path: path!, body: Buffer.from(body, 'latin1').toString('utf8') });
      this.req = '';
      later(5, () => {
        if (!this.open) return;
        this.emit('data', new Uint8Array(Buffer.from(REPLY, 'latin1')));
      });
      return true;
    }
    destroy(): void {
      if (!this.open) return;
      this.open = false;
      this.emit('close');
    }
  }

  function later(ms: number, cb: () => void): number {
    const id = nextId++;
    timers.set(id, { at: now + ms, cb });
    return id;
  }

  const modules: Record<string, unknown> = {
    fs,
    wifi: { WiFi },
    net: { Socket },
    wdt: { WDT: class { feed(): void {} } },
    rtc: { setTime: () => undefined, getTime: () => now },
    pico_cyw43: { PicoCYW43: class { putGpio(_p: number, v: unknown): void { if (typeof v !== 'boolean') throw new TypeError('boolean expected'); } getGpio(): boolean { return false; } } },
    rp2: { randomBigInt: () => BigInt('123456789012345678901234567890') },
  };

  const g: Record<string, unknown> = {
    require(name: string) {
      if (!(name in modules)) throw new Error('Failed to load module: ' + name);
      return modules[name];
    },
    board: { name: 'pico-w', uid: 'E6614103E7452D2F' },
    storage: {
      getItem(k: unknown) {
        if (typeof k !== 'string') throw new TypeError('string expected');
        return storage.has(k) ? storage.get(k) : null;
      },
      setItem(k: unknown, v: unknown) {
        if (typeof k !== 'string' || typeof v !== 'string') throw new TypeError('string expected');
        storage.set(k, v);
      },
      removeItem: (k: string) => void storage.delete(k),
    },
    process: { arch: 'cortex-m0-plus', platform: 'rp2', version: '1.2.1', memoryUsage: () => ({ heapTotal: 184312, heapUsed: 120000, heapPeak: 130000 }) },
    console: { log: (...a: unknown[]) => void sim.out.push(str(a)), error: (...a: unknown[]) => void sim.errors.push(str(a)) },
    print: (...a: unknown[]) => void sim.out.push(str(a)),
    seed: () => undefined,
    millis: () => now,
    delay: () => undefined,
    pinMode: () => undefined,
    digitalRead: () => 1,
    digitalWrite: () => undefined,
    analogRead: (pin: number) => (pin === 30 ? 0.214 : 0.25),
    INPUT: 0,
    OUTPUT: 1,
    INPUT_PULLUP: 2,
    INPUT_PULLDOWN: 3,
    setTimeout(cb: unknown, ms: unknown) {
      if (typeof cb !== 'function' || typeof ms !== 'number') throw new TypeError('setTimeout(cb, ms): ms must be a number');
      return later(ms, () => guard('timer callback', cb as () => void));
    },
    clearTimeout(id: unknown) {
      if (typeof id !== 'number') throw new TypeError('clearTimeout: id must be a number');
      timers.delete(id);
    },
    TextEncoder,
    TextDecoder,
    btoa,
  };
  const ctx = vm.createContext(g);
  // What the engine lacks must be missing here too.
  vm.runInContext(
    `delete Promise.allSettled; delete Promise.any; delete Object.hasOwn; delete Array.prototype.at;
     delete Array.prototype.findLast; delete String.prototype.at; delete globalThis.WeakRef;
     delete globalThis.FinalizationRegistry; delete globalThis.Intl; delete globalThis.structuredClone;
     delete globalThis.queueMicrotask; delete globalThis.setImmediate; delete globalThis.SharedArrayBuffer;`,
    ctx,
  );

  return {
    ctx,
    ...sim,
    files,
    wifi,
    run: (code): unknown => vm.runInContext(code, ctx, { filename: 'agent.js' }) as unknown,
    async advance(ms) {
      const end = now + ms;
      for (;;) {
        await new Promise((r) => setImmediate(r));
        let due: [number, { at: number; cb: () => void }] | undefined;
        for (const e of timers) if (e[1].at <= end && (!due || e[1].at < due[1].at)) due = e;
        if (!due) break;
        timers.delete(due[0]);
        now = Math.max(now, due[1].at);
        due[1].cb();
      }
      now = end;
      await new Promise((r) => setImmediate(r));
    },
  };
}
