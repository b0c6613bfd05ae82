// How flash.sh reads the program's start after `.load` (scripts/flash/board.ts
// readStart), from text as the board prints it: escapes gone, \n line ends.
import { describe, expect, it } from 'vitest';
import { readStart } from '../../scripts/flash/board';

const BOOT = 'pico-data-agent 0.1.0 on pico-w E6616407E3A1B2C3, boot 7\n';

describe('readStart', () => {
  it('finds the boot line after the prompt, where Kaluma prints it (the agent boots once its top level has returned)', () => {
    const text = '> ' + BOOT + 'agent: console only: not configured: set wifi.ssid\ntype help() for the commands\n';
    expect(readStart(text, '')).toEqual({
      kind: 'boot', boot: { version: '0.1.0', board: 'pico-w', boot: 7, mode: 'console-only', why: 'not configured: set wifi.ssid' },
    });
  });

  it('reads a boot line without a unique id ("on pico-w , boot N" on the runtime built for the PC)', () => {
    const text = '> pico-data-agent 0.1.0 on pico-w , boot 2\nled: Error: Failed to load module: pico_cyw43\nagent: SAFE MODE: 5 rapid reboots\n';
    expect(readStart(text, '')).toEqual({ kind: 'boot', boot: { version: '0.1.0', board: 'pico-w', boot: 2, mode: 'safe', why: '5 rapid reboots' } });
  });

  it('says running only once the REPL has answered a line typed after the boot line, and no mode line came before it', () => {
    const text = '> ' + BOOT + 'led: Error: x\n';
    expect(readStart(text, '')).toEqual({ kind: 'booting' });
    const answered = text + "(function(){...})()\n'@f1:up@'\n";
    const at = answered.indexOf("(function");
    expect(readStart(answered, '', at)).toEqual({ kind: 'boot', boot: { version: '0.1.0', board: 'pico-w', boot: 7, mode: 'running', why: '' } });
    // A mode line printed later (a later job) is not the boot's.
    expect(readStart(answered + 'agent: console only: later\n', '', at)).toMatchObject({ kind: 'boot', boot: { mode: 'running' } });
  });

  it('waits for a mode line cut in the middle', () => {
    expect(readStart('> ' + BOOT + 'agent: console only: not conf', '')).toEqual({ kind: 'booting' });
  });

  it('fails at once on an exception at the top level, printed with its stack before the prompt', () => {
    const top = 'ReferenceError: agentMain is not defined\n  at <anonymous>:2\n';
    expect(readStart(top + '> ', top)).toEqual({ kind: 'failed', said: 'ReferenceError: agentMain is not defined', bootLine: false });
  });

  it('waits while nothing decisive came: no boot line yet, no exception before the prompt', () => {
    expect(readStart('', undefined)).toBeUndefined();
    expect(readStart('> ', '')).toBeUndefined();
    expect(readStart('hello\n> ', 'hello\n')).toBeUndefined();
  });

  it('fails on "boot failed: ..." with or without the boot line before it', () => {
    expect(readStart('> ' + BOOT + 'boot failed: TypeError: x; the console is still up\n', '')).toEqual({
      kind: 'failed', said: 'boot failed: TypeError: x; the console is still up', bootLine: true,
    });
    expect(readStart('> boot failed: RangeError: y\n', '')).toMatchObject({ kind: 'failed', bootLine: false });
  });
});
