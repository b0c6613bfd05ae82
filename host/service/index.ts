export { startService } from './server';
export type { FaultOptions, RunningService, ServiceOptions, WriteEvent } from './server';
export { checkXml, escapeXmlText, firstXmlNumber, numericText } from './xml';
export type { XmlCheck } from './xml';
export { dashboardState, numericOf } from './dashboard';
export type { BoardOutputRow, BoardPanel, DashboardDevice, DashboardState } from './dashboard';
