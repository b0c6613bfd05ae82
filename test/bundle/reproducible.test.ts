// A reproducible build (scripts/build/build.ts): the same sources give the same
// bytes and the same build id, whenever and wherever they are built, so a
// board's program can be checked against what a commit builds, and cold code
// of one build is not refused by the next build of the same sources.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildBundle, parseArgs, STAND_IN } from '../../scripts/build/build';
import { MessageTable, readerIds, UNREAD } from '../../scripts/build/messages';
import { COLD_MARK } from '../../src/cold';

const ROOT = 'dist/reproducible';

/** Every file of `dir`, by name. */
function files(dir: string): Map<string, Buffer> {
  return new Map(readdirSync(dir).sort().map((f) => [f, readFileSync(join(dir, f))]));
}

describe('two builds of the same sources', () => {
  // Both boards: each pair of builds takes a few seconds.
  for (const board of ['pico-w', 'pico2-w']) {
    it(`are byte for byte the same, with the same build id (${board})`, async () => {
      const dirs = ['a', 'b'].map((d) => join(ROOT, board, d));
      for (const d of dirs) rmSync(d, { recursive: true, force: true });
      const ids: string[] = [];
      for (const d of dirs) ids.push((await buildBundle({ board, outfile: join(d, 'agent.js') })).build);
      expect(ids[1]).toBe(ids[0]);
      const [a, b] = dirs.map(files) as [Map<string, Buffer>, Map<string, Buffer>];
      expect([...a.keys()]).toEqual(['agent.cold.json', 'agent.js', 'agent.meta.json']);
      expect([...b.keys()]).toEqual([...a.keys()]);
      for (const [name, bytes] of a) {
        const other = b.get(name) as Buffer;
        // The first byte that differs says more than two unequal buffers.
        const at = bytes.findIndex((x, i) => other[i] !== x);
        expect({ name, length: other.length, firstDifference: at }).toEqual({ name, length: bytes.length, firstDifference: -1 });
      }
      // The id is the artifact's own: its hash with the stand-in where the id is.
      const text = (a.get('agent.js') as Buffer).toString('latin1');
      const id = ids[0] as string;
      expect(text.startsWith(COLD_MARK + id + ' ')).toBe(true);
      expect(createHash('sha256').update(text.split(id).join(STAND_IN), 'latin1').digest('hex').slice(0, 8)).toBe(id);
      // Every message on flash is one the program reads: none of code the bundler dropped.
      const count = (JSON.parse((a.get('agent.cold.json') as Buffer).toString()) as { messages: number }).messages;
      const read = readerIds(text.slice(text.indexOf('*/\n') + 3));
      expect(Array.from({ length: count }, (_, i) => i).filter((i) => !read.has(i))).toEqual([]);
    });
  }
});

describe('the messages\' numbers', () => {
  it('follow the sources, not the order the bundler loads the modules in', () => {
    const modules: [string, string[]][] = [
      ['agent/agent.ts', ['the agent stopped: ', 'the queue is full here']],
      ['net/wifi.ts', ['wifi: joining the network', 'the queue is full here']],
      ['config/store.ts', ['config: saved to flash now']],
    ];
    const table = (order: number[]): MessageTable => {
      const t = new MessageTable();
      for (const i of order) t.survey(...(modules[i] as [string, string[]]));
      t.settle();
      return t;
    };
    const one = table([0, 1, 2]);
    const other = table([2, 1, 0]);
    expect(other.text()).toBe(one.text());
    expect(one.list).toEqual(['the agent stopped: ', 'the queue is full here', 'config: saved to flash now', 'wifi: joining the network']);
    // Settled, it takes no message the survey did not see.
    expect(() => one.id('a message nobody surveyed')).toThrow(/not in the survey/);
    expect(one.id('wifi: joining the network')).toBe(3);
  });

  it('leave out the messages of code the bundler dropped', () => {
    const t = new MessageTable();
    t.survey('a.ts', ['said and kept here', 'said in dead code']);
    t.survey('b.ts', ['said in dead code', 'said in b and kept']);
    // The survey's code, numbered as it came: it reads 0 and 2 ('said in dead code' is 1).
    for (const s of ['said and kept here', 'said in dead code', 'said in b and kept']) t.id(s);
    t.settle(readerIds('function f(a){return __m(a?0:2)}'));
    expect(t.list).toEqual(['said and kept here', 'said in b and kept']);
    // The later passes load the same code: its dropped message gets a number no message has.
    expect(t.id('said in dead code')).toBe(UNREAD);
    expect(t.id('said in b and kept')).toBe(1);
  });

  it('are read back from the program wherever the minifier put them', () => {
    expect([...readerIds('__m(3);x(__m(a?4:b?5:6)+__m.r(7));y(8);function __m(i){return __m.r?__m.r(i):"#"+i}')].sort()).toEqual([3, 4, 5, 6]);
  });
});

describe('the build\'s command line', () => {
  it('takes a board and an output file', () => {
    expect(parseArgs([])).toEqual({});
    expect(parseArgs(['--board', 'pico2-w', '--out', 'dist/x/agent.js'])).toEqual({ board: 'pico2-w', outfile: 'dist/x/agent.js' });
  });

  it('refuses a bad one with one line naming the option and the rule', () => {
    expect(parseArgs(['--board', 'pico3'])).toBe('--board: must be one of pico-w, pico2-w (got "pico3")');
    expect(parseArgs(['--out', 'dist/agent'])).toBe('--out: must be a file name ending in .js (got "dist/agent")');
    expect(parseArgs(['--out'])).toBe('--out: needs a value');
    expect(parseArgs(['--fast'])).toBe('--fast: unknown option; the options are --board <name> and --out <file>.js');
  });
});
