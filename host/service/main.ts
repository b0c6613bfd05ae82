// Command line entry: runs the local Device Data Service until SIGINT/SIGTERM.
//   tsx host/service/main.ts [--port 8080] [--host 127.0.0.1] [--data .data/service]
//                            [--latency-ms N] [--error-share 0.3] [--drop-share 0.1]
//                            [--max-body-bytes 16384] [--max-accounts 100] [--max-devices 100]
//                            [--max-history 1000] [--quiet]

import { startService } from './server';
import type { FaultOptions } from './server';

const USAGE =
  'usage: main.ts [--port 8080] [--host 127.0.0.1] [--data .data/service] [--latency-ms N]\n' +
  '               [--error-share 0..1] [--drop-share 0..1] [--max-body-bytes N] [--max-accounts N]\n' +
  '               [--max-devices N (per account)] [--max-history N (entries per device)] [--quiet]';

function fail(msg: string): never {
  process.stderr.write(`${msg}\n${USAGE}\n`);
  process.exit(2);
}

function parseArgs(argv: string[]) {
  const out = { port: 8080, host: '127.0.0.1', data: '.data/service', faults: {} as FaultOptions, maxBodyBytes: 16384, quiet: false, store: {} as { maxAccounts?: number; maxDevicesPerAccount?: number }, historyLimit: undefined as number | undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] as string;
    const [flag, inline] = a.includes('=') ? [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)] : [a, undefined];
    const value = (): string => {
      const v = inline ?? argv[++i];
      if (v === undefined) fail(`${flag} needs a value`);
      return v;
    };
    const num = (min: number, max: number): number => {
      const v = value();
      const n = Number(v);
      if (v.trim() === '' || !Number.isFinite(n) || n < min || n > max) fail(`${flag} must be a number in ${min}..${max}`);
      return n;
    };
    const int = (min: number, max: number): number => {
      const n = num(min, max);
      if (!Number.isInteger(n)) fail(`${flag} must be a whole number in ${min}..${max}`);
      return n;
    };
    switch (flag) {
      case '--port': out.port = num(0, 65535); break;
      case '--host': out.host = value(); break;
      case '--data': out.data = value(); break;
      case '--latency-ms': out.faults.latencyMs = num(0, 600000); break;
      case '--error-share': out.faults.errorShare = num(0, 1); break;
      case '--drop-share': out.faults.dropShare = num(0, 1); break;
      case '--max-body-bytes': out.maxBodyBytes = num(1, 1 << 30); break;
      case '--max-accounts': out.store.maxAccounts = int(1, 1000000); break;
      case '--max-devices': out.store.maxDevicesPerAccount = int(1, 1000000); break;
      case '--max-history': out.historyLimit = int(1, 1000000); break;
      case '--quiet': out.quiet = true; break;
      case '--help': case '-h': process.stdout.write(USAGE + '\n'); process.exit(0); break;
      default: fail(`unknown option ${a}`);
    }
  }
  return out;
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const service = await startService({
    port: args.port,
    host: args.host,
    dataDir: args.data,
    faults: args.faults,
    maxBodyBytes: args.maxBodyBytes,
    historyLimit: args.historyLimit,
    store: args.store,
    log: args.quiet ? undefined : (line) => process.stderr.write(line + '\n'),
  });
  const f = args.faults;
  const faultText = [
    f.latencyMs ? `latency ${f.latencyMs} ms` : '',
    f.errorShare ? `errors ${f.errorShare}` : '',
    f.dropShare ? `drops ${f.dropShare}` : '',
  ].filter(Boolean).join(', ');
  // Beyond loopback the start line is the dashboard's way in: its URL carries the token.
  const where = service.exposed ? `${service.url}/?token=${service.dashboardToken as string}` : `${service.url}/`;
  const exposed = service.exposed ? '; dashboard exposed beyond this machine: it needs the token in this URL (use the machine\'s name or address for the host)' : '';
  process.stdout.write(`Device Data Service listening on ${where} (data: ${args.data}${faultText ? `; faults: ${faultText}` : ''}${exposed})\n`);

  let stopping = false;
  const stop = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    process.stderr.write(`${signal}: stopping\n`);
    service.close().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`error while stopping: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((err: unknown) => {
  process.stderr.write(`cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
