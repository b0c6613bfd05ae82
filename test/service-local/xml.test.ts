import { describe, expect, it } from 'vitest';

import { numericOf } from '../../host/service/dashboard';
import { checkXml, escapeXmlText, firstXmlNumber, numericText } from '../../host/service/xml';

describe('checkXml', () => {
  it.each([
    '<a/>',
    '<a></a>',
    '  <a> text </a>\n',
    '\uFEFF<a/>',
    '<?xml version="1.0" encoding="UTF-8"?>\n<r><t unit="C" id=\'x\'>21.5</t></r>',
    '<?xml version="1.0" standalone="yes"?><r/>',
    '<!-- c --><r><!-- inner --><?pi data?><![CDATA[1 < 2 & 3]]></r><!-- after -->',
    '<r>&amp;&lt;&gt;&quot;&apos;&#65;&#x1F600;</r>',
    '<ns:r xmlns:ns="u"><ns:c/></ns:r>',
    '<é attr="é">ü</é>',
    '<a b = "1"\n c="2" />',
    '<a>x > y</a>',
    '<a\u{10000}b/>',
    '<a>\u{1F600}</a>',
  ])('accepts %j', (doc) => {
    expect(checkXml(doc)).toEqual({ ok: true });
  });

  it.each([
    ['', 'no root element'],
    ['   ', 'no root element'],
    ['hello', 'text outside the root element'],
    ['<a>', 'missing end tag </a>'],
    ['<a></b>', 'end tag </b> does not match <a>'],
    ['<a><b></a></b>', 'end tag </a> does not match <b>'],
    ['<a/><b/>', 'more than one root element'],
    ['<a/>tail', 'text after the root element'],
    ['<a x=1/>', 'attribute x value is not quoted'],
    ['<a x/>', 'attribute x has no value'],
    ['<a x="1" x="2"/>', 'duplicate attribute x'],
    ['<a x="1"y="2"/>', 'expected whitespace before attribute'],
    ['<a x="<"/>', "'<' in attribute value"],
    ['<a>&nbsp;</a>', 'unknown entity &nbsp;'],
    ['<a>& b</a>', 'unterminated entity reference'],
    ['<a>&#0;</a>', 'character reference to an illegal character'],
    ['<a>&#xZZ;</a>', 'bad character reference'],
    ['<a>1 < 2</a>', 'expected a name'],
    ['<a>]]></a>', "']]>' in text"],
    ['<a><!-- x -- y --></a>', "'--' inside a comment"],
    ['<a><!-- open</a>', 'unterminated comment'],
    ['<a><![CDATA[x</a>', 'unterminated CDATA section'],
    ['<!DOCTYPE a><a/>', 'DOCTYPE is not accepted'],
    ['<a/><?xml version="1.0"?>', 'XML declaration not at the start'],
    ['<?xml version="2"?><a/>', 'malformed XML declaration'],
    ['<a>\u0001</a>', 'illegal character'],
    ['<a>\uD800</a>', 'illegal character'],
    ['<a>\uDC00x</a>', 'illegal character'],
    ['<a>\uFFFE</a>', 'illegal character'],
    ['<1a/>', 'expected a name'],
    ['<a', 'unterminated start tag <a>'],
    ['<a></a', 'malformed end tag </a'],
  ])('rejects %j (%s)', (doc, error) => {
    const r = checkXml(doc);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toBe(error);
  });

  it('reports the offset of the fault', () => {
    const r = checkXml('<r><a></b></r>');
    expect(r).toEqual({ ok: false, error: 'end tag </b> does not match <a>', offset: 6 });
  });

  it('never throws on random input', () => {
    let seed = 12345;
    const rnd = (n: number): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    const alphabet = ['<', '>', '/', 'a', 'b', '=', '"', "'", '&', ';', '#', 'x', '!', '-', '?', '[', ']', ' ', 'C', 'D', 'A', 'T', '1', 'é'];
    let accepted = 0;
    for (let i = 0; i < 3000; i++) {
      let s = '';
      const len = rnd(30);
      for (let j = 0; j < len; j++) s += alphabet[rnd(alphabet.length)];
      const r = checkXml(s);
      if (r.ok) accepted++;
      else expect(r.offset).toBeGreaterThanOrEqual(0);
    }
    expect(accepted).toBeLessThan(3000);
  });
});

describe('helpers', () => {
  it('escapes text for XML', () => {
    expect(escapeXmlText('<a x="1">&amp;</a>')).toBe('&lt;a x="1"&gt;&amp;amp;&lt;/a&gt;');
  });

  it.each([
    ['21.5', 21.5],
    [' -3 ', -3],
    ['1e3', 1000],
    ['.5', 0.5],
    ['abc', undefined],
    ['', undefined],
    ['12abc', undefined],
    ['0x10', undefined],
  ])('numericText(%j) is %j', (s, n) => {
    expect(numericText(s)).toBe(n);
  });

  it('finds the first numeric field of XML in document order, attributes included', () => {
    expect(firstXmlNumber('<r><name>probe</name><t unit="C">21.5</t></r>')).toEqual({ field: 't', value: 21.5 });
    expect(firstXmlNumber('<r><s v="7"/><t>1</t></r>')).toEqual({ field: 'v', value: 7 });
    expect(firstXmlNumber('<r>none</r>')).toBeUndefined();
  });

  it('finds the first numeric field of JSON depth-first', () => {
    expect(numericOf('JSON', '{"name":"x","m":{"temp":21.5},"rh":40}')).toEqual({ field: 'temp', value: 21.5 });
    expect(numericOf('JSON', '[{"v":3},{"v":4}]')).toEqual({ field: 'v', value: 3 });
    expect(numericOf('JSON', '{"s":"12.5"}')).toEqual({ field: 's', value: 12.5 });
    expect(numericOf('JSON', '{"s":"n/a"}')).toBeNull();
    expect(numericOf('Value', '4.75')).toEqual({ field: '', value: 4.75 });
    expect(numericOf('Value', 'on')).toBeNull();
  });
});
