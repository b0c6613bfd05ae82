// Typed declarations for the parts of Kaluma 1.2.1 the ports use. Only files
// in src/ports/kaluma may rely on them.

declare function millis(): number;
declare function delay(ms: number): void;
declare function pinMode(pin: number, mode: number): void;
declare function digitalRead(pin: number): number;
declare function digitalWrite(pin: number, value: number): void;
declare function analogRead(pin: number): number;
/** Sets up and starts PWM on the pin (duty clamped to 0..1). */
declare function analogWrite(pin: number, duty: number, freqHz: number): void;
declare function noTone(pin: number): void;
declare function seed(n: number): void;
declare function setTimeout(cb: () => void, ms: number): number;
declare function clearTimeout(id: number): void;
declare function setInterval(cb: () => void, ms: number): number;
declare function clearInterval(id: number): void;

declare const INPUT: number;
declare const OUTPUT: number;
declare const INPUT_PULLUP: number;
declare const INPUT_PULLDOWN: number;

declare const console: {
  log(...args: unknown[]): void;
  error(...args: unknown[]): void;
};

declare const board: { name: string; uid: string };

declare const storage: {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
};

declare const process: {
  memoryUsage(): { heapTotal: number; heapUsed: number; heapPeak: number };
};

// Kaluma's built-in modules, as types only: the ports require each at first
// use through globalThis.require, since a module costs heap for good once
// required and an ES import would be required at start-up. (A bare require()
// would get the bundler's shim, and Node's under the tests.) net and wifi are
// never required: sockets.ts and wifi.ts drive the radio's driver objects.

declare module 'fs' {
  interface Stat {
    size: number;
    isFile(): boolean;
    isDirectory(): boolean;
  }
  export function open(path: string, flags?: string): number;
  export function read(fd: number, buf: Uint8Array, offset: number, length: number, position: number): number;
  export function write(fd: number, buf: Uint8Array, offset: number, length: number, position: number): number;
  export function close(fd: number): void;
  export function readFile(path: string): Uint8Array;
  export function writeFile(path: string, data: Uint8Array): void;
  export function unlink(path: string): void;
  export function rename(from: string, to: string): void;
  export function exists(path: string): boolean;
  export function stat(path: string): Stat;
  export function mkdir(path: string): void;
  export function readdir(path: string): string[];
  /** The file system mounted at the path: LittleFS's own object (VFSLittleFS), as fs.js calls it. */
  interface Vfs {
    path: string;
    /** flags: fs.js's VFS_FLAG_* bits (read 1, write 2, create 4, append 8, excl 16, trunc 32). */
    open(path: string, flags: number, mode: number): number;
    read(id: number, buf: Uint8Array, offset: number, length: number, position: number): number;
    write(id: number, buf: Uint8Array, offset: number, length: number, position: number): number;
    close(id: number): void;
    /** Paths as fs.js passes them: whole, not relative to the mount. */
    rename(from: string, to: string): void;
  }
  /** fs.js's own mount lookup (exported by Kaluma 1.2.1); throws ENOENT when nothing is mounted there. */
  export const __lookup: ((path: string) => Vfs) | undefined;
}

declare module 'wdt' {
  export class WDT {
    constructor(timeoutMs: number);
    feed(): void;
  }
}

declare module 'rtc' {
  export function setTime(ms: number): void;
  export function getTime(): number;
}

declare module 'pico_cyw43' {
  export class PicoCYW43 {
    putGpio(pin: number, value: boolean): void;
    getGpio(pin: number): boolean;
  }
}
