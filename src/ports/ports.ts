// The platform boundary. Interfaces only: logic imports these and receives
// implementations (src/ports/kaluma on the board, host/ports on a PC, fakes in
// tests). Nothing here may touch a platform.
//
// Conventions: units live in names (Ms, Fraction); expected failures are
// values, never rejected promises (a rejection prints "Uncaught" on Kaluma).

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
   * Sends bytes (the port cuts them into driver-sized writes). THROWS when
   * the platform refuses them: the connection is gone. A string stands for
   * its own characters as bytes and must hold only characters below 0x80
   * (ASCII: one byte each, the same in UTF-8 and Latin-1), so that a
   * request of plain text needs no byte array; a port may throw on any
   * other character. Anything else goes as a Uint8Array.
   */
  write(data: Uint8Array | string): void;
  /**
   * The exchange is over and the peer was asked to close (HTTP/1.0): the
   * port waits a short while for the peer's FIN, then closes it itself.
   * Closing first on Kaluma lets a late FIN close the next socket that gets
   * the same slot. Safe to call twice; onClose may still come.
   */
  release(): void;
  /** Closes now, without a half-close; safe to call twice. No onClose is promised after it. */
  destroy(): void;
}

export interface SocketFactory {
  /**
   * Starts a TCP connection. May THROW synchronously: Kaluma throws when Wi-Fi
   * is down, on DNS failure and when no socket slot is free. Callers turn the
   * throw into an outcome.
   */
  connect(host: string, port: number, handlers: SocketHandlers): Socket;
  /**
   * Connections the platform could not close safely (Kaluma: lwIP dropped
   * them without a word; closing would free their PCB twice). Each keeps one
   * of the driver's 16 slots until the board restarts; while any is left,
   * the radio must not be reset either.
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
   * Bytes [offset, offset + length) of a file; shorter at the end of the
   * file. Throws when the file is missing. `known`: the caller keeps the
   * file (it wrote it), which spares a store that would look first (on the
   * board, one call into Kaluma's fs per read).
   */
  readAt(path: string, offset: number, length: number, known?: boolean): Uint8Array;
  /** Replaces the file's content (creates it). */
  write(path: string, bytes: Uint8Array): void;
  /**
   * Adds bytes at the end (creates the file). `size`: the file's size when
   * the caller keeps it (0: not there yet), which spares a store that would
   * look it up (on the board, two calls into Kaluma's fs per append).
   */
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
   * Until start(): keeps a watchdog an earlier program left armed from
   * resetting the board, without arming one. Kaluma never disables the
   * RP2040's watchdog on a soft reset (`.load`, Ctrl+D), so a program must
   * assume it may be running from its first line. After start(), nothing:
   * only feed() (health-checked) keeps the board alive then.
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

/**
 * The stored program read back as bytes: on the board, the program area of
 * flash that the runtime parses the program from. The program carries its
 * cold code there in a leading comment (see src/cold.ts).
 */
export interface ProgramStore {
  /**
   * Bytes [offset, offset + length), or undefined when there is no stored
   * program to read. `into`, when given (at least `length` bytes), may be
   * read into and handed back (or a part of it) instead of a new array.
   */
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
}
