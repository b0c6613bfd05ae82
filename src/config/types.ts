// The shape of a validated configuration. src/config/schema.ts is the one
// table that drives defaults, validation, help and masking; this file only
// names the result so every module agrees on it.

import type { DeviceConfig } from '../model';
import type { Pull } from '../ports/ports';

export type FilterSpec =
  | { type: 'average'; window: number }
  | { type: 'median'; window: number }
  | { type: 'ewma'; alpha: number }
  | { type: 'clamp'; min: number; max: number }
  | { type: 'delta'; threshold: number; heartbeatMs: number }
  | { type: 'throttle'; minIntervalMs: number };

export type SensorKind = 'digital' | 'analog' | 'temperature' | 'counter';

export interface SensorConfig {
  /** Also the element/field name in JSON and XML writes: [A-Za-z_][A-Za-z0-9_]{0,15}. */
  name: string;
  kind: SensorKind;
  /** GPIO number; 30 for the internal temperature sensor. */
  pin: number;
  /** Sampling period. Default 60000, minimum 1000. */
  intervalMs: number;
  /** Unit label sent with readings ('C' for temperature, 'V' for uncalibrated analog, '' for digital). */
  unit: string;
  /** Ordered filter chain. */
  filters: FilterSpec[];
  /** digital, counter: input pull. Default 'none' (digital) / 'up' (counter). */
  pull?: Pull;
  /** digital: report 1 for a low level. */
  invert?: boolean;
  /** analog: ADC reference voltage. Default 3.3. */
  vrefV?: number;
  /** analog: value = volts * scale + offset. Defaults 1 and 0. */
  scale?: number;
  offset?: number;
  /** analog: two-point calibration [[volts1, value1], [volts2, value2]]; overrides scale/offset. */
  points?: [[number, number], [number, number]];
  /** analog, temperature: reads averaged per sample. Default 1 (analog), 8 (temperature). */
  oversample?: number;
  /** temperature: added to the computed degrees C. Default 0. */
  offsetC?: number;
  /** counter: how often the pin is polled for rising edges. Default 10. */
  pollMs?: number;
}

export interface AgentLimits {
  /** Outbox bound in bytes on the file store. */
  outboxBytes: number;
  backoffBaseMs: number;
  backoffCapMs: number;
  /** Hardware watchdog on (field default) or off (bench). */
  watchdog: boolean;
  /** Request deadline, connect included. */
  requestTimeoutMs: number;
  /** Largest accepted response. */
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
  /** Time between reports. Default 15 min. */
  intervalMs: number;
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
  /** GPIO number. */
  pin: number;
  /** digital: drive the pin low for 1. */
  invert?: boolean;
  /** pwm: frequency. Default 1000. */
  freqHz?: number;
  /** pwm: duty = value / scale (default 1, so the value is the duty 0..1). */
  scale?: number;
  /** The source device: DeviceID and DevicePIN of a device of the account. */
  sourceId: number;
  sourcePin: number;
  /** '' for a Value device; else the source is a JSON device and this is the field (a.b for a nested one). */
  field: string;
  /** Time between reads. Default 60 s, minimum 5 s. */
  pollMs: number;
  /** Held at boot until the first good read, and after failsafeMs without one: digital 0/1, pwm a duty 0..1. */
  safe: number;
  /** Default 10 min. */
  failsafeMs: number;
}

export interface AgentConfig {
  board: 'pico-w' | 'pico2-w';
  wifi: { ssid: string; password: string };
  service: { url: string; apiKey: string };
  health: HealthConfig;
  sensors: SensorConfig[];
  devices: DeviceConfig[];
  outputs: OutputConfig[];
  agent: AgentLimits;
}
