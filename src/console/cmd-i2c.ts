// i2cScan(): the cold module 'scan', loaded only for the command, so the
// everyday commands' module does not carry it.
import { i2cSdaOf } from '../config/board-i2c';
import type { I2cBus } from '../ports/ports';
import type { Runtime } from '../runtime';
import { addressesOf, hex, I2C_KINDS } from '../sensors/i2c/kinds';
import { fullPortsOf } from '../sensors/i2c/fail';
import { scanBus } from '../sensors/i2c/sensors';
import { S } from '../sensors/i2c/state';
import type { Commands, Ctx } from './shared';

/** What i2cScan() reaches. */
export type ScanRt = Pick<Runtime, 'p' | 'config' | 'agent' | 'consoleError'>;

export function scanCommands(c: Ctx<ScanRt>): Commands {
  return {
    i2cScan(bus) {
      i2cScan(c.rt, bus, c.out, c.fail);
    },
  };
}

/**
 * The addresses that answer on I2C bus `bus`, each with the kinds that can
 * have it: on the agent's open bus, or on one opened for the scan (the pins
 * of the bus's sensors, else the board's default pair).
 */
function i2cScan(rt: ScanRt, bus: unknown, out: (l: string) => void, fail: (l: string) => void): void {
  if (bus !== 0 && bus !== 1) return fail('i2cScan: bus must be 0 or 1, e.g. i2cScan(0)');
  const cfg = rt.config();
  const pins = i2cSdaOf(cfg.board);
  let sda = pins ? ((pins[bus] as number[])[0] as number) : 0;
  let hz = 100000;
  for (const s of cfg.sensors) {
    if ((s.bus || 0) === bus && s.address !== undefined) {
      sda = s.sda as number;
      hz = s.freqHz || 100000;
    }
  }
  const scl = sda + 1;
  const a = rt.agent();
  const env = a && a.i2c && (a.i2c[0] as (typeof a.i2c)[0]).st_[S.Env];
  const open = env && env.buses[bus];
  let found: number[];
  if (env && open) found = scanBus(fullPortsOf(env.p).use(open.h));
  else {
    // The bus is not open: its pins must not serve anything else.
    for (const o of (cfg.sensors as { name: string; pin?: number }[]).concat(cfg.outputs)) {
      if (o.pin === sda || o.pin === scl) return fail('i2cScan: GP' + o.pin + ' is ' + o.name + "'s pin; bus " + bus + ' would take GP' + sda + ' and GP' + scl);
    }
    const ports = fullPortsOf(rt.p);
    let port: I2cBus;
    try {
      port = ports.use(ports.open(bus, sda, scl, hz));
    } catch (e) {
      return fail('i2cScan: cannot open bus ' + bus + ' on GP' + sda + '/GP' + scl + ': ' + String(e));
    }
    const held = port.stuck();
    if (held) out('bus ' + bus + ': ' + held + '; ' + port.recover());
    found = scanBus(port);
    port.close();
  }
  const names: string[] = [];
  for (const at of found) {
    const kinds: string[] = [];
    for (const k in I2C_KINDS) if (addressesOf(k).indexOf(at) >= 0) kinds.push(k);
    names.push(hex(at) + (kinds.length ? ' (' + kinds.join(' or ') + ')' : ''));
  }
  out('bus ' + bus + ' (SDA GP' + sda + ', SCL GP' + scl + '): ' + (names.length ? names.join(', ') : 'no device answers; check 3V3, GND, SDA, SCL and the pull-ups'));
}

