import { describe, expect, it } from 'vitest';
import { defaultConfig, isConfigured, validateConfig } from '../../src/config/validate';
import { configOf, errorsOf } from '../fakes/validate';

const withSensor = (s: Record<string, unknown>, board = 'pico-w'): unknown => ({ board, sensors: [{ name: 's', ...s }] });

describe('resident defaults', () => {
  it('are the schema defaults: what the checker makes of an empty file', () => {
    const r = validateConfig({});
    expect(r.ok && r.config).toEqual(defaultConfig());
  });
});

describe('defaults', () => {
  it.each([
    ['temperature', { pin: 30, intervalMs: 60000, unit: 'C', filters: [], oversample: 8, offsetC: 0 }],
    ['analog', { pin: 26, intervalMs: 60000, unit: 'V', filters: [], vrefV: 3.3, scale: 1, offset: 0, oversample: 1 }],
    ['digital', { pin: 5, intervalMs: 60000, unit: '', filters: [], pull: 'none', invert: false }],
    ['counter', { pin: 5, intervalMs: 60000, unit: '', filters: [], pull: 'up', pollMs: 10 }],
  ])('fills the %s defaults', (kind, rest) => {
    const pin = kind === 'temperature' ? {} : { pin: rest.pin };
    expect(configOf(withSensor({ kind, ...pin })).sensors).toEqual([{ name: 's', kind, ...rest }]);
  });

  it('fills device decimals and batch', () => {
    const c = configOf({
      sensors: [{ name: 't', kind: 'temperature' }],
      devices: [{ name: 'd', deviceId: 7, devicePin: 1234, format: 'Value', sensors: ['t'] }],
    });
    expect(c.devices).toEqual([{ name: 'd', deviceId: 7, devicePin: 1234, format: 'Value', sensors: ['t'], decimals: 2, batch: 1 }]);
  });
});

describe('scalar rules', () => {
  it.each([
    ['board', 'pico', 'board: must be one of pico-w, pico2-w'],
    ['wifi.ssid', 'x'.repeat(33), 'wifi.ssid: at most 32 bytes (UTF-8)'],
    // 11 characters, 33 bytes: the limit is the radio's, in bytes.
    ['wifi.ssid', '\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9', 'wifi.ssid: at most 32 bytes (UTF-8)'],
    ['wifi.ssid', 5, 'wifi.ssid: at most 32 bytes (UTF-8)'],
    ['wifi.password', 'short', 'wifi.password: 8-63 characters, or empty for an open network'],
    ['wifi.password', 'p'.repeat(64), 'wifi.password: 8-63 characters, or empty for an open network'],
    ['service.url', 'https://x.example', 'service.url: https is not supported (no TLS on the device); use http:// or a local TLS gateway'],
    ['service.url', 'ftp://x', 'service.url: scheme ftp:// is not supported; use http://'],
    ['service.url', 'http://h:99999', 'service.url: port must be a whole number from 1 to 65535'],
    ['service.url', 42, 'service.url: must be a URL like http://192.168.1.10:8080'],
    ['service.apiKey', 'short', 'service.apiKey: 8-128 characters of A-Z a-z 0-9 _ -, or empty when unset'],
    ['service.apiKey', 'has space 123', 'service.apiKey: 8-128 characters of A-Z a-z 0-9 _ -, or empty when unset'],
    ['service.apiKey', 'k'.repeat(129), 'service.apiKey: 8-128 characters of A-Z a-z 0-9 _ -, or empty when unset'],
    ['agent.outboxBytes', 8191, 'agent.outboxBytes: must be a whole number from 8192 to 1048576'],
    ['agent.outboxBytes', 1048577, 'agent.outboxBytes: must be a whole number from 8192 to 1048576'],
    ['agent.outboxBytes', 10000.5, 'agent.outboxBytes: must be a whole number from 8192 to 1048576'],
    ['agent.backoffBaseMs', 99, 'agent.backoffBaseMs: must be a whole number from 100 to 60000'],
    ['agent.backoffCapMs', 3600001, 'agent.backoffCapMs: must be a whole number from 1000 to 3600000'],
    ['agent.watchdog', 'yes', 'agent.watchdog: must be true or false'],
    ['agent.requestTimeoutMs', 999, 'agent.requestTimeoutMs: must be a whole number from 1000 to 60000'],
    ['agent.requestTimeoutMs', 60001, 'agent.requestTimeoutMs: must be a whole number from 1000 to 60000'],
    ['agent.maxResponseBytes', 1023, 'agent.maxResponseBytes: must be a whole number from 1024 to 32768'],
    ['agent.maxResponseBytes', 32769, 'agent.maxResponseBytes: must be a whole number from 1024 to 32768'],
    ['agent.lkgRevertMs', 59999, 'agent.lkgRevertMs: 0 (off) or a whole number from 60000 to 86400000'],
    ['agent.lkgRevertMs', -1, 'agent.lkgRevertMs: 0 (off) or a whole number from 60000 to 86400000'],
    ['agent.heapFloorBytes', 4095, 'agent.heapFloorBytes: 0 (off) or a whole number from 4096 to 131072'],
    ['agent.safeModeBoots', 1, 'agent.safeModeBoots: must be a whole number from 2 to 50'],
    ['agent.radioOffBetweenUploads', 1, 'agent.radioOffBetweenUploads: must be true or false'],
    ['agent.outboxBytes', NaN, 'agent.outboxBytes: must be a whole number from 8192 to 1048576'],
  ])('%s = %j -> %s', (key, value, error) => {
    const [sec, name] = key.split('.') as [string, string | undefined];
    const raw = name === undefined ? { [sec]: value } : { [sec]: { [name]: value } };
    expect(errorsOf(raw)).toEqual([error]);
  });

  it.each([
    ['wifi.ssid', ''],
    ['wifi.ssid', 'x'.repeat(32)],
    ['wifi.password', ''],
    ['wifi.password', '12345678'],
    ['wifi.password', 'p'.repeat(63)],
    ['service.url', ''],
    ['service.url', 'http://192.168.1.10:8080/base'],
    ['service.apiKey', 'Ab0_-Ab0'],
    ['agent.lkgRevertMs', 0],
    ['agent.heapFloorBytes', 0],
    ['board', 'pico2-w'],
  ])('%s = %j is accepted', (key, value) => {
    const [sec, name] = key.split('.') as [string, string | undefined];
    const raw = name === undefined ? { [sec]: value } : { [sec]: { [name]: value } };
    expect(errorsOf(raw)).toEqual([]);
  });

  it('stores the URL trimmed', () => {
    expect(configOf({ service: { url: ' http://h:1 ' } }).service.url).toBe('http://h:1');
  });

  it('keeps the backoff cap at or above the base', () => {
    expect(errorsOf({ agent: { backoffBaseMs: 5000, backoffCapMs: 4000 } })).toEqual([
      'agent.backoffCapMs: must not be below agent.backoffBaseMs',
    ]);
  });

  it('keeps the outbox within half the file system of the board', () => {
    expect(errorsOf({ agent: { outboxBytes: 300000 } })).toEqual(['agent.outboxBytes: at most half the file system (262144 on pico-w)']);
    expect(errorsOf({ board: 'pico2-w', agent: { outboxBytes: 300000 } })).toEqual([]);
  });
});

describe('sensor rules', () => {
  it.each([
    [{ kind: 'humid', pin: 5 }, "sensor.s.kind: must be one of digital, analog, temperature, counter, bme280, sht3x, sht4x, bh1750"],
    [{ pin: 5 }, 'sensor.s.kind: required'],
    [{ kind: 'digital' }, 'sensor.s.pin: required'],
    [{ kind: 'digital', pin: 31 }, 'sensor.s.pin: must be a whole number from 0 to 30'],
    [{ kind: 'digital', pin: 5, intervalMs: 999 }, 'sensor.s.intervalMs: must be a whole number from 1000 to 86400000'],
    [{ kind: 'digital', pin: 5, intervalMs: 86400001 }, 'sensor.s.intervalMs: must be a whole number from 1000 to 86400000'],
    [{ kind: 'digital', pin: 5, unit: 'ninechars' }, 'sensor.s.unit: at most 8 bytes (UTF-8)'],
    [{ kind: 'digital', pin: 5, pull: 'sideways' }, 'sensor.s.pull: must be one of up, down, none'],
    [{ kind: 'digital', pin: 5, invert: 'yes' }, 'sensor.s.invert: must be true or false'],
    [{ kind: 'analog', pin: 26, vrefV: 0.9 }, 'sensor.s.vrefV: must be a number from 1 to 5.5'],
    [{ kind: 'analog', pin: 26, vrefV: 5.6 }, 'sensor.s.vrefV: must be a number from 1 to 5.5'],
    [{ kind: 'analog', pin: 26, scale: Infinity }, 'sensor.s.scale: must be a finite number'],
    [{ kind: 'analog', pin: 26, offset: '1' }, 'sensor.s.offset: must be a finite number'],
    [{ kind: 'analog', pin: 26, oversample: 0 }, 'sensor.s.oversample: must be a whole number from 1 to 64'],
    [{ kind: 'analog', pin: 26, oversample: 65 }, 'sensor.s.oversample: must be a whole number from 1 to 64'],
    [{ kind: 'temperature', offsetC: 20.5 }, 'sensor.s.offsetC: must be a number from -20 to 20'],
    [{ kind: 'temperature', offsetC: -21 }, 'sensor.s.offsetC: must be a number from -20 to 20'],
    [{ kind: 'counter', pin: 5, pollMs: 4 }, 'sensor.s.pollMs: must be a whole number from 5 to 1000'],
    [{ kind: 'counter', pin: 5, pollMs: 1001 }, 'sensor.s.pollMs: must be a whole number from 5 to 1000'],
    [{ kind: 'analog', pin: 26, points: '1:0,1:100' }, 'sensor.s.points: must be two points volts:value,volts:value with different volts'],
    [{ kind: 'analog', pin: 26, points: '1:0' }, 'sensor.s.points: must be two points volts:value,volts:value with different volts'],
    [{ kind: 'analog', pin: 26, points: '1:0,2:x' }, 'sensor.s.points: must be two points volts:value,volts:value with different volts'],
    [{ kind: 'analog', pin: 26, points: [[1, 0], [1, 5]] }, 'sensor.s.points: must be two points volts:value,volts:value with different volts'],
    [{ kind: 'analog', pin: 5 }, 'sensor.s.pin: pin 5: analog sensors need an ADC pin (26, 27, 28)'],
    [{ kind: 'temperature', pin: 26 }, 'sensor.s.pin: pin 26: kind temperature reads the internal sensor, pin 30'],
    [{ kind: 'digital', pin: 30 }, 'sensor.s.pin: pin 30 is the internal temperature sensor; use kind temperature'],
    [{ kind: 'digital', pin: 22 }, 'sensor.s.pin: pin 22: GP22 is the boot-skip pin; a sensor that holds it low at power-up stops the program from starting'],
    [{ kind: 'digital', pin: 5, typo: 1 }, 'sensor.s.typo: unknown field'],
    [{ kind: 'digital', pin: 5, vrefV: 3.3 }, 'sensor.s.vrefV: only for kind analog'],
    [{ kind: 'analog', pin: 26, pull: 'up' }, 'sensor.s.pull: only for kind digital, counter'],
    [{ kind: 'temperature', pollMs: 10 }, 'sensor.s.pollMs: only for kind counter'],
  ])('%j -> %s', (s, error) => {
    expect(errorsOf(withSensor(s))).toEqual([error]);
  });

  it.each(['pico-w', 'pico2-w'])('refuses every Wi-Fi radio pin on %s', (board) => {
    const signals: Record<number, string> = { 23: 'WL_ON', 24: 'WL_D', 25: 'WL_CS', 29: 'WL_CLK' };
    for (const pin of [23, 24, 25, 29]) {
      expect(errorsOf(withSensor({ kind: 'digital', pin }, board))).toEqual([
        `sensor.s.pin: pin ${pin}: GP${pin} belongs to the Wi-Fi radio (${signals[pin]}) and must never be used`,
      ]);
    }
  });

  it('accepts points in both forms and stores them as pairs', () => {
    const a = configOf(withSensor({ kind: 'analog', pin: 26, points: '0.5:0,2.5:100' })).sensors[0];
    const b = configOf(withSensor({ kind: 'analog', pin: 26, points: [[0.5, 0], [2.5, 100]] })).sensors[0];
    expect(a?.points).toEqual([[0.5, 0], [2.5, 100]]);
    expect(b?.points).toEqual([[0.5, 0], [2.5, 100]]);
  });

  it.each([
    ['', 'sensors[0].name: a name is 1-16 of A-Z a-z 0-9 _ and does not start with a digit'],
    ['1abc', 'sensors[0].name: a name is 1-16 of A-Z a-z 0-9 _ and does not start with a digit'],
    ['a-b', 'sensors[0].name: a name is 1-16 of A-Z a-z 0-9 _ and does not start with a digit'],
    ['a'.repeat(17), 'sensors[0].name: a name is 1-16 of A-Z a-z 0-9 _ and does not start with a digit'],
    ['XmlTemp', "sensors[0].name: a sensor name must not start with 'xml' (reserved in XML)"],
    [7, 'sensors[0].name: a name is 1-16 of A-Z a-z 0-9 _ and does not start with a digit'],
  ])('refuses the sensor name %j', (name, error) => {
    expect(errorsOf({ sensors: [{ name, kind: 'temperature' }] })).toEqual([error]);
  });

  it('accepts a 16-character name starting with an underscore', () => {
    expect(errorsOf({ sensors: [{ name: '_' + 'a'.repeat(15), kind: 'temperature' }] })).toEqual([]);
  });

  it('refuses two sensors on one pin and a name used twice', () => {
    expect(
      errorsOf({
        sensors: [
          { name: 'a', kind: 'digital', pin: 5 },
          { name: 'b', kind: 'counter', pin: 5 },
          { name: 'a', kind: 'digital', pin: 6 },
        ],
      }),
    ).toEqual(['sensor.a: defined twice', 'sensor.b.pin: pin 5 is already used by sensor a']);
  });

  it('allows at most 8 sensors', () => {
    const sensors = [0, 1, 2, 3, 4, 5, 6, 7, 8].map((i) => ({ name: 's' + i, kind: 'digital', pin: i }));
    expect(errorsOf({ sensors })).toEqual(['sensors: at most 8 sensors (got 9)']);
    expect(errorsOf({ sensors: sensors.slice(0, 8) })).toEqual([]);
  });
});

describe('filters', () => {
  const filtersOf = (filters: unknown) => configOf(withSensor({ kind: 'temperature', filters })).sensors[0]?.filters;
  const filterError = (filters: unknown) => errorsOf(withSensor({ kind: 'temperature', filters }));

  it('reads the console form in order', () => {
    expect(filtersOf('median:5,ewma:0.3,clamp:-40:85,delta:0.5:600000,throttle:10000,average:4')).toEqual([
      { type: 'median', window: 5 },
      { type: 'ewma', alpha: 0.3 },
      { type: 'clamp', min: -40, max: 85 },
      { type: 'delta', threshold: 0.5, heartbeatMs: 600000 },
      { type: 'throttle', minIntervalMs: 10000 },
      { type: 'average', window: 4 },
    ]);
  });

  it('reads the object form and an empty chain', () => {
    expect(filtersOf([{ type: 'ewma', alpha: 1 }])).toEqual([{ type: 'ewma', alpha: 1 }]);
    expect(filtersOf('')).toEqual([]);
    expect(filtersOf([])).toEqual([]);
  });

  it.each([
    ['median:0', 'median window must be a whole number from 1 to 32'],
    ['average:33', 'average window must be a whole number from 1 to 32'],
    ['median:2.5', 'median window must be a whole number from 1 to 32'],
    ['ewma:0', 'ewma alpha must be in (0, 1]'],
    ['ewma:1.01', 'ewma alpha must be in (0, 1]'],
    ['clamp:85:-40', 'clamp min must be a number less than max'],
    ['clamp:5:5', 'clamp min must be a number less than max'],
    ['delta:-0.1:0', 'delta threshold must be a number >= 0'],
    ['delta:0.5:-1', 'delta heartbeatMs must be a whole number >= 0'],
    ['throttle:-1', 'throttle minIntervalMs must be a whole number >= 0'],
    ['throttle:', 'throttle minIntervalMs must be a whole number >= 0'],
    ['median', 'median takes median:window'],
    ['clamp:1', 'clamp takes clamp:min:max'],
    ['smooth:3', "unknown filter 'smooth' (average, median, ewma, clamp, delta, throttle)"],
    ['median:3,median:3,median:3,median:3,median:3,median:3,median:3', 'at most 6 filters'],
    [[{ type: 'median', window: 3, extra: 1 }], 'median has no parameter extra'],
    [[{ window: 3 }], 'each filter needs a type: average, median, ewma, clamp, delta, throttle'],
    [5, "must be a filter list like 'median:5,ewma:0.3'"],
  ])('%j -> %s', (filters, rule) => {
    expect(filterError(filters)).toEqual(['sensor.s.filters: ' + rule]);
  });

  it('accepts the edges of each parameter', () => {
    expect(filterError('median:1,average:32,ewma:1,delta:0:0,throttle:0')).toEqual([]);
  });
});

describe('device rules', () => {
  const sensors = [
    { name: 'temp', kind: 'temperature' },
    { name: 'light', kind: 'analog', pin: 26 },
  ];
  const dev = (d: Record<string, unknown>) => ({
    sensors,
    devices: [{ name: 'd1', deviceId: 1, devicePin: 1234, format: 'JSON', sensors: ['temp'], ...d }],
  });

  it.each([
    [{ deviceId: 0 }, 'device.d1.id: must be a whole number from 1 to 2147483647'],
    [{ deviceId: 1.5 }, 'device.d1.id: must be a whole number from 1 to 2147483647'],
    [{ devicePin: -1 }, 'device.d1.pin: must be a whole number from 0 to 2147483647'],
    [{ format: 'json' }, 'device.d1.format: must be one of Value, JSON, XML'],
    [{ decimals: 7 }, 'device.d1.decimals: must be a whole number from 0 to 6'],
    [{ batch: 0 }, 'device.d1.batch: must be a whole number from 1 to 20'],
    [{ batch: 21 }, 'device.d1.batch: must be a whole number from 1 to 20'],
    [{ format: 'XML', batch: 2 }, 'device.d1.batch: only JSON devices batch samples; use 1'],
    [{ sensors: ['temp', 'hum'] }, "device.d1.sensors: unknown sensor 'hum'"],
    [{ sensors: [] }, 'device.d1.sensors: list at least one sensor'],
    [{ sensors: ['temp', 'temp'] }, "device.d1.sensors: sensor 'temp' listed twice"],
    [{ sensors: 'temp,bad-name' }, "device.d1.sensors: 'bad-name' is not a sensor name (name, or name.quantity)"],
    [{ format: 'Value', sensors: ['temp', 'light'] }, 'device.d1.sensors: a Value device carries exactly one reading (got 2)'],
    [{ id: 5 }, 'device.d1.id: unknown field'],
    [{ deviceId: undefined }, 'device.d1.id: required'],
  ])('%j -> %s', (d, error) => {
    expect(errorsOf(dev(d))).toEqual([error]);
  });

  it('takes the sensor list as a comma string too', () => {
    expect(configOf(dev({ sensors: 'temp, light' })).devices[0]?.sensors).toEqual(['temp', 'light']);
  });

  it('refuses a device id used twice', () => {
    const raw = {
      sensors,
      devices: [
        { name: 'a', deviceId: 9, devicePin: 1, format: 'Value', sensors: ['temp'] },
        { name: 'b', deviceId: 9, devicePin: 2, format: 'Value', sensors: ['light'] },
      ],
    };
    expect(errorsOf(raw)).toEqual(['device.b.id: id 9 is already used by device a']);
  });

  it('takes a health device of its own, and refuses one that carries readings', () => {
    const devices = [{ name: 'a', deviceId: 9, devicePin: 1, format: 'Value', sensors: ['temp'] }];
    expect(configOf({ sensors, devices, health: { id: 12, pin: 34 } }).health).toEqual({ id: 12, pin: 34, intervalMs: 900000 });
    expect(errorsOf({ sensors, devices, health: { id: 9, pin: 1 } })).toEqual(["health.id: id 9 is device a's; reports need a JSON device of their own"]);
    expect(errorsOf({ health: { intervalMs: 1000 } })).toEqual(['health.intervalMs: must be a whole number from 60000 to 86400000']);
    expect(errorsOf({ health: { id: -1 } })).toEqual(['health.id: 0 (off) or a whole number from 1 to 2147483647']);
    expect(errorsOf({ health: { colour: 'red' } })).toEqual(['health.colour: unknown key']);
  });

  it('allows at most 4 devices', () => {
    const devices = [1, 2, 3, 4, 5].map((i) => ({ name: 'd' + i, deviceId: i, devicePin: 1, format: 'JSON', sensors: ['temp'] }));
    expect(errorsOf({ sensors, devices })).toEqual(['devices: at most 4 devices (got 5)']);
  });
});

describe('the whole file', () => {
  it('refuses what is not an object', () => {
    expect(errorsOf(null)).toEqual(['config: must be a JSON object']);
    expect(errorsOf([])).toEqual(['config: must be a JSON object']);
  });

  it('refuses unknown keys at every level', () => {
    expect(errorsOf({ wfi: {}, wifi: { sid: 'x' }, agent: 3, sensors: {}, devices: [5] })).toEqual([
      'wfi: unknown key',
      'wifi.sid: unknown key',
      'agent: must be an object',
      'sensors: must be a list',
      'devices[0]: must be an object',
    ]);
  });

  it('reports every error at once, in file order', () => {
    expect(
      errorsOf({
        board: 'pico2-w',
        wifi: { ssid: 'home', password: 'short' },
        service: { url: 'http://h', apiKey: 'bad key' },
        agent: { requestTimeoutMs: 500 },
        sensors: [
          { name: 'temp', kind: 'temperature', pin: 23 },
          { name: 'door', kind: 'digital', pin: 25 },
        ],
        devices: [{ name: 'd1', deviceId: 1, devicePin: 2, format: 'Value', sensors: ['temp', 'hum'] }],
      }),
    ).toEqual([
      'wifi.password: 8-63 characters, or empty for an open network',
      'service.apiKey: 8-128 characters of A-Z a-z 0-9 _ -, or empty when unset',
      'agent.requestTimeoutMs: must be a whole number from 1000 to 60000',
      'sensor.temp.pin: pin 23: GP23 belongs to the Wi-Fi radio (WL_ON) and must never be used',
      'sensor.door.pin: pin 25: GP25 belongs to the Wi-Fi radio (WL_CS) and must never be used',
      "device.d1.sensors: unknown sensor 'hum'",
      'device.d1.sensors: a Value device carries exactly one reading (got 2)',
    ]);
  });

  it('returns copies: changing the input later does not change the config', () => {
    const points = [[0, 0], [1, 10]];
    const names = ['t'];
    const c = configOf({
      sensors: [
        { name: 't', kind: 'temperature' },
        { name: 'a', kind: 'analog', pin: 26, points },
      ],
      devices: [{ name: 'd', deviceId: 1, devicePin: 1, format: 'Value', sensors: names }],
    });
    (points[0] as number[])[0] = 5;
    names.push('a');
    expect(c.sensors[1]?.points).toEqual([[0, 0], [1, 10]]);
    expect(c.devices[0]?.sensors).toEqual(['t']);
  });
});

describe('isConfigured', () => {
  it('lists what is missing before anything can be delivered', () => {
    expect(isConfigured(defaultConfig())).toEqual(['wifi.ssid', 'service.url', 'service.apiKey', 'device.<name>']);
  });

  it('is empty for a complete config', () => {
    const c = configOf({
      wifi: { ssid: 'home' },
      service: { url: 'http://h:8080', apiKey: 'abcdefgh' },
      sensors: [{ name: 't', kind: 'temperature' }],
      devices: [{ name: 'd', deviceId: 1, devicePin: 1, format: 'Value', sensors: ['t'] }],
    });
    expect(isConfigured(c)).toEqual([]);
  });
});
