// A small XML 1.0 well-formedness check for write bodies, plus helpers the
// service and dashboard need (escaping, first numeric field).
//
// Deliberately not a full parser: no DOCTYPE (rejected), no external
// entities, no namespace checks. What it does check: one root element,
// balanced and properly nested tags, quoted and unique attributes, valid
// entity and character references, legal characters, well-formed comments,
// CDATA sections and processing instructions.

export type XmlCheck = { ok: true } | { ok: false; error: string; offset: number };

/** Receives text and attribute values in document order (entities decoded). */
export type XmlVisitor = (kind: 'text' | 'attr', name: string, value: string) => void;

// Name characters of XML 1.0 (fifth edition), as code point ranges.
const NAME_START_RANGES: [number, number][] = [
  [0x3a, 0x3a], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a], [0xc0, 0xd6], [0xd8, 0xf6], [0xf8, 0x2ff],
  [0x370, 0x37d], [0x37f, 0x1fff], [0x200c, 0x200d], [0x2070, 0x218f], [0x2c00, 0x2fef],
  [0x3001, 0xd7ff], [0xf900, 0xfdcf], [0xfdf0, 0xfffd], [0x10000, 0xeffff],
];
const NAME_EXTRA_RANGES: [number, number][] = [
  [0x2d, 0x2e], [0x30, 0x39], [0xb7, 0xb7], [0x300, 0x36f], [0x203f, 0x2040],
];

function inRanges(cp: number, ranges: [number, number][]): boolean {
  for (const [lo, hi] of ranges) if (cp >= lo && cp <= hi) return true;
  return false;
}

function isNameStart(cp: number): boolean {
  return inRanges(cp, NAME_START_RANGES);
}

function isNameChar(cp: number): boolean {
  return inRanges(cp, NAME_START_RANGES) || inRanges(cp, NAME_EXTRA_RANGES);
}

/** Index of the first character XML 1.0 forbids (lone surrogates included), or -1. */
function illegalCharAt(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff) {
      const next = s.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        i++;
        continue;
      }
      return i;
    }
    if ((c < 0x20 && c !== 0x9 && c !== 0xa && c !== 0xd) || (c >= 0xdc00 && c <= 0xdfff) || c === 0xfffe || c === 0xffff) return i;
  }
  return -1;
}
const PREDEFINED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

class XmlError extends Error {
  constructor(message: string, readonly offset: number) {
    super(message);
  }
}

function isWs(c: string | undefined): boolean {
  return c === ' ' || c === '\t' || c === '\n' || c === '\r';
}

function validCodePoint(cp: number): boolean {
  return (
    cp === 0x9 || cp === 0xa || cp === 0xd ||
    (cp >= 0x20 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd) ||
    (cp >= 0x10000 && cp <= 0x10ffff)
  );
}

class Scanner {
  pos = 0;
  constructor(readonly s: string, readonly visit?: XmlVisitor) {}

  fail(msg: string, at = this.pos): never {
    throw new XmlError(msg, at);
  }

  startsWith(t: string): boolean {
    return this.s.startsWith(t, this.pos);
  }

  skipWs(): void {
    while (isWs(this.s[this.pos])) this.pos++;
  }

  name(): string {
    const start = this.pos;
    const first = this.s.codePointAt(this.pos);
    if (first === undefined || !isNameStart(first)) this.fail('expected a name');
    this.pos += first > 0xffff ? 2 : 1;
    for (;;) {
      const cp = this.s.codePointAt(this.pos);
      if (cp === undefined || !isNameChar(cp)) break;
      this.pos += cp > 0xffff ? 2 : 1;
    }
    return this.s.slice(start, this.pos);
  }

  /** Decodes text up to `stop` (exclusive) checking references. */
  decode(start: number, end: number, inAttr: boolean): string {
    let out = '';
    let i = start;
    while (i < end) {
      const c = this.s[i] as string;
      if (c === '&') {
        const semi = this.s.indexOf(';', i);
        if (semi < 0 || semi >= end) this.fail('unterminated entity reference', i);
        const ref = this.s.slice(i + 1, semi);
        if (ref.startsWith('#x')) {
          if (!/^[0-9A-Fa-f]{1,6}$/.test(ref.slice(2))) this.fail('bad character reference', i);
          const cp = parseInt(ref.slice(2), 16);
          if (!validCodePoint(cp)) this.fail('character reference to an illegal character', i);
          out += String.fromCodePoint(cp);
        } else if (ref.startsWith('#')) {
          if (!/^[0-9]{1,7}$/.test(ref.slice(1))) this.fail('bad character reference', i);
          const cp = parseInt(ref.slice(1), 10);
          if (!validCodePoint(cp)) this.fail('character reference to an illegal character', i);
          out += String.fromCodePoint(cp);
        } else {
          const v = PREDEFINED[ref];
          if (v === undefined) this.fail(`unknown entity &${ref};`, i);
          out += v;
        }
        i = semi + 1;
      } else if (c === '<') {
        this.fail(inAttr ? "'<' in attribute value" : "unexpected '<'", i);
      } else {
        out += c;
        i++;
      }
    }
    return out;
  }

  comment(): void {
    // at '<!--'
    const start = this.pos;
    const end = this.s.indexOf('-->', this.pos + 4);
    if (end < 0) this.fail('unterminated comment', start);
    const body = this.s.slice(this.pos + 4, end);
    if (body.includes('--') || body.endsWith('-')) this.fail("'--' inside a comment", start);
    this.pos = end + 3;
  }

  pi(): void {
    // at '<?'
    const start = this.pos;
    this.pos += 2;
    const target = this.name();
    if (target.toLowerCase() === 'xml') this.fail('XML declaration not at the start', start);
    const end = this.s.indexOf('?>', this.pos);
    if (end < 0) this.fail('unterminated processing instruction', start);
    if (end > this.pos && !isWs(this.s[this.pos])) this.fail('bad processing instruction', start);
    this.pos = end + 2;
  }

  xmlDecl(): void {
    if (!this.s.startsWith('<?xml', 0) || !isWs(this.s[5])) return;
    const end = this.s.indexOf('?>');
    if (end < 0) this.fail('unterminated XML declaration', 0);
    const decl = this.s.slice(5, end);
    const re = /^\s+version\s*=\s*(["'])1\.[0-9]+\1(\s+encoding\s*=\s*(["'])[A-Za-z][A-Za-z0-9._-]*\3)?(\s+standalone\s*=\s*(["'])(yes|no)\5)?\s*$/;
    if (!re.test(decl)) this.fail('malformed XML declaration', 0);
    this.pos = end + 2;
  }

  misc(): void {
    for (;;) {
      this.skipWs();
      if (this.startsWith('<!--')) this.comment();
      else if (this.startsWith('<?')) this.pi();
      else return;
    }
  }

  element(): void {
    const stack: string[] = [];
    for (;;) {
      // at '<' of a start tag
      const tagStart = this.pos;
      this.pos++;
      const name = this.name();
      const seen = new Set<string>();
      let selfClosing = false;
      for (;;) {
        const hadWs = isWs(this.s[this.pos]);
        this.skipWs();
        const c = this.s[this.pos];
        if (c === undefined) this.fail(`unterminated start tag <${name}>`, tagStart);
        if (c === '>') {
          this.pos++;
          break;
        }
        if (c === '/') {
          if (this.s[this.pos + 1] !== '>') this.fail("expected '/>'");
          this.pos += 2;
          selfClosing = true;
          break;
        }
        if (!hadWs) this.fail('expected whitespace before attribute');
        const attr = this.name();
        if (seen.has(attr)) this.fail(`duplicate attribute ${attr}`);
        seen.add(attr);
        this.skipWs();
        if (this.s[this.pos] !== '=') this.fail(`attribute ${attr} has no value`);
        this.pos++;
        this.skipWs();
        const q = this.s[this.pos];
        if (q !== '"' && q !== "'") this.fail(`attribute ${attr} value is not quoted`);
        const vEnd = this.s.indexOf(q, this.pos + 1);
        if (vEnd < 0) this.fail(`unterminated value of attribute ${attr}`);
        const value = this.decode(this.pos + 1, vEnd, true);
        this.visit?.('attr', attr, value);
        this.pos = vEnd + 1;
      }
      if (!selfClosing) stack.push(name);
      // content until the next start tag, or until the stack empties
      for (;;) {
        if (stack.length === 0) return;
        const textStart = this.pos;
        const lt = this.s.indexOf('<', this.pos);
        if (lt < 0) this.fail(`missing end tag </${stack[stack.length - 1]}>`, this.s.length);
        if (lt > textStart) {
          const raw = this.s.slice(textStart, lt);
          const bad = raw.indexOf(']]>');
          if (bad >= 0) this.fail("']]>' in text", textStart + bad);
          const text = this.decode(textStart, lt, false);
          if (text.trim() !== '') this.visit?.('text', stack[stack.length - 1] as string, text);
        }
        this.pos = lt;
        if (this.startsWith('</')) {
          const endStart = this.pos;
          this.pos += 2;
          const endName = this.name();
          this.skipWs();
          if (this.s[this.pos] !== '>') this.fail(`malformed end tag </${endName}`, endStart);
          this.pos++;
          const open = stack.pop();
          if (open !== endName) this.fail(`end tag </${endName}> does not match <${open}>`, endStart);
        } else if (this.startsWith('<!--')) {
          this.comment();
        } else if (this.startsWith('<![CDATA[')) {
          const end = this.s.indexOf(']]>', this.pos + 9);
          if (end < 0) this.fail('unterminated CDATA section');
          const text = this.s.slice(this.pos + 9, end);
          if (text.trim() !== '') this.visit?.('text', stack[stack.length - 1] as string, text);
          this.pos = end + 3;
        } else if (this.startsWith('<?')) {
          this.pi();
        } else if (this.startsWith('<!')) {
          this.fail('unexpected markup declaration');
        } else {
          break; // a nested start tag: handled by the outer loop
        }
      }
    }
  }

  document(): void {
    const bad = illegalCharAt(this.s);
    if (bad >= 0) this.fail('illegal character', bad);
    this.xmlDecl();
    this.misc();
    if (this.startsWith('<!DOCTYPE')) this.fail('DOCTYPE is not accepted');
    if (this.s[this.pos] !== '<') this.fail(this.pos >= this.s.length ? 'no root element' : 'text outside the root element');
    this.element();
    this.misc();
    if (this.pos < this.s.length) {
      this.fail(this.s[this.pos] === '<' ? 'more than one root element' : 'text after the root element');
    }
  }
}

/** Checks that `doc` is a well-formed XML document (leading BOM allowed). */
export function checkXml(doc: string, visit?: XmlVisitor): XmlCheck {
  const s = doc.startsWith('\uFEFF') ? doc.slice(1) : doc;
  try {
    new Scanner(s, visit).document();
    return { ok: true };
  } catch (e) {
    if (e instanceof XmlError) return { ok: false, error: e.message, offset: e.offset };
    throw e;
  }
}

/** Escapes text for use as XML character data. */
export function escapeXmlText(s: string): string {
  return s.replace(/[&<>]/g, (c) => (c === '&' ? '&amp;' : c === '<' ? '&lt;' : '&gt;'));
}

const NUMERIC = /^\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?\s*$/;

/** The number a text holds, if it is nothing but a decimal number. */
export function numericText(s: string): number | undefined {
  if (!NUMERIC.test(s)) return undefined;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

/** First numeric text or attribute value of an XML document, in document order. */
export function firstXmlNumber(doc: string): { field: string; value: number } | undefined {
  let found: { field: string; value: number } | undefined;
  checkXml(doc, (_kind, name, value) => {
    if (found) return;
    const n = numericText(value);
    if (n !== undefined) found = { field: name, value: n };
  });
  return found;
}
