// On the device's engine: the harness with OUTPUTS_N outputs (attachOutputs,
// as the cold module's default export, over the harness's fakes). OUTPUTS_N
// is put in by the build (scripts/engine/outputs-cost.ts): 1 or 2.
import { attachOutputs } from '../../src/agent/outputs';
import { run } from './outputs-cost.harness';

declare const OUTPUTS_N: number;
run(attachOutputs as unknown as Parameters<typeof run>[0], OUTPUTS_N);
