// Cold module 'output-read': one read of an output's source and what it
// does to the output (src/agent/output-read.ts). Loaded by the outputs
// (src/cold/outputs.ts) for each read and let go once it is applied.
export { readSource as default } from '../agent/output-read';
