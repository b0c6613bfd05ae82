// Each connection the socket port abandons holds one of the driver's 16
// slots until the board restarts: at ABANDONED_LIMIT the runtime restarts the
// board itself, in order (agent stopped first; the readings are on flash).
import { describe, expect, it } from 'vitest';
import { ABANDONED_LIMIT } from '../../src/agent/supervisor';
import { testConfig } from '../fakes/config';
import { Board, DEAD_URL } from './harness';

describe('abandoned connections', () => {
  it('restarts the board once ABANDONED_LIMIT connections are abandoned, and not before', async () => {
    const board = new Board();
    board.save(testConfig(DEAD_URL));
    const b = board.boot();
    let stale = ABANDONED_LIMIT - 1;
    b.p.sockets.abandoned = () => stale;
    await b.run(30000);
    expect(b.p.reboots).toBe(0);
    stale = ABANDONED_LIMIT;
    await b.run(6000);
    expect(b.p.reboots).toBe(1);
    expect(b.rt.agent()).toBeUndefined();
    expect(b.p.errors).toContain('net: 12 connections dropped by the TCP stack without a word hold their slots for good; restarting (every reading is on flash)');
  });
});
