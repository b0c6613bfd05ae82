// The one shape every sensor kind has: built from options with its ports
// passed in, sampled on demand, closed once (a second close is harmless).

export interface SensorSample {
  value: number;
  unit: string;
}

export interface Sensor {
  readonly name: string;
  /**
   * undefined when the hardware gave nothing usable, or after close(); null
   * when the reading comes later, by itself (an I2C part's conversion:
   * src/sensors/i2c/sensors.ts).
   */
  sample(): SensorSample | undefined | null;
  close(): void;
}
