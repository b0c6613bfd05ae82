// Kaluma's built-in modules that the ports import and Node does not have, for
// the host-side type check of tests that load the ports (test/ports). The
// device build uses src/ports/kaluma/kaluma.d.ts.
declare module 'rtc' {
  export function setTime(ms: number): void;
  export function getTime(): number;
}
