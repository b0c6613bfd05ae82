// Globals of Kaluma 1.2.1's engine that every file may use; host builds get
// them from Node. TextDecoder only through src/utf8.ts.

declare class TextEncoder {
  encode(s?: string): Uint8Array;
}
declare class TextDecoder {
  constructor(label?: string);
  decode(bytes?: Uint8Array): string;
}
