// Data shared along the path sensor -> filters -> reading -> outbox -> uplink.

export type DataFormat = 'Value' | 'JSON' | 'XML';
export const DATA_FORMATS: readonly DataFormat[] = ['Value', 'JSON', 'XML'];

/** One sample that survived its sensor's filter chain. */
export interface Reading {
  /** Configured sensor name, e.g. 'temp', or sensor.quantity for a part that measures several ('air.humidity'). */
  sensorId: string;
  value: number;
  /** Unit label, e.g. 'C', 'V', '' for none. */
  unit: string;
  /** millis() when sampled. */
  uptimeMs: number;
  /**
   * Overrides the device's decimals: 0 for levels and counts, which are whole
   * numbers. Absent otherwise: the assembler keeps one reading per sensor for
   * as long as it runs, and on the device's engine each pair of properties
   * costs 24 B (the record's seq and wall time live on the record, not here).
   */
  decimals?: number;
}

/** A device of the Device Data Service as the agent is configured to feed it. */
export interface DeviceConfig {
  /** Local name, e.g. 'dev1'. */
  name: string;
  deviceId: number;
  devicePin: number;
  format: DataFormat;
  /** Sensor names this device carries (exactly one for a Value device). */
  sensors: string[];
  /** Fixed decimals for numbers in writes. */
  decimals?: number;
  /** JSON devices: up to this many samples in one write (array). 1 = off. */
  batch?: number;
}
