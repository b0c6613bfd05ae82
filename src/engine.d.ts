// Globals of the device's JS engine that every file may use (measured on
// Kaluma 1.2.1: ../shared/kaluma-engine.md). Host builds get them from Node.

declare class TextEncoder {
  encode(s?: string): Uint8Array;
}
declare class TextDecoder {
  constructor(label?: string);
  decode(bytes?: Uint8Array): string;
}
