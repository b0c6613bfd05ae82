/** The agent's version, as status() and the boot line show it. */
export const VERSION = '0.1.0';
