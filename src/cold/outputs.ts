// Cold module 'outputs': outputs driven by stored values (src/agent/outputs.ts).
// Loaded once the agent has started, on a board whose config has outputs,
// and kept while they run: a board without outputs never parses this code.
// Each read loads its own code ('output-read') and lets it go.
export { attachOutputs as default } from '../agent/outputs';
