// A failed step of an I2C sensor: the cold module 'i2c-fail', loaded only
// when a step says why it failed (./sensors.ts) and let go after. The
// failure skips that reading, is counted, is logged when it differs from the
// last one, and the part is readied again at the next period: a part
// plugged in later starts reading without a restart. A bus held low is
// clocked free and said so once.
import { kalumaI2c } from '../../ports/kaluma/i2c';
import type { I2cPorts, Platform } from '../../ports/ports';
import { UNITS, quantitiesOf } from './kinds';
import { Q, S } from './state';
import type { I2cEnv, I2cState } from './state';

/** The board's whole I2C, or the platform's own (a PC's simulated buses). */
export const fullPortsOf = (p: Pick<Platform, 'i2c'>): I2cPorts => p.i2c || kalumaI2c;

/**
 * Counts the failure `why`, readies the part again at the next period, drops
 * its last readings (not sent again as if new: a NaN to the agent for each),
 * says `why` when it changed, and frees a held bus.
 */
export function failI2c(st: I2cState, why: string): undefined {
  const e = st[S.Env] as I2cEnv;
  const cfg = st[S.Cfg];
  st[S.Failures]++;
  st[S.Chip] = undefined;
  st[S.Phase] = 0;
  const log = e.p.log;
  if (st[S.Error] === undefined) {
    const qs = quantitiesOf(cfg.kind) as string[];
    const at = e.p.clock.uptimeMs();
    for (let f = S.Quantities + Q.Last, i = 0; f < st.length; f += Q.Size, i++) {
      if (st[f] !== st[f]) continue;
      st[f] = NaN;
      const q = qs[i] as string;
      e.emit({ sensor: cfg.name + '.' + q, base: cfg.name, value: NaN, unit: UNITS[q] as string, atMs: at });
    }
  }
  if (why !== st[S.Error]) {
    log.error('sensor ' + cfg.name + ' (' + cfg.kind + ' at 0x' + (cfg.address as number).toString(16) + ', bus ' + String(cfg.bus || 0) + '): ' + why + '; tried again every period');
    st[S.Error] = why;
  }
  const b = e.buses[cfg.bus || 0];
  if (!b) return undefined;
  const port = fullPortsOf(e.p).use(b.h);
  const held = port.stuck();
  if (held !== b.stuck) {
    b.stuck = held;
    if (held) log.error('i2c bus ' + String(cfg.bus || 0) + ': ' + held + '; ' + port.recover());
  } else if (held) port.recover();
  return undefined;
}
