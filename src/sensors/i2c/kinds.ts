// The I2C sensor kinds: the one list of them. A kind's driver is the cold
// module of the same name (drivers/<kind>.ts); its quantities are its
// readings, in the order the driver gives them, with their units.
//
// Adding a kind: its driver file, its test, and its line here.

/** Each quantity's unit, as readings and XML writes show it. */
export const UNITS: Record<string, string> = { temperature: 'C', humidity: '%RH', pressure: 'hPa', illuminance: 'lx' };

/** Kind: [its quantities in order, the addresses the part can have (the first is the default)]. */
export const I2C_KINDS: Record<string, [string[], number[]]> = {
  bme280: [['temperature', 'humidity', 'pressure'], [0x76, 0x77]],
  sht3x: [['temperature', 'humidity'], [0x44, 0x45]],
  sht4x: [['temperature', 'humidity'], [0x44, 0x45, 0x46]],
  bh1750: [['illuminance'], [0x23, 0x5c]],
};

const isKind = (kind: string): boolean => Object.prototype.hasOwnProperty.call(I2C_KINDS, kind);
/** An I2C kind's quantities in order, or undefined for a kind read from a pin. */
export const quantitiesOf = (kind: string): string[] | undefined => (isKind(kind) ? (I2C_KINDS[kind] as [string[], number[]])[0] : undefined);
/** The addresses an I2C kind's part can have (the first is the default); none for a pin kind. */
export const addressesOf = (kind: string): number[] => (isKind(kind) ? (I2C_KINDS[kind] as [string[], number[]])[1] : []);

/** An I2C address as a datasheet writes it: 0x76. */
export const hex = (n: number): string => '0x' + (n < 16 ? '0' : '') + n.toString(16);
