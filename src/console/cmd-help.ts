// help(): the command list, and help('keys'): every setting with its rule.
import { helpLines } from '../config/describe';
import type { Commands, Ctx } from './shared';

const HELP = [
  'help()                 this list; help(\'keys\') lists every setting',
  'status()               uptime, Wi-Fi, deliveries, outbox, heap, errors',
  'config()               running configuration, then unsaved changes old -> new',
  "set(key, value)        change a setting, e.g. set('wifi.ssid', 'field-net')",
  "unset(key)             back to default; unset('sensor.x') removes sensor x",
  "                       set('output.x', {kind, pin, sourceId, sourcePin}):",
  '                       a pin that follows a stored value (README: Outputs)',
  'save()                 save the changes and restart into them',
  'discard()              drop unsaved changes',
  "importWifi()           Wi-Fi from Kaluma's WIFI_SSID/WIFI_PASSWORD keys",
  'sensors()              one live reading from every sensor',
  'i2cScan(bus)           the I2C addresses that answer on bus 0 or 1',
  'test()                 one reading end to end, with the service\'s answer',
  "provision(email, password, deviceName, format)  make an API key and a",
  '                       device (format Value, JSON or XML) and set them;',
  "                       name 'health' (JSON): the health reports' device;",
  "                       'remote' (JSON): this board's configuration;",
  "                       'output.x': the source of output x",
  'resume()               leave safe mode and start the agent',
  'maintenance()          restart without agent and watchdog, before flashing',
  'reboot()               restart the board',
];

/** help() alone: the command list (cold module 'help', small enough to load on a busy board). */
export function overviewCommands(c: Ctx): Commands {
  return {
    help() {
      for (const l of HELP) c.out(l);
    },
  };
}

/** help('keys'): every setting with its rule (cold module 'keys': the schema and its help texts). */
export function keysCommands(c: Ctx): Commands {
  return {
    help() {
      for (const l of helpLines()) c.out(l);
    },
  };
}

/** Both, as one command (the host's console, which loads no cold code). */
export function helpCommands(c: Ctx): Commands {
  return {
    help(topic?: unknown) {
      for (const l of topic === 'keys' ? helpLines() : HELP) c.out(l);
    },
  };
}
