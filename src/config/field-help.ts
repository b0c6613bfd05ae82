// What help('keys') says of each setting: cold code, so the text is not on the
// heap while the agent runs. At most 60 characters, so a line fits 80 columns.

import { UNITS } from '../sensors/i2c/kinds';

type Texts = Record<string, string>;

/** Each section's texts with its prefix before each key: the keys of a section, written once. */
const prefixed = (sections: Record<string, Texts>): Texts => {
  const out: Texts = {};
  for (const prefix in sections) {
    const texts = sections[prefix] as Texts;
    for (const k in texts) out[prefix + k] = texts[k] as string;
  }
  return out;
};

/** Each quantity's three settings (src/config/schema.ts, quantityRows). */
const quantityTexts = (): Texts => {
  const out: Texts = {};
  for (const q in UNITS) {
    out[q + 'Offset'] = 'Added to ' + q + ' after its scale (default 0)';
    out[q + 'Scale'] = q + ' = measured * scale + offset (default 1)';
    out[q + 'Filters'] = 'Filters of ' + q + ' (else the filters setting)';
  }
  return out;
};

export const FIELD_HELP: Texts = /* @__PURE__ */ prefixed({
  '': {
    board: 'Board model; decides which pins are usable',
    'wifi.ssid': 'Wi-Fi network name; importWifi() takes WIFI_SSID',
    'wifi.password': 'Wi-Fi passphrase; empty for an open network',
    'service.url': 'Service base URL, e.g. http://192.168.1.10:8080',
    'service.apiKey': 'API key of the account that owns the devices',
    'health.id': 'DeviceID of a JSON device for health reports (0 off)',
    'health.pin': 'DevicePIN of that device',
    'health.intervalMs': 'Time between health reports',
    'remote.id': 'DeviceID of a JSON device holding this config (0 off)',
    'remote.pin': 'DevicePIN of that device',
    'remote.pollMs': 'Time between reads of that device (min 1 min)',
  },
  'agent.': {
    outboxBytes: 'Outbox size on flash; oldest readings go first',
    backoffBaseMs: 'First retry delay after a failed upload',
    backoffCapMs: 'Longest retry delay',
    watchdog: 'Hardware watchdog (turn off only on the bench)',
    requestTimeoutMs: 'Deadline of one request, connect included',
    maxResponseBytes: 'Largest response accepted from the service',
    lkgRevertMs: 'Revert a changed config that delivers nothing (0 off)',
    heapFloorBytes: 'No request starts below this free heap (0 off)',
    safeModeBoots: 'Rapid reboots in a row before safe mode',
    radioOffBetweenUploads: 'Radio off between uploads (sampling every 5 min or more)',
  },
  'sensor.*.': /* @__PURE__ */ Object.assign(/* @__PURE__ */ quantityTexts(), {
    kind: 'digital, analog, temperature, counter, or an I2C part',
    pin: 'GPIO number (temperature: always 30)',
    intervalMs: 'Sampling period',
    unit: 'Unit label sent with readings',
    filters: 'Filter chain, e.g. median:5,ewma:0.3,throttle:10000',
    pull: 'Input pull resistor',
    invert: 'Report 1 for a low level',
    vrefV: 'ADC reference voltage',
    scale: 'value = volts * scale + offset',
    offset: 'Added after scale',
    points: 'Two-point calibration volts:value,volts:value',
    oversample: 'ADC reads averaged per sample',
    offsetC: 'Added to the measured degrees C',
    pollMs: 'How often the pin is polled for edges',
    bus: 'I2C bus of the part, 0 or 1',
    sda: "I2C data pin (default: the bus's, GP4 or GP2)",
    scl: 'I2C clock pin: the GPIO above sda',
    freqHz: 'I2C clock; every part on the bus uses the same',
    address: "The part's address (default: its usual one)",
  }),
  'device.*.': {
    id: 'DeviceID at the service',
    pin: 'DevicePIN at the service',
    format: 'Data format the device was created with',
    sensors: 'Sensor names it carries, comma-separated',
    decimals: 'Decimals of numbers in writes',
    batch: 'JSON devices: samples per write',
  },
  'output.*.': {
    kind: 'digital (GPIO level) or pwm (duty 0..1)',
    pin: 'GPIO number it drives',
    sourceId: 'DeviceID of the device whose stored value drives it',
    sourcePin: 'DevicePIN of that device',
    field: 'JSON field of the source; empty for a Value device',
    pollMs: 'Time between reads of the source (min 5 s)',
    safe: 'Level/duty held at boot and when the source is unreadable',
    failsafeMs: 'Unreadable this long: go to the safe level',
    invert: 'Drive the pin low for 1',
    freqHz: 'PWM frequency',
    scale: 'pwm: duty = value / scale',
  },
});
