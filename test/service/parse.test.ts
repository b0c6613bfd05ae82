import { describe, expect, it } from 'vitest';
import { describeBody, errorSignal, parseWriteReply, unescapeXml } from '../../src/service/parse';
import { xmlProblem } from '../../src/service/xml-check';
import { parseApiKey, parseDeviceCreated, parseJsonRead, parseValueRead, parseXmlRead } from '../../src/service/parse-reads';

const KEY = 'a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6';

describe('describeBody', () => {
  it('names the kind and size and quotes the start', () => {
    expect(describeBody('')).toBe('empty 0 bytes');
    expect(describeBody(' Value updated\n')).toBe('text 15 bytes: Value updated');
    expect(describeBody('{"a":1}')).toBe('json 7 bytes: {"a":1}');
    expect(describeBody('<ok/>')).toBe('xml 5 bytes: <ok/>');
    expect(describeBody('é\u0001\n')).toBe('text 4 bytes: é?');
    expect(describeBody('x'.repeat(70))).toBe('text 70 bytes: ' + 'x'.repeat(60) + '…');
  });

  it('lists only field names when bare', () => {
    expect(describeBody('{"status":"ok","APIKey":"' + KEY + '"}', false)).toBe('json 59 bytes (fields: status, APIKey)');
    expect(describeBody(KEY, false)).toBe('text 32 bytes');
  });
});

describe('errorSignal', () => {
  it.each([
    ['{"error":"bad key"}', 'field error is set'],
    ['{"Errors":["x"]}', 'field Errors is set'],
    ['{"success":false}', 'field success is false'],
    ['{"ok":false,"msg":"x"}', 'field ok is false'],
    ['{"status":"Failed"}', 'status is Failed'],
    ['<error>bad pin</error>', 'root element is error'],
    ['<reply><errorText>bad pin</errorText></reply>', 'element errorText is set'],
    ['Error: wrong key', 'text reads as an error'],
    ['  invalid device', 'text reads as an error'],
    ['Wrong PIN', 'text reads as an error'],
    ['Unauthorised', 'text reads as an error'],
    ['Not Found', 'text reads as an error'],
  ])('%s -> %s', (body, why) => {
    expect(errorSignal(body)).toBe(why);
  });

  it.each(['{"error":null,"status":"ok"}', '{"errors":[]}', '{"error":""}', '<reply><error/></reply>', 'Value updated', '', '21.5', '[{"error":"x"}]'])(
    'no signal in %s',
    (body) => {
      expect(errorSignal(body)).toBeUndefined();
    },
  );

  it('is what parseWriteReply reports', () => {
    expect(parseWriteReply('Data updated')).toEqual({ ok: true, value: undefined, note: 'text 12 bytes: Data updated' });
    expect(parseWriteReply('{"error":"x"}')).toEqual({ ok: false, error: 'field error is set', note: 'json 13 bytes: {"error":"x"}' });
  });
});

describe('parseApiKey', () => {
  it.each([
    ['{"APIKey":"' + KEY + '"}', 'json # bytes (fields: APIKey), key in APIKey'],
    ['{"status":"ok","apikey":"' + KEY + '"}', 'json # bytes (fields: status, apikey), key in apikey'],
    ['{"result":{"api_key":"' + KEY + '"}}', 'json # bytes (fields: result), key in api_key'],
    ['[{"Key":"' + KEY + '"}]', 'json # bytes, key in Key'],
    ['<response><APIKey>' + KEY + '</APIKey></response>', 'xml # bytes, key in APIKey'],
    ['<response apiKey="' + KEY + '"/>', 'xml # bytes, key in apiKey'],
    [KEY, 'text # bytes, key as a token'],
    ['API key: ' + KEY + '\n', 'text # bytes, key as a token'],
    ['apikey="' + KEY + '"', 'text # bytes, key as a token'],
    ['"' + KEY + '"', 'json # bytes, key as a token'],
  ])('finds the key in %s', (body, note) => {
    expect(parseApiKey(body)).toEqual({ apiKey: KEY, note: note.replace('#', String(body.length)) });
  });

  it('prefers a top-level key over a nested one', () => {
    expect(parseApiKey('{"inner":{"key":"nested123"},"apiKey":"top12345"}').apiKey).toBe('top12345');
  });

  it.each([
    ['API key generated', 'text 17 bytes, no key found'],
    ['short', 'text 5 bytes, no key found'],
    ['{"status":"ok"}', 'json 15 bytes (fields: status), no key found'],
    ['{"a":{"b":{"key":"deep"}}}', 'json 26 bytes (fields: a), no key found'],
    ['<ok/>', 'xml 5 bytes, no key found'],
    ['', 'empty 0 bytes, no key found'],
  ])('reports no key in %s', (body, note) => {
    expect(parseApiKey(body)).toEqual({ note });
  });
});

describe('parseDeviceCreated', () => {
  it.each([
    ['{"DeviceID":5,"DevicePIN":1234}', 5, 1234, 'json # bytes (fields: DeviceID, DevicePIN), DeviceID 5, DevicePIN found'],
    ['{"device":{"device_id":"7","DevicePin":"42"}}', 7, 42, 'json # bytes (fields: device), DeviceID 7, DevicePIN found'],
    ['<device><DeviceID>9</DeviceID><DevicePin>1</DevicePin></device>', 9, 1, 'xml # bytes, DeviceID 9, DevicePIN found'],
    ['<device DeviceID="3" DevicePIN="4"/>', 3, 4, 'xml # bytes, DeviceID 3, DevicePIN found'],
    ['DeviceID: 5, DevicePIN: 1234', 5, 1234, 'text # bytes, DeviceID 5, DevicePIN found'],
    ['Device created. Device id = 12', 12, undefined, 'text # bytes, DeviceID 12, DevicePIN missing'],
    ['{"DeviceID":"x5","DevicePIN":1.5}', undefined, undefined, 'json # bytes (fields: DeviceID, DevicePIN), DeviceID missing, DevicePIN missing'],
    ['Device created', undefined, undefined, 'text # bytes, DeviceID missing, DevicePIN missing'],
  ])('%s', (body, deviceId, devicePin, note) => {
    expect(parseDeviceCreated(body)).toEqual({ deviceId, devicePin, note: note.replace('#', String(body.length)) });
  });
});

describe('reads', () => {
  it('value: trimmed text, errors rejected', () => {
    expect(parseValueRead(' 21.50\r\n')).toEqual({ ok: true, value: '21.50', note: 'text 8 bytes: 21.50' });
    expect(parseValueRead('Invalid API key')).toEqual({ ok: false, error: 'text reads as an error', note: 'text 15 bytes: Invalid API key' });
  });

  it('json: parsed, empty is {}, invalid rejected', () => {
    expect(parseJsonRead('{"temp":21.5}')).toEqual({ ok: true, value: { temp: 21.5 }, note: 'json 13 bytes: {"temp":21.5}' });
    expect(parseJsonRead('  ')).toEqual({ ok: true, value: {}, note: 'empty body, taken as {}' });
    expect(parseJsonRead('{"a":')).toEqual({ ok: false, error: 'invalid JSON', note: 'text 5 bytes: {"a":' });
    expect(parseJsonRead('{"error":"x"}')).toEqual({ ok: true, value: { error: 'x' }, note: 'json 13 bytes: {"error":"x"}' });
  });

  it('xml: text of root data', () => {
    expect(parseXmlRead('<data>21.5</data>')).toEqual({ ok: true, value: '21.5', note: 'xml 17 bytes: <data>21.5</data>' });
    expect(parseXmlRead('<?xml version="1.0"?>\n<data a="1">\n a &lt;b&gt; &amp; &#233;&#x1F600; </data>\n')).toMatchObject({ ok: true, value: 'a <b> & é😀' });
    expect(parseXmlRead('<data/>')).toEqual({ ok: true, value: '', note: 'xml 7 bytes: <data/>' });
    expect(parseXmlRead('<data><![CDATA[<r>1</r>]]></data>')).toMatchObject({ ok: true, value: '<r>1</r>' });
    expect(parseXmlRead('<data><reading seq="1"/></data>')).toEqual({
      ok: true,
      value: '<reading seq="1"/>',
      note: 'xml 31 bytes: <data><reading seq="1"/></data>, data holds markup, returned as is',
    });
  });

  it('xml: rejects other roots and non-XML', () => {
    expect(parseXmlRead('<value>1</value>')).toEqual({ ok: false, error: 'root element is value, not data', note: 'xml 16 bytes: <value>1</value>' });
    expect(parseXmlRead('21.5')).toEqual({ ok: false, error: 'not XML', note: 'text 4 bytes: 21.5' });
    expect(parseXmlRead('<data>1')).toEqual({ ok: false, error: 'data element is not closed', note: 'xml 7 bytes: <data>1' });
  });

  it('unescapes entities and bad references', () => {
    expect(unescapeXml('&lt;&gt;&amp;&quot;&apos;&#65;&#x42;&#xD800;&#x110000;&bogus;')).toBe('<>&"\'AB\ufffd\ufffd&bogus;');
  });
});

describe('xmlProblem', () => {
  it.each([
    '<reading seq="1" uptime_ms="2"><temp unit="C">21.50</temp></reading>',
    '<?xml version="1.0"?>\n<!-- c --><a><b/><c x="1/2">t</c></a>\n',
    '<a><![CDATA[<not a tag>]]></a>',
  ])('accepts %s', (xml) => {
    expect(xmlProblem(xml)).toBeUndefined();
  });

  it.each([
    ['21.5', 'text outside the root element'],
    ['<a>', '<a> is not closed'],
    ['<a></b>', '</b> does not close <a>'],
    ['</a>', '</a> does not close any element'],
    ['<a/><b/>', 'more than one root element'],
    ['<a>1 < 2</a>', 'a "<" does not start a valid tag'],
    ['<a/>tail', 'text outside the root element'],
    ['<!-- only -->', 'no root element'],
  ])('%s -> %s', (xml, problem) => {
    expect(xmlProblem(xml)).toBe(problem);
  });
});
