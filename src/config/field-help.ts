// What help('keys') says of each setting, keyed as in the schema table
// (src/config/schema.ts). Cold code: only the help command reads it, so the
// text is not on the heap while the agent runs. At most 60 characters each,
// so a line fits 80 columns.

/** `texts` with `prefix` before each key: the keys of a section, written once. */
const prefixed = (prefix: string, texts: Record<string, string>): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const k in texts) out[prefix + k] = texts[k] as string;
  return out;
};

export const FIELD_HELP: Record<string, string> = /* @__PURE__ */ Object.assign(
  {
    board: 'Board model; decides which pins are usable',
    'wifi.ssid': 'Wi-Fi network name; importWifi() takes WIFI_SSID',
    'wifi.password': 'Wi-Fi passphrase; empty for an open network',
    'service.url': 'Service base URL, e.g. http://192.168.1.10:8080',
    'service.apiKey': 'API key of the account that owns the devices',
    'health.id': 'DeviceID of a JSON device for health reports (0 off)',
    'health.pin': 'DevicePIN of that device',
    'health.intervalMs': 'Time between health reports',
  },
  /* @__PURE__ */ prefixed('agent.', {
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
  }),
  /* @__PURE__ */ prefixed('sensor.*.', {
    kind: 'digital, analog, temperature or counter',
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
  }),
  /* @__PURE__ */ prefixed('device.*.', {
    id: 'DeviceID at the service',
    pin: 'DevicePIN at the service',
    format: 'Data format the device was created with',
    sensors: 'Sensor names it carries, comma-separated',
    decimals: 'Decimals of numbers in writes',
    batch: 'JSON devices: samples per write',
  }),
);
