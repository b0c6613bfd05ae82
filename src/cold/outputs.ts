// Cold module 'outputs': outputs driven by stored values (src/agent/outputs.ts).
// Loaded once the agent has started, on a board whose config has outputs,
// and kept while they run: a board without outputs never parses this code.
// Re-exported as it is (no default binding of its own: the module's scope
// lives as long as the outputs).
export { attachOutputs as default } from '../agent/outputs';
