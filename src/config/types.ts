// The shape of a validated configuration; its defaults and rules are the
// schema's (src/config/schema.ts).

import type { DeviceConfig } from '../model';
import type { Pull } from '../ports/ports';

export type FilterSpec =
  | { type: 'average'; window: number }
  | { type: 'median'; window: number }
  | { type: 'ewma'; alpha: number }
  | { type: 'clamp'; min: number; max: number }
  | { type: 'delta'; threshold: number; heartbeatMs: number }
  | { type: 'throttle'; minIntervalMs: number };

/** The pin kinds, then the I2C kinds (src/sensors/i2c/kinds.ts, the one list of them). */
export type SensorKind = 'digital' | 'analog' | 'temperature' | 'counter' | 'bme280' | 'sht3x' | 'sht4x' | 'bh1750';

export interface SensorConfig {
  /** Also the element/field name in JSON and XML writes: [A-Za-z_][A-Za-z0-9_]{0,15}. */
  name: string;
  kind: SensorKind;
  /** GPIO number; 30 for the internal temperature sensor. Not for I2C kinds. */
  pin: number;
  intervalMs: number;
  /** Unit label sent with readings ('C' for temperature, 'V' for uncalibrated analog, '' for digital). */
  unit: string;
  /** Always there for a pin kind; an I2C kind's is left out when empty (its quantities' default). */
  filters?: FilterSpec[];
  /** digital, counter: input pull. */
  pull?: Pull;
  /** digital: report 1 for a low level. */
  invert?: boolean;
  /** analog: ADC reference voltage. */
  vrefV?: number;
  /** analog: value = volts * scale + offset. */
  scale?: number;
  offset?: number;
  /** analog: two-point calibration [[volts1, value1], [volts2, value2]]; overrides scale/offset. */
  points?: [[number, number], [number, number]];
  /** analog, temperature: reads averaged per sample. */
  oversample?: number;
  /** temperature: added to the computed degrees C. */
  offsetC?: number;
  /** counter: how often the pin is polled for rising edges. */
  pollMs?: number;
  /**
   * I2C kinds: the bus (0 or 1), its SDA and SCL pins and clock, the part's
   * 7-bit address. The checked config leaves out SCL (the GPIO above SDA),
   * bus 0 and a clock of 100000: readers take those when a key is absent.
   */
  bus?: number;
  sda?: number;
  scl?: number;
  freqHz?: number;
  address?: number;
  /**
   * I2C kinds, per quantity q of the kind: `<q>Offset`, `<q>Scale` (value =
   * measured * scale + offset) and `<q>Filters` (else `filters`), e.g.
   * humidityOffset. Read by name (src/sensors/i2c/sensors.ts).
   */
  [perQuantity: `${string}Offset` | `${string}Scale` | `${string}Filters`]: unknown;
}

export interface AgentLimits {
  outboxBytes: number;
  backoffBaseMs: number;
  backoffCapMs: number;
  /** Hardware watchdog on (field default) or off (bench). */
  watchdog: boolean;
  /** Request deadline, connect included. */
  requestTimeoutMs: number;
  maxResponseBytes: number;
  /** A changed config that delivers nothing for this long is reverted to the last known good; 0 = never. */
  lkgRevertMs: number;
  /** No request is started below this much free heap. */
  heapFloorBytes: number;
  /** Rapid reboots in a row before the agent starts in safe mode (console only). */
  safeModeBoots: number;
  /** Power the radio down between uploads (saves energy, costs a reconnect each time). */
  radioOffBetweenUploads: boolean;
}

/** The agent's own health, reported as a JSON device of the account. */
export interface HealthConfig {
  /** DeviceID of a JSON device; 0 = no reports. */
  id: number;
  /** DevicePIN of that device. */
  pin: number;
  intervalMs: number;
}

/**
 * A JSON device of the account whose stored document is the configuration
 * this board is to run (src/agent/remote.ts), read every pollMs.
 */
export interface RemoteConfig {
  /** DeviceID of a JSON device; 0 = off. */
  id: number;
  /** DevicePIN of that device. */
  pin: number;
  pollMs: number;
}

export type OutputKind = 'digital' | 'pwm';

/**
 * An output driven by a value stored at the service (src/agent/outputs.ts):
 * the agent reads its source device every pollMs and sets the pin.
 */
export interface OutputConfig {
  /** [A-Za-z_][A-Za-z0-9_]{0,15}, as sensors. */
  name: string;
  kind: OutputKind;
  pin: number;
  /** digital: drive the pin low for 1. */
  invert?: boolean;
  freqHz?: number;
  /** pwm: duty = value / scale. */
  scale?: number;
  /** The source device: DeviceID and DevicePIN of a device of the account. */
  sourceId: number;
  sourcePin: number;
  /** '' for a Value device; else the source is a JSON device and this is the field (a.b for a nested one). */
  field: string;
  pollMs: number;
  /** Held at boot until the first good read, and after failsafeMs without one: digital 0/1, pwm a duty 0..1. */
  safe: number;
  failsafeMs: number;
}

export interface AgentConfig {
  board: 'pico-w' | 'pico2-w';
  wifi: { ssid: string; password: string };
  service: { url: string; apiKey: string };
  health: HealthConfig;
  remote: RemoteConfig;
  sensors: SensorConfig[];
  devices: DeviceConfig[];
  outputs: OutputConfig[];
  agent: AgentLimits;
}
