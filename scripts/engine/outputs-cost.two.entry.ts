// On the device's engine: the harness with two outputs (a relay on a Value
// device, a PWM vent on a JSON field).
import { attachOutputs } from '../../src/agent/outputs';
import { run } from './outputs-cost.harness';

run(attachOutputs as unknown as Parameters<typeof run>[0], 2);
