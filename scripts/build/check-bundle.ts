// CI gate: fails when the device bundle uses what Kaluma 1.2.1 lacks.
import { readFileSync } from 'node:fs';
import { checkBundle } from './compat';

const file = process.argv[2] ?? 'dist/agent.js';
const problems = checkBundle(readFileSync(file, 'utf8'));
if (problems.length) {
  for (const p of problems) console.error(`${file}: ${p}`);
  process.exitCode = 1;
} else {
  console.log(`${file}: compatible with the Kaluma 1.2.1 engine (es2019 script, no missing built-ins, ASCII)`);
}
