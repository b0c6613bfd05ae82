// A configuration document as the dashboard checks it before writing it
// (issue 36): the board's own checker on the document without the keys boards
// never take from the service, which are listed apart and are no error; one
// line per broken rule naming the key; PINs and secrets never shown, kept
// when sent back as "(kept)". And the history's CSV.

import { describe, expect, it } from 'vitest';

import { KEPT, checkDocument, documentForPage, looksLikeConfig, maskDocument, takeOutIgnored } from '../../host/service/config-doc';
import { canonicalText, documentCrc } from '../../host/service/fleet';
import { csvCell, historyCsv } from '../../host/service/history';
import { crc32 } from '../../src/queue/crc32';

const LIMITS = { maxBytes: 16384 };

/** A document a board could run: one sensor, a Value device, a relay read from a control device, health reports. */
function doc(): Record<string, unknown> {
  return {
    board: 'pico-w',
    sensors: [{ name: 'temp', kind: 'temperature', pin: 30, intervalMs: 60000 }],
    devices: [{ name: 'tv', deviceId: 3, devicePin: 4321, format: 'Value', sensors: ['temp'] }],
    outputs: [{ name: 'relay', kind: 'digital', pin: 16, sourceId: 5, sourcePin: 8765 }],
    health: { id: 2, pin: 5555, intervalMs: 60000 },
  };
}

describe('checkDocument', () => {
  it('passes a valid document and gives the compact text to store', () => {
    const c = checkDocument(JSON.stringify(doc(), null, 2), undefined, LIMITS);
    expect(c.errors).toEqual([]);
    expect(c.ignored).toEqual([]);
    expect(c.text).toBe(JSON.stringify(doc()));
    expect(c.config?.sensors[0]?.unit).toBe('C');
  });

  it('lists the keys boards never take from the service as ignored, not as errors', () => {
    const d = { ...doc(), wifi: { ssid: 'other-net', password: 'hunter22' }, service: { url: 'http://elsewhere.example', apiKey: 'x'.repeat(32) }, remote: { id: 9, pin: 1, pollMs: 60000 } };
    const c = checkDocument(JSON.stringify(d), undefined, LIMITS);
    expect(c.errors).toEqual([]);
    expect(c.ignored).toEqual(['wifi.ssid', 'wifi.password', 'service.url', 'service.apiKey', 'remote.id', 'remote.pin', 'remote.pollMs']);
    // Even values the checker would refuse: a board leaves them out before checking.
    const bad = checkDocument(JSON.stringify({ ...doc(), wifi: 'nonsense', service: { url: 'ftp://x' }, remote: { pollMs: 1 } }), undefined, LIMITS);
    expect(bad.errors).toEqual([]);
    expect(bad.ignored).toEqual(['wifi', 'service.url', 'remote.pollMs']);
    expect(takeOutIgnored({ wifi: {}, agent: {} })).toEqual({ rest: { agent: {} }, ignored: [] });
  });

  it('names the key and the rule of every broken rule, one line each, and gives nothing to store', () => {
    const d = doc();
    (d.sensors as Record<string, unknown>[])[0]!.intervalMs = 5;
    (d.outputs as Record<string, unknown>[])[0]!.pin = 30;
    d.agent = { backoffBaseMs: 1 };
    d.colour = 'red';
    const c = checkDocument(JSON.stringify(d), undefined, LIMITS);
    expect(c.text).toBeUndefined();
    expect(c.errors).toContain('colour: unknown key');
    expect(c.errors).toContain('sensor.temp.intervalMs: must be a whole number from 1000 to 86400000');
    expect(c.errors).toContain('agent.backoffBaseMs: must be a whole number from 100 to 60000');
    expect(c.errors.some((l) => l.startsWith('output.relay.pin: '))).toBe(true);
    for (const line of c.errors) expect(line).toMatch(/^[A-Za-z][\w.[\]]*: \S/);
  });

  it("refuses what the board refuses from the service: lkgRevertMs 0, a document its next read cannot hold", () => {
    const off = checkDocument(JSON.stringify({ ...doc(), agent: { lkgRevertMs: 0 } }), undefined, LIMITS);
    expect(off.errors).toEqual(['agent.lkgRevertMs: 0 (off) cannot come from the service: the trial that reverts a bad document needs it']);
    const tight = checkDocument(JSON.stringify({ ...doc(), agent: { maxResponseBytes: 1024 } }), undefined, LIMITS);
    expect(tight.errors).toHaveLength(1);
    expect(tight.errors[0]).toMatch(/^agent\.maxResponseBytes: must hold this document and its reply's head for the next read \(at least \d+\)$/);
    const big = checkDocument(JSON.stringify({ ...doc(), agent: {}, wifi: { ssid: 'x'.repeat(20000) } }), undefined, LIMITS);
    expect(big.errors[0]).toMatch(/^document: \d+ bytes as compact JSON, over the service's limit of 16384 bytes$/);
  });

  it('says in one line when the text is no JSON object', () => {
    expect(checkDocument('{"board": ', undefined, LIMITS).errors).toEqual([expect.stringMatching(/^document: not JSON \(/)]);
    expect(checkDocument('[1]', undefined, LIMITS).errors).toEqual(['document: must be a JSON object, in the shape of flash.sh --config']);
  });

  it('restores a "(kept)" PIN from the stored document, by the entry\'s name, and refuses one with nothing to keep', () => {
    const stored = JSON.stringify(doc());
    const shown = maskDocument(doc()) as Record<string, unknown>;
    const c = checkDocument(JSON.stringify(shown), stored, LIMITS);
    expect(c.errors).toEqual([]);
    expect(c.text).toBe(stored);
    // A renamed device has no stored PIN to keep; a new one is typed.
    const renamed = maskDocument(doc()) as { devices: Record<string, unknown>[] };
    renamed.devices[0]!.name = 'tv2';
    const r = checkDocument(JSON.stringify(renamed), stored, LIMITS);
    expect(r.errors).toEqual([`device.tv2.pin: "${KEPT}" keeps the stored value, and the stored document has none here; give the value`]);
    renamed.devices[0]!.devicePin = 1234;
    expect(checkDocument(JSON.stringify(renamed), stored, LIMITS).errors).toEqual([]);
  });
});

describe('what the page gets of a document', () => {
  it('shows every PIN and secret as "(kept)"', () => {
    const d = { ...doc(), wifi: { ssid: 'n', password: 'hunter22' }, service: { apiKey: 'k'.repeat(32) }, remote: { id: 1, pin: 2468 } };
    const page = documentForPage(JSON.stringify(d));
    for (const secret of ['4321', '8765', '5555', '2468', 'hunter22', 'k'.repeat(32)]) expect(page).not.toContain(secret);
    expect(page.match(/"\(kept\)"/g)).toHaveLength(6);
    expect(JSON.parse(page)).toMatchObject({ devices: [{ devicePin: KEPT, deviceId: 3 }], outputs: [{ sourcePin: KEPT, sourceId: 5 }] });
  });

  it('tells a configuration from other JSON', () => {
    expect(looksLikeConfig(doc())).toBe(true);
    expect(looksLikeConfig({ agent: { lkgRevertMs: 600000 } })).toBe(true);
    expect(looksLikeConfig({ temp: 21.5, seq: 3, uptime_ms: 10 })).toBe(false);
    expect(looksLikeConfig({ fw: '0.1.0', board: 'pico-w', intervalS: 60 })).toBe(false);
    expect(looksLikeConfig({})).toBe(false);
    expect(looksLikeConfig([doc()])).toBe(false);
  });
});

describe("a document's CRC, as a board reports the one it read", () => {
  it("is the CRC-32 of its canonical text: compact, every object's keys sorted, so the same content gives the same CRC", () => {
    const a = '{ "b": 1, "a": { "y": [3, {"q": 1, "p": 2}], "x": "s" } }\n';
    expect(canonicalText(a)).toBe('{"a":{"x":"s","y":[3,{"p":2,"q":1}]},"b":1}');
    const bytes = Buffer.from('{"a":{"x":"s","y":[3,{"p":2,"q":1}]},"b":1}', 'utf8');
    expect(documentCrc(a)).toBe(crc32(bytes, 0, bytes.length).toString(16));
    expect(documentCrc('{"a":{"y":[3,{"q":1,"p":2}],"x":"s"},"b":1}')).toBe(documentCrc(a));
    expect(documentCrc('{"b":2}')).not.toBe(documentCrc('{"b":1}'));
    // A key named __proto__ stays a key.
    expect(canonicalText('{"__proto__":{"b":1,"a":2}}')).toBe('{"__proto__":{"a":2,"b":1}}');
  });
});

describe('history CSV', () => {
  it('quotes what needs quoting and keeps a spreadsheet from running a value as a formula', () => {
    expect(csvCell('21.5')).toBe('21.5');
    expect(csvCell('-3.25')).toBe('-3.25');
    expect(csvCell('a,b')).toBe('"a,b"');
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell('two\nlines')).toBe('"two\nlines"');
    expect(csvCell('=HYPERLINK("x")')).toBe('"\'=HYPERLINK(""x"")"');
    expect(csvCell('@SUM(A1)')).toBe("'@SUM(A1)");
    expect(csvCell('-cmd')).toBe("'-cmd");
  });

  it('has a header naming the field and its unit, then one line per write, oldest first', () => {
    const csv = historyCsv({
      deviceId: 4, name: 'tj', format: 'JSON', field: 'temp', unit: 'C', kept: 2, writes: 2,
      rows: [
        { at: '2026-01-01T00:00:00.000Z', value: 20.5, content: '{"temp":20.5,"seq":1}' },
        { at: '2026-01-01T00:01:00.000Z', value: null, content: '{"note":"x"}' },
      ],
    });
    expect(csv).toBe('time (UTC),temp (C),stored text\r\n2026-01-01T00:00:00.000Z,20.5,"{""temp"":20.5,""seq"":1}"\r\n2026-01-01T00:01:00.000Z,,"{""note"":""x""}"\r\n');
  });
});
