import { describe, expect, it } from 'vitest';
import { apiPath, encodeSegment, parseBaseUrl } from '../../src/service/url';
import { utf8Length } from '../../src/service/utf8';

describe('parseBaseUrl', () => {
  it('defaults the port to 80 and has no prefix', () => {
    expect(parseBaseUrl('http://example.test')).toEqual({ ok: true, host: 'example.test', port: 80, prefix: '' });
    expect(parseBaseUrl('http://example.test/')).toEqual({ ok: true, host: 'example.test', port: 80, prefix: '' });
  });

  it('keeps port and path prefix, dropping trailing slashes', () => {
    expect(parseBaseUrl('http://10.0.0.2:8080/openioe/')).toEqual({ ok: true, host: '10.0.0.2', port: 8080, prefix: '/openioe' });
    expect(parseBaseUrl(' HTTP://h:1/a/b// ')).toEqual({ ok: true, host: 'h', port: 1, prefix: '/a/b' });
  });

  it.each([
    ['https://h', 'service.url: https is not supported (no TLS on the device); use http:// or a local TLS gateway'],
    ['h:80', 'service.url: must start with http:// (e.g. http://192.168.1.10:8080)'],
    ['ftp://h', 'service.url: scheme ftp:// is not supported; use http://'],
    ['http://u:p@h', 'service.url: must not contain user info (user@); the API key goes in the path'],
    ['http://h/x?a=1', 'service.url: must not contain a query (?...)'],
    ['http://h/x#top', 'service.url: must not contain a fragment (#...)'],
    ['http://h:0', 'service.url: port must be a whole number from 1 to 65535'],
    ['http://h:65536', 'service.url: port must be a whole number from 1 to 65535'],
    ['http://h:', 'service.url: port must be a whole number from 1 to 65535'],
    ['http://h:8a', 'service.url: host must be a name or IPv4 address of letters, digits, dots and dashes'],
    ['http://', 'service.url: host must be a name or IPv4 address of letters, digits, dots and dashes'],
    ['http://[::1]:80', 'service.url: host must be a name or IPv4 address of letters, digits, dots and dashes'],
    ['http://h/a b', 'service.url: path may hold only letters, digits, - . _ ~ / and %XX escapes'],
    ['http://h/%zz', 'service.url: path may hold only letters, digits, - . _ ~ / and %XX escapes'],
  ])('rejects %s', (url, error) => {
    expect(parseBaseUrl(url)).toEqual({ ok: false, error });
  });
});

describe('encodeSegment', () => {
  it('leaves the unreserved set alone', () => {
    expect(encodeSegment('AZaz09-._~')).toBe('AZaz09-._~');
  });

  it('encodes reserved characters, space and percent', () => {
    expect(encodeSegment('a/b?c#d%e f+g&h')).toBe('a%2Fb%3Fc%23d%25e%20f%2Bg%26h');
  });

  it('encodes UTF-8 bytes, including surrogate pairs', () => {
    expect(encodeSegment('é')).toBe('%C3%A9');
    expect(encodeSegment('€')).toBe('%E2%82%AC');
    expect(encodeSegment('😀')).toBe('%F0%9F%98%80');
  });

  it('turns lone surrogates into U+FFFD', () => {
    expect(encodeSegment('a\ud800b')).toBe('a%EF%BF%BDb');
    expect(encodeSegment('\udc00')).toBe('%EF%BF%BD');
    expect(encodeSegment('x\ud83d')).toBe('x%EF%BF%BD');
  });

  it('encodes dot-only segments', () => {
    expect(encodeSegment('.')).toBe('%2E');
    expect(encodeSegment('..')).toBe('%2E%2E');
    expect(encodeSegment('...')).toBe('...');
  });

  it('matches the platform encoder for every BMP character outside surrogates', () => {
    for (let c = 0; c < 0x10000; c += 7) {
      if (c >= 0xd800 && c <= 0xdfff) continue;
      const s = String.fromCharCode(c);
      const expected = encodeURIComponent(s).replace(/[!'()*]/g, (x) => '%' + x.charCodeAt(0).toString(16).toUpperCase());
      expect(encodeSegment(s)).toBe(expected);
    }
  });
});

describe('apiPath', () => {
  it('joins prefix, op and encoded segments', () => {
    expect(apiPath('/openioe', 'updatedevicevalue', ['k/y', '5', '77', '21.50'])).toBe('/openioe/api/updatedevicevalue/k%2Fy/5/77/21.50');
    expect(apiPath('', 'showdevicejson', ['key', '1', '2'])).toBe('/api/showdevicejson/key/1/2');
  });
});

describe('utf8Length', () => {
  it('counts bytes', () => {
    expect(utf8Length('aé€😀')).toBe(1 + 2 + 3 + 4);
    expect(utf8Length('\ud800')).toBe(3);
  });
});
