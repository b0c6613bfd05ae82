// On the device's engine: the harness with one output (attachOutputs, as
// the cold module's default export, over the harness's fakes).
import { attachOutputs } from '../../src/agent/outputs';
import { run } from './outputs-cost.harness';

run(attachOutputs as unknown as Parameters<typeof run>[0], 1);
