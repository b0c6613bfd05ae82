// Cold module 'health': the agent's health report (src/agent/health.ts),
// built every health.intervalMs and let go.
import { healthReport } from '../agent/health';

export default healthReport;
