import { spawn } from 'node:child_process';
import { NatsBus } from './src/adapters/nats/bus.ts';
let errors: Record<string, number> = {};
for (let round = 0; round < 15; round++) {
  const port = 45200 + round;
  const srv = spawn('/usr/sbin/nats-server', ['-js', '-p', String(port), '-sd', '/tmp/natsrace' + Date.now()], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, 600));
  const access = { url: `nats://127.0.0.1:${port}`, auth: { kind: 'none' as const }, tls: undefined };
  const buses = await Promise.all(Array.from({ length: 8 }, (_, i) => NatsBus.connect({ access, environment: i % 2 ? 'sandbox' : 'production', ackWaitMs: 2000 } as any).catch((e) => { errors[e.message] = (errors[e.message] ?? 0) + 1; })));
  for (const b of buses) await (b as any)?.close();
  srv.kill();
}
console.log(errors);
