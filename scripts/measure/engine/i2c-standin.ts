// A stand-in for Kaluma's 'i2c' module on the device's runtime built for the
// PC, whose own I2C does nothing: put in front of the device bundle by
// board.ts (BoardOptions.i2c) the way the radio's stand-in is, it answers on
// either bus like a BME280 at 0x76 (21.5 C, 45 %RH, 1013.25 hPa) and an
// SHT4x at 0x44 (20.5 C, 50 %RH), fixed values, and gives 1 from digitalRead
// on the pins of an open bus (the idle lines, pulled up; the engine reads
// every pin as 0). Kaluma's own behaviour where the port meets it: a second
// I2C on an open bus throws, close() reads only this.bus and throws on a
// closed bus, a NACK throws, write() returns the bytes taken.
//
// Its own heap on the engine, which every figure of a run with it carries:
// docs/measurements/2026-11-29-i2c.md.
(function () {
  const global = globalThis as unknown as Record<string, unknown>;
  // The BME280's registers from 0x88 to 0xFF (chip id, trimming: the BMP280
  // datasheet's worked example for temperature and pressure; status 0, not
  // measuring; data), and the SHT4x's six bytes, as text: one character a byte.
  const bme =
    '\x70\x6b\x43\x67\x18\xfc\x7d\x8e\x43\xd6\xd0\x0b\x27\x0b\x8c\x00\xf9\xff\x8c\x3c\xf8\xc6\x70\x17\x00\x4b' +
    '\x00'.repeat(0xd0 - 0xa2) + '\x60' + '\x00'.repeat(0xe1 - 0xd1) + '\x6a\x01\x00\x13\x29\x03\x1e' + '\x00'.repeat(0xf7 - 0xe8) +
    '\x63\x9d\x80\x7c\x22\xb0\x6e\x35';
  const sht = '\x5f\xd1\xca\x72\xb0\xdc';
  let at = 0;
  const open: { sda: number; scl: number }[] = [];
  const fail = (errno: number): Error => {
    const e = new Error(errno === -145 ? 'Device Init/Deinit Error' : errno === -146 ? 'Device Read Error' : 'Device Write Error');
    (e as unknown as { errno: number }).errno = errno;
    return e;
  };
  // The properties Kaluma's constructor sets, all the state an I2C object has.
  function I2C(this: { bus?: number; mode?: number; baudrate?: number; sda?: number; scl?: number }, bus: number, o: { sda: number; scl: number; baudrate: number }): void {
    if (open[bus]) throw fail(-145);
    open[bus] = o;
    this.mode = 0;
    this.bus = bus;
    this.baudrate = o.baudrate;
    this.sda = o.sda;
    this.scl = o.scl;
  }
  I2C.prototype.write = function (this: { bus?: number }, data: Uint8Array, addr: number): number {
    if (this.bus === undefined || !open[this.bus] || (addr !== 0x76 && addr !== 0x44)) throw fail(-147);
    if (addr === 0x76 && data.length) at = data[0]!;
    return data.length;
  };
  I2C.prototype.read = function (this: { bus?: number }, length: number, addr: number): Uint8Array {
    if (this.bus === undefined || !open[this.bus] || (addr !== 0x76 && addr !== 0x44)) throw fail(-146);
    const out = new Uint8Array(length);
    for (let i = 0; i < length; i++) out[i] = addr === 0x76 ? bme.charCodeAt(((at + i) & 0xff) - 0x88) & 0xff : i < 6 ? sht.charCodeAt(i) : 0xff;
    if (addr === 0x76) at = (at + length) & 0xff;
    return out;
  };
  I2C.prototype.close = function (this: { bus?: number }): void {
    if (this.bus === undefined || !open[this.bus]) throw fail(-145);
    open[this.bus] = undefined as unknown as { sda: number; scl: number };
    delete this.bus;
  };
  const i2c = { I2C };
  const req = global['require'] as (name: string) => unknown;
  global['require'] = (name: string): unknown => (name === 'i2c' ? i2c : req(name));
  const read = global['digitalRead'] as (pin: number) => number;
  global['digitalRead'] = (pin: number): number => {
    for (const o of open) if (o && (o.sda === pin || o.scl === pin)) return 1;
    return read(pin);
  };
})();
