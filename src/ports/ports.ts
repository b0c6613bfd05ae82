// The platform boundary: interfaces only (src/ports/kaluma on the board,
// host/ports on a PC, fakes in tests). Units live in names; expected failures
// are values, never rejected promises (a rejection prints "Uncaught" on Kaluma).

/** Opaque timer handle. Kaluma returns numbers; Node returns objects. */
export type TimerId = object | number;

/** Monotonic and wall-clock time. */
export interface Clock {
  /** Milliseconds since boot; never goes back. */
  uptimeMs(): number;
  /** The RTC in ms since the Unix epoch. Starts near 0 at power-up until set. */
  wallMs(): number;
  /** Sets the RTC (ms since the Unix epoch). */
  setWallMs(ms: number): void;
}

/** One-shot timers. Periodic work re-arms itself after each run (no overlap). */
export interface Timers {
  setTimeout(cb: () => void, ms: number): TimerId;
  /** Safe with an unknown or already-fired id. */
  clearTimeout(id: TimerId): void;
}

/** An ADC input. */
export interface AnalogIn {
  /** Raw reading as a fraction of the reference, in [0, 1). */
  readFraction(): number;
  close(): void;
}

export type Pull = 'up' | 'down' | 'none';

export interface DigitalIn {
  /** Electrical level: 0 or 1. */
  read(): 0 | 1;
  close(): void;
}

export interface DigitalOut {
  write(high: boolean): void;
  close(): void;
}

/** A PWM output at a fixed frequency. */
export interface PwmOut {
  /** Duty cycle 0..1 (clamped), at this frequency (the pin's, given again: no state to keep on the board). */
  duty(d: number, freqHz: number): void;
  close(): void;
}

/** Opens pins. Throws (a bug, not an expected failure) on a pin the platform rejects. */
export interface Pins {
  analogIn(pin: number): AnalogIn;
  digitalIn(pin: number, pull: Pull): DigitalIn;
  digitalOut(pin: number): DigitalOut;
  pwmOut(pin: number, freqHz: number): PwmOut;
  /** The board's status LED (on the Wi-Fi chip on W boards). */
  led(): DigitalOut;
}

/**
 * One I2C bus in controller mode. Expected failures are values, never throws:
 * a string saying what went wrong ('no answer' for a NACK or an absent device).
 */
export interface I2cBus {
  /** Writes `bytes` to the 7-bit address: undefined when the device took them all, else why not. */
  write(addr: number, bytes: number[]): string | undefined;
  /** Reads `length` bytes from the 7-bit address: the bytes, or why not. */
  read(addr: number, length: number): Uint8Array | string;
  /**
   * Whether a device holds the bus: SDA or SCL low while the bus is idle
   * ('SDA held low'), else undefined.
   */
  stuck(): string | undefined;
  /**
   * Frees a bus a device holds low (SCL clocked until SDA is released, at
   * most 9 times, then a STOP) and opens it again: what it found and did.
   */
  recover(): string;
  close(): void;
}

/**
 * Opens I2C buses. An open bus is a handle, data its user keeps between
 * uses, and its operations are asked for at each use: the board's I2C code
 * is cold and let go between them (src/sensors/i2c/state.ts).
 */
export interface I2cPorts {
  /** Bus 0 or 1 on its SDA and SCL pins at `hz`: its handle. Throws (a bug) on pins the platform rejects: the config checker checks them first. */
  open(bus: number, sda: number, scl: number, hz: number): object;
  /** The operations on a bus opened by open(). */
  use(handle: object): I2cBus;
}

/**
 * What a sample's steps use of a bus: its transfers (the board's code for
 * them is loaded with each step, the rest of I2cBus only on a failure).
 */
export type I2cTransfers = Pick<I2cBus, 'write' | 'read'>;

export interface WifiCredentials {
  ssid: string;
  password: string;
}

/** The station link. Kaluma's connect and scan block the whole runtime. */
export interface WifiLink {
  /** Associates and waits for an address. Resolves true only when the link is really up. */
  connect(creds: WifiCredentials): Promise<boolean>;
  /** Polls the link; there is no event when the access point drops us. */
  isUp(): Promise<boolean>;
  /** SSIDs currently visible, or undefined when the scan failed. */
  scan(): Promise<string[] | undefined>;
  disconnect(): Promise<void>;
  /** Power-cycles the radio; every open socket is gone afterwards. */
  reset(): Promise<void>;
}

export interface SocketHandlers {
  onConnect(): void;
  onData(bytes: Uint8Array): void;
  /** The connection ended, by the peer or by an error. Called at most once. */
  onClose(): void;
}

/** One TCP connection. */
export interface Socket {
  /**
   * Sends bytes; THROWS when the platform refuses them (the connection is
   * gone). A string must be ASCII, so a plain request needs no byte array.
   */
  write(data: Uint8Array | string): void;
  /**
   * The exchange is over: the port waits a while for the peer's FIN, then
   * closes (closing first on Kaluma lets a late FIN close the next socket).
   * Safe to call twice; onClose may still come.
   */
  release(): void;
  /** Closes now, without a half-close; safe to call twice. No onClose is promised after it. */
  destroy(): void;
}

export interface SocketFactory {
  /** Starts a TCP connection. May THROW at once (Wi-Fi down, DNS, no free slot): callers make it an outcome. */
  connect(host: string, port: number, handlers: SocketHandlers): Socket;
  /**
   * Connections the platform could not close safely (closing would free their
   * PCB twice): each keeps a driver slot until a restart, and bars a radio reset.
   */
  abandoned(): number;
}

/** Small string settings (Kaluma's storage: 64 slots, 253 bytes per item on Pico W). */
export interface KvStore {
  get(key: string): string | undefined;
  set(key: string, value: string): void;
  remove(key: string): void;
}

/**
 * A flat file store (LittleFS on the board; data is committed on close).
 * Methods throw on I/O errors; callers that can recover catch.
 */
export interface FileStore {
  /** The whole file, or undefined when it does not exist. */
  read(path: string): Uint8Array | undefined;
  /**
   * Bytes [offset, offset + length) of a file, shorter at its end; throws when
   * it is missing. `known`: the caller knows it exists, so the store need not look.
   */
  readAt(path: string, offset: number, length: number, known?: boolean): Uint8Array;
  /** Replaces the file's content (creates it). */
  write(path: string, bytes: Uint8Array): void;
  /** Adds bytes at the end (creates the file). `size`: the size when the caller keeps it, so the store need not look. */
  append(path: string, bytes: Uint8Array, size?: number): void;
  /** Size in bytes, or undefined when the file does not exist. */
  size(path: string): number | undefined;
  /** Atomic replace of `to` by `from`. */
  rename(from: string, to: string): void;
  /** Safe when the file does not exist. */
  remove(path: string): void;
  /** File names (not paths) in a directory, or [] when it does not exist. */
  list(dir: string): string[];
  /** Creates a directory; safe when it exists. */
  mkdir(dir: string): void;
}

export interface Watchdog {
  /** Starts (or re-programs) the hardware watchdog. It cannot be stopped. */
  start(timeoutMs: number): void;
  feed(): void;
  /**
   * Until start(): keeps a watchdog an earlier program left armed (Kaluma
   * never disables it on a soft reset) from resetting the board. Then nothing.
   */
  keepAlive(): void;
}

export interface HeapUsage {
  heapTotal: number;
  heapUsed: number;
  heapPeak: number;
}

export interface System {
  /** Board name, e.g. 'pico-w'. */
  boardName(): string;
  /** Unique id of the board (16 hex digits on RP2). */
  boardUid(): string;
  /** JS heap figures, or undefined where the platform has none. */
  memory(): HeapUsage | undefined;
  /** Collects garbage now where the platform can: memory().heapUsed is then the live set. */
  collect?(): void;
  /** Hard reboot. Does not return on the board. */
  reboot(): void;
  /** Seeds Math.random from a hardware source where there is one. */
  seedRandom(): void;
}

/** Console output. Kaluma's console has only log and error. */
export interface Log {
  info(line: string): void;
  error(line: string): void;
}

/** Makes functions callable by name from the console (the REPL's global scope). */
export interface ConsoleHost {
  expose(name: string, fn: (...args: unknown[]) => unknown): void;
}

/** The stored program's bytes (the program area of flash), whose leading comment holds the cold code (src/cold.ts). */
export interface ProgramStore {
  /** Bytes [offset, offset + length), undefined with no stored program; `into` may be filled and handed back. */
  read(offset: number, length: number, into?: Uint8Array): Uint8Array | undefined;
}

/** Everything the agent needs from a platform, passed in at start. */
export interface Platform {
  clock: Clock;
  timers: Timers;
  pins: Pins;
  wifi: WifiLink;
  sockets: SocketFactory;
  kv: KvStore;
  files: FileStore;
  watchdog: Watchdog;
  system: System;
  log: Log;
  console: ConsoleHost;
  program: ProgramStore;
  /**
   * I2C, where the platform has it resident (a PC's simulated buses). The
   * board's own comes as cold code (src/ports/kaluma/i2c.ts), loaded only
   * when a sensor on a bus is configured.
   */
  i2c?: I2cPorts;
}
